"""A call that waits on its MCP server: the card says for what, ticking ("waiting for server
slow · 2 s · last progress 0 s ago: installing package 9"), from the typed ``ServerWait`` of
the core's progress; a server that goes silent ends the call with the idle timeout's error.

Pilot tests with the real slow server of ``tests/core/mcp/test_call_clock.py``, through the
agent as the model calls it; snapshots of the card while it waits."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Static

from agent_tui.core.calls import ServerWait
from agent_tui.core.events import Event, ToolProgress
from agent_tui.core.mcp.client import call_clock
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.ui.calls.state import CallStatus
from agent_tui.ui.lane.states.progress import ProgressView
from tests.core.mcp.conftest import write_config
from tests.core.mcp.test_call_clock import SERVER

from .card_app import CardApp, use
from .helpers import SIZE, make_agent, make_app, submit, wait_for, wait_idle

SnapCompare = Callable[..., bool]


def _progress_line(app: object, call_id: str, line: str = ".line") -> str:
    card = app.main.lane.cards.get(call_id)  # type: ignore[attr-defined]
    if card is None:
        return ""
    views = list(card.query(ProgressView))
    return str(views[0].query_one(line, Static).render()) if views else ""


def _slow_project(cwd: Path) -> None:
    (cwd / "slow_server.py").write_text(SERVER, encoding="utf-8")
    entry = {"command": sys.executable, "args": [str(cwd / "slow_server.py")], "timeout": 1}
    write_config(cwd / ".mcp.json", {"slow": entry})


@pytest.mark.asyncio
async def test_the_card_says_what_a_call_waits_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(call_clock, "NOTICE_AFTER", 0.5)
    _slow_project(tmp_path)
    go = tmp_path / "go"  # the call answers once the test has seen it wait (a loaded machine
    # may not paint a card within a call of fixed length)
    calls = [
        {"id": "c1", "name": "mcp__slow__working", "arguments": {"seconds": 3, "until": str(go)}},
        {"id": "c2", "name": "mcp__slow__silent", "arguments": {}},
    ]
    turns = [{"tool_calls": [calls[0]]}, {"tool_calls": [calls[1]]}, {"text": "done"}]
    agent = make_agent(tmp_path, turns, allow=("mcp__slow__working", "mcp__slow__silent"))
    manager = McpManager(tmp_path, agent.registry)
    agent.tool_sources.append(manager)
    app = make_app(agent)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await submit(pilot, "install it")
            await wait_for(
                pilot,
                lambda: "waiting for server slow · " in _progress_line(app, "c1"),
                "the card to say what the call waits for",
            )
            said = _progress_line(app, "c1", ".said")  # its own line, for narrow lanes
            assert said.startswith("last progress 0 s ago: installing package "), said
            card = app.main.lane.cards["c1"]
            assert card.call.waiting is not None
            assert card.call.waiting.sign == "progress"
            assert card.call.status_line().startswith("waiting for server slow · installing")
            go.write_text("", encoding="utf-8")
            # It outlives the idle timeout (1 s): progress keeps it alive, and it succeeds.
            await wait_for(
                pilot, lambda: card.call.status is not CallStatus.RUNNING, "c1 to end", 20
            )
            assert card.call.status is CallStatus.OK, card.call.content
            assert card.call.content.startswith("done after ")
            # The silent one ends after the idle timeout, the card saying why.
            await wait_for(pilot, lambda: "c2" in app.main.lane.cards, "the second card")
            silent = app.main.lane.cards["c2"]
            await wait_idle(pilot)
            assert silent.call.status is CallStatus.ERROR
            assert silent.call.code == "timeout"
            assert "it waited 1 s with no progress, log message or output" in silent.call.content
            assert silent.call.outcome.startswith("timeout: silent on the MCP server 'slow' was")
            await app.action_quit()
    finally:
        await manager.aclose()


def _waiting(quiet: float, sign: str | None, said: str | None) -> list[Event]:
    wait = ServerWait(
        server="fetch",
        waited=42.0,
        quiet=quiet,
        sign=sign,  # type: ignore[arg-type]
        said=said,
        idle_timeout=60.0,
        limit=600.0,
    )
    return [
        use("c", "mcp__fetch__fetch", url="https://example.com/docs"),
        ToolProgress(
            id="c",
            name="mcp__fetch__fetch",
            elapsed=42.5,
            message=said,
            waiting=wait,
        ),
    ]


WAITS = {
    "recent_progress": _waiting(3.0, "progress", "Installing readability (npm install)…"),
    "long_silence": _waiting(41.0, "output", "npm http fetch GET 200 jsdom"),
}


@pytest.mark.parametrize("state", list(WAITS))
def test_waiting_card_snapshot(snap_compare: SnapCompare, state: str) -> None:
    assert snap_compare(CardApp(WAITS[state]), terminal_size=(96, 6))
