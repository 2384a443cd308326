"""A lazy MCP server in the TUI, with the real fixture server: the panel shows it as "lazy · not
started · N cached tools" while no process runs; the model's first call of one of its tools
starts it, the card says "starting server…" meanwhile, then shows the server's real answer."""

from __future__ import annotations

import shlex
import sys
import uuid
from pathlib import Path

from textual.widgets import Static

from agent_tui.core.disclosure import Disclosure, DisclosureSettings
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.tool_cache import CachedTool, ToolCache, config_hash
from agent_tui.core.mcp.config.load import load_config
from agent_tui.ui.calls.state import CallStatus
from agent_tui.ui.lane.states.progress import ProgressView
from agent_tui.ui.mcp.panel import McpPanel
from tests.core.mcp.conftest import FIXTURE, write_config
from tests.core.mcp.servers import fixture_pids

from .helpers import SIZE, make_agent, make_app, submit, wait_for, wait_idle
from .test_mcp_panel import fact, servers

START_DELAY = 1.5
"""The server takes this long to start (a shell sleeps first), so "starting server…" shows."""


def _lazy_project(cwd: Path, marker: str) -> None:
    server = shlex.join([sys.executable, str(FIXTURE), "--name", marker])
    entry = {"command": "sh", "args": ["-c", f"sleep {START_DELAY}; exec {server}"]}
    config = write_config(cwd / ".mcp.json", {"fx": {**entry, "start": "lazy"}})
    spec = load_config(cwd, paths=[config]).servers["fx"]
    cached = [
        CachedTool({"name": "pid", "description": "The server's process id.", "inputSchema": {}}),
        CachedTool({"name": "echo", "description": "Return the text.", "inputSchema": {}}),
    ]
    ToolCache().save(config_hash(spec, cwd), "fx", cached, resources=False)


def _progress_line(app: object, call_id: str) -> str:
    cards = app.main.lane.cards  # type: ignore[attr-defined]
    card = cards.get(call_id)
    if card is None:
        return ""
    views = list(card.query(ProgressView))
    if not views:
        return ""
    return str(views[0].query_one(".line", Static).render())


async def test_a_lazy_server_in_the_panel_and_its_first_call_on_the_card(tmp_path: Path) -> None:
    marker = f"lazy-ui-{uuid.uuid4().hex[:8]}"
    _lazy_project(tmp_path, marker)
    call = {"id": "c1", "name": "run_tool", "arguments": {"name": "mcp__fx__pid", "input": {}}}
    agent = make_agent(
        tmp_path, [{"tool_calls": [call]}, {"text": "done"}], allow=("mcp__fx__pid",)
    )
    agent.disclosure = Disclosure(agent.registry, DisclosureSettings(deferred="auto:0"))
    manager = McpManager(tmp_path, agent.registry, disclosure=agent.disclosure)
    agent.tool_sources.append(manager)
    app = make_app(agent)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: manager._started, "the servers to start")
            assert manager.state("fx").status == "lazy"
            await pilot.press("ctrl+g")
            await wait_for(pilot, lambda: isinstance(app.screen, McpPanel), "the MCP panel")
            panel = app.screen
            assert isinstance(panel, McpPanel)
            await wait_for(pilot, lambda: "fx" in servers(panel), "the server row")
            assert servers(panel)["fx"].endswith("lazy · 2 cached")
            assert fact(panel, "status").endswith("lazy · not started · 2 cached tools")
            assert "r starts it now" in fact(panel, "hint")
            assert fixture_pids(marker) == []
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, McpPanel), "the main screen")

            await submit(pilot, "what is the server's pid?")
            await wait_for(
                pilot,
                lambda: "starting server…" in _progress_line(app, "c1"),
                "the card to say the server is starting",
            )
            card = app.main.lane.cards["c1"]
            assert card.call.starting_server == "fx"
            assert "starting server…" in card.call.status_line()
            await wait_idle(pilot)
            assert card.call.status is CallStatus.OK, card.call.content
            pids = fixture_pids(marker)
            assert len(pids) == 1
            assert card.call.content.strip() == str(pids[0])
            assert card.call.starting_server is None
            assert manager.state("fx").status == "connected"
            await app.action_quit()
    finally:
        await manager.aclose()
