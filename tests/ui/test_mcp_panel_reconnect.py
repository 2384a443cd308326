"""The MCP panel when an HTTP server dies and comes back: a real server (the SDK fixture over
streamable HTTP) killed with SIGKILL while the panel is open shows ``failed`` with why, and when
it reconnects by itself (``retry in 1 s`` in the list, ``reconnecting in 1 s (attempt 1)`` in the
details); started again on the same port, it is ``connected`` again without a key pressed. The
snapshots show the state with fixed data (a countdown of a real server would vary)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from agent_tui.core.disclosure.marks import Mark
from agent_tui.core.mcp.client.backoff import Reconnect
from agent_tui.core.mcp.client.overview import McpOverview, ServerRow
from tests.core.mcp.conftest import FIXTURE, write_config
from tests.core.mcp.servers import ServerProcess

from .helpers import wait_for
from .test_mcp_panel import CONNECT, fact, open_panel, panel_app, running, select_server, servers
from .test_mcp_panel_snapshots import (
    FILES,
    NORMAL,
    PROJECT,
    SIZE,
    SMALL,
    SnapCompare,
    showing,
    state,
    tool,
)
from .test_mcp_panel_snapshots import panel_app as snapshot_app


async def test_a_killed_server_is_shown_reconnecting_then_connected(tmp_path: Path) -> None:
    argv = [sys.executable, str(FIXTURE), "--mode", "http", "--port", "{port}", "--name", "p"]
    server = ServerProcess(argv)
    await server.start()
    write_config(tmp_path / ".mcp.json", {"web": {"type": "http", "url": server.url}})
    app, manager = panel_app(tmp_path)
    try:
        async with running(app, manager) as pilot:
            await manager.start()
            await manager.wait_ready()
            panel = await open_panel(pilot)
            await select_server(pilot, panel, "web")
            await wait_for(pilot, lambda: "connected" in fact(panel, "status"), "connected")
            await server.kill()
            await wait_for(pilot, lambda: "reconnecting" in fact(panel, "status"), "the retry")
            assert fact(panel, "status").startswith("✗ failed  reconnecting ")
            assert "(attempt " in fact(panel, "status")
            assert fact(panel, "reason").startswith(f"lost the connection to {server.url}: ")
            assert "Connection refused" in fact(panel, "reason")
            assert fact(panel, "hint").startswith("it reconnects by itself")
            assert "retry in" in servers(panel)["web"] or "reconnecting" in servers(panel)["web"]
            await server.start()
            await wait_for(
                pilot,
                lambda: fact(panel, "status").startswith("● connected"),
                "connected again, nothing pressed",
                timeout=CONNECT,
            )
            assert fact(panel, "reason") == ""
            assert "reconnect" not in fact(panel, "hint")
            assert servers(panel)["web"].endswith("tools")
    finally:
        await server.stop()


DIRECT = Mark("direct", "in the tools array")
SEARCH_TOOLS = (  # kept while it reconnects: their calls say why it is away
    tool("search", "web_search", "Searches the web.", DIRECT, ro=True, rule=None),
    tool("search", "fetch_page", "Fetches a page as text.", DIRECT, ro=True, rule=None),
)
RECONNECTING = McpOverview(
    servers=(
        NORMAL.servers[0],
        ServerRow(
            state(
                "search",
                "failed",
                transport="http",
                target="http://127.0.0.1:8931/mcp",
                reason="lost the connection to http://127.0.0.1:8931/mcp: ConnectError: "
                "Connection refused",
                failure_kind="unreachable",
                protocol_version="2025-11-25",
                server_info="search-server 1.4.2",
                connect_seconds=0.31,
                reconnect=Reconnect(3, 4),
                tools=tuple(t.info for t in SEARCH_TOOLS),
            ),
            SEARCH_TOOLS,
        ),
    ),
    files=FILES,
    cost_line=NORMAL.cost_line,
    project_file=PROJECT,
)


async def to_search(pilot: Pilot[Any]) -> None:
    await pilot.press("down")


def test_reconnecting(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        snapshot_app(tmp_path), terminal_size=SIZE, run_before=showing(RECONNECTING, to_search)
    )


def test_reconnecting_small(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        snapshot_app(tmp_path), terminal_size=SMALL, run_before=showing(RECONNECTING, to_search)
    )
