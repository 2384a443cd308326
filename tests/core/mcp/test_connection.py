"""The connection's notification handling, without a server."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from agent_tui.core.mcp.client.connection import Connection
from agent_tui.core.mcp.client.state import Status
from agent_tui.core.mcp.config.spec import ServerSpec
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


async def test_calls_while_serving_start_at_once_and_a_stop_still_answers_them(
    tmp_path: Path,
) -> None:
    """A call made while the connection serves starts its request in the connection's task
    group at once, not through the queue that the serving task must first wake up for (an
    event-loop step less per call: ``benchmarks/bench_mcp.py``); many at once are all
    answered; a call racing a stop, and one after it, get the reason, never a hang."""
    import asyncio
    import sys

    from agent_tui.core.tools.base import ToolContext
    from tests.core.mcp.conftest import FIXTURE

    spec = ServerSpec(name="fx", command=sys.executable, args=[str(FIXTURE), "--name", "fx"])
    conn = Connection(spec, tmp_path)
    conn.start()
    await asyncio.wait_for(conn.wait_settled(), 60)
    assert conn.status is Status.CONNECTED, conn.reason
    wakes: list[None] = []
    wake = conn.call_paths._wake.set
    conn.call_paths._wake.set = lambda: (wakes.append(None), wake())[1]  # type: ignore[method-assign]
    ctx = ToolContext(cwd=tmp_path)
    results = await asyncio.wait_for(
        asyncio.gather(*(conn.call("echo", {"text": f"n{i}"}, ctx) for i in range(20))), 60
    )
    assert [r.content[0].text for r in results] == [f"n{i}" for i in range(20)]
    assert wakes == []  # not one of them went through the queue
    racing = asyncio.ensure_future(conn.call("hang", {}, ctx))
    await asyncio.wait_for(conn.stop(), 60)
    with pytest.raises(ToolFailure, match="'fx'"):
        await asyncio.wait_for(racing, 60)
    with pytest.raises(ToolFailure, match="is not running: it was stopped"):
        await conn.call("echo", {"text": "late"}, ctx)
