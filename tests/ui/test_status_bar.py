"""The status bar's MCP summary follows the servers' states (connected / failed)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.mcp.manager import McpManager
from tests.core.mcp.conftest import fixture_entry, write_config

from .helpers import SIZE, make_agent, make_app, wait_for


async def test_the_status_bar_counts_connected_and_failed_servers(tmp_path: Path) -> None:
    broken = {"command": str(tmp_path / "no-such-server")}
    write_config(tmp_path / ".mcp.json", {"fx": fixture_entry(), "gone": broken})
    agent = make_agent(tmp_path, [{"text": "unused"}])
    agent.tool_sources.append(McpManager(tmp_path, agent.registry, watch=False))
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        status = app.main.status
        await wait_for(
            pilot,
            lambda: (status.mcp_connected, status.mcp_failed) == (1, 1),
            "one server up, one failed",
            timeout=30,
        )
        assert str(status.query_one("#mcp").render()) == "MCP 1 connected · 1 failed"
        await app.action_quit()


async def test_no_mcp_summary_without_servers(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.main.status.query_one("#mcp").region.width == 0
