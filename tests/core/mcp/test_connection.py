"""The connection's notification handling, without a server."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from agent_tui.core.mcp.config import ServerSpec
from agent_tui.core.mcp.connection import Connection, Status
from agent_tui.core.tools.errors import ToolFailure


async def test_handshake_era_list_changed_and_stdout_garbage(tmp_path: Path) -> None:
    changes: list[Connection] = []
    conn = Connection(ServerSpec(name="x", command="true"), tmp_path, on_change=changes.append)
    assert conn.status is Status.CONNECTING
    await conn._on_message(NS(method="notifications/progress"))
    assert not conn._refresh.is_set()
    await conn._on_message(NS(method="notifications/tools/list_changed"))
    assert conn._refresh.is_set()
    await conn._on_message(ValueError("Invalid JSON: expected value at line 1 column 1"))
    await conn._on_message(ValueError("Invalid JSON: again"))
    assert conn.garbage == 2
    assert conn.notes == [
        "ignored 2 line(s) on stdout that are not JSON-RPC (last: 'Invalid JSON: again')"
    ]
    assert changes == [conn, conn]


async def test_a_call_before_start_waits_then_fails_cleanly(tmp_path: Path) -> None:
    conn = Connection(ServerSpec(name="x", command=str(tmp_path / "missing")), tmp_path)
    conn.start()
    with pytest.raises(ToolFailure, match="'x' is not running: it failed: command not found"):
        await conn.call("t", {}, NS(progress=lambda _: None))  # type: ignore[arg-type]
    await conn.stop()
