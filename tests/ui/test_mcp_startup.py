"""MCP servers start connecting when the app opens, before any prompt is sent."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.mcp.client.manager import McpManager
from tests.core.mcp.conftest import fixture_entry, write_config

from .helpers import SIZE, make_agent, make_app, wait_for


async def test_servers_connect_at_launch_without_a_prompt(tmp_path: Path) -> None:
    write_config(tmp_path / ".mcp.json", {"fx": fixture_entry()})
    agent = make_agent(tmp_path, [{"text": "unused"}])
    manager = McpManager(tmp_path, agent.registry, watch=False)
    agent.tool_sources.append(manager)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: [s.status for s in manager.states()] == ["connected"],
            "the fixture server to connect",
            timeout=30,
        )
        assert "mcp__fx__echo" in agent.registry
        await app.action_quit()
    assert all(s.status != "connected" for s in manager.states())
