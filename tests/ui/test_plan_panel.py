"""The plan panel above the lane: a scripted model's ``update_plan`` calls update it live, its
card in the lane shows the plan it set, a resumed session shows the same panel, a long plan or
a small terminal shows one line."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import Event, ToolResult
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.freezer import Freezer
from agent_tui.ui.lane.card_content import body_content

from .gated import gated_agent
from .helpers import QuietApp, feed, make_app, submit, wait_for

SnapCompare = Callable[..., bool]
WAIT = 30.0


def _plan(*steps: tuple[str, str]) -> dict[str, Any]:
    return {"plan": [{"content": c, "status": s} for c, s in steps]}


FIRST = _plan(
    ("Read the parser", "in_progress"),
    ("Split tokenize() out", "pending"),
    ("Run the tests", "pending"),
)
SECOND = _plan(
    ("Read the parser", "completed"),
    ("Split tokenize() out", "completed"),
    ("Run the tests", "in_progress"),
)
TURNS: list[dict[str, Any]] = [
    {"text": "Planning.", "tool_calls": [{"id": "p1", "name": "update_plan", "arguments": FIRST}]},
    {"text": "Next.", "tool_calls": [{"id": "p2", "name": "update_plan", "arguments": SECOND}]},
    {"text": "Done."},
]
LONG = _plan(*[(f"Step number {n}", "completed" if n < 4 else "pending") for n in range(1, 10)])


def _shown(app: AgentApp) -> list[tuple[str, str]] | None:
    plan = app.main.plan.plan
    if plan is None or not app.main.plan.display or app.main.plan.has_class("-empty"):
        return None
    return [(s.content, s.status) for s in plan.steps]


def _steps(args: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["content"], s["status"]) for s in args["plan"]]


async def _idle(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, AgentApp)
    await wait_for(pilot, lambda: not app.busy, "the turn to end", WAIT)
    await app.main.lane.settle()
    await pilot.pause()


def _agent(cwd: Path, turns: list[dict[str, Any]], store: SessionStore | None = None,
           session: SessionLog | None = None) -> Agent:  # fmt: skip
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return Agent(
        ScriptProvider(script), default_registry(), cwd, policy=SimplePolicy(),
        session=session, sessions=store, system="test",
    )  # fmt: skip


async def test_the_panel_follows_the_model_plan_and_survives_resume(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    store = SessionStore(tmp_path / "sessions")
    agent, script = gated_agent(work, TURNS, held={1})
    agent.session = session = store.new(work, "script")
    agent.sessions = store
    app = make_app(agent)
    async with app.run_test(size=(140, 40)) as pilot:
        assert _shown(app) is None  # no plan yet: no panel
        await submit(pilot, "refactor the parser")
        await wait_for(pilot, lambda: _shown(app) == _steps(FIRST), "the first plan", WAIT)
        assert app.main.plan.border_title == "plan 0/3"
        assert not app.main.plan.compact
        assert 1 in script.waiting  # the model has not answered yet: the panel is live
        script.release(1)
        await wait_for(pilot, lambda: _shown(app) == _steps(SECOND), "the second plan", WAIT)
        await _idle(pilot)
        assert app.main.plan.border_title == "plan 2/3"
        # the call's card in the lane shows the plan it set, typed, not its prose
        card = app.main.lane.cards["p2"]
        body = str(body_content(card.call))
        assert "✓ Read the parser" in body
        assert "▶ Run the tests" in body
        assert card.call.outcome == "2/3 done · Run the tests"
        live = (_shown(app), app.main.plan.border_title, app.main.plan.compact)

    resumed = make_app(_agent(work, TURNS, store, SessionLog.load(session.path)))
    async with resumed.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: _shown(resumed) is not None, "the resumed plan", WAIT)
        await resumed.main.lane.settle()
        await pilot.pause()
        assert (_shown(resumed), resumed.main.plan.border_title, resumed.main.plan.compact) == live
        assert resumed.agent.plan is not None
        assert [(s.content, s.status) for s in resumed.agent.plan.steps] == live[0]


async def test_a_long_plan_and_a_small_terminal_show_one_line(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [{"id": "l1", "name": "update_plan", "arguments": LONG}]},
        {"text": "ok"},
    ]
    app = make_app(_agent(tmp_path, turns))
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, "go")
        await wait_for(pilot, lambda: _shown(app) is not None, "the plan", WAIT)
        await _idle(pilot)
        panel = app.main.plan
        assert panel.compact
        assert panel.border_title == "plan 3/9"
        assert panel.outer_size.height <= 3
        await pilot.click("#plan")
        await wait_for(pilot, lambda: not panel.compact, "the full list", WAIT)
        await pilot.click("#plan")
        await wait_for(pilot, lambda: panel.compact, "one line again", WAIT)

    app = make_app(_agent(tmp_path, TURNS))
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "go")
        await wait_for(pilot, lambda: _shown(app) == _steps(SECOND), "the plan", WAIT)
        await _idle(pilot)
        panel = app.main.plan
        assert panel.compact  # 80x24: one line
        assert panel.outer_size.height <= 2
        assert app.main.lane.outer_size.height >= 5  # the lane keeps its room


def _frozen() -> float:
    return 1000.0


async def _events(cwd: Path) -> list[Event]:
    """The events of a real run of ``TURNS`` (the scripted model, the real tool), with the
    durations fixed: what a snapshot is fed."""
    agent = _agent(cwd, TURNS)
    events = [event async for event in agent.run("refactor the parser")]
    await agent.close()
    return [
        e.model_copy(update={"elapsed": 0.004}) if isinstance(e, ToolResult) else e for e in events
    ]


def _snapshot_app(cwd: Path) -> tuple[AgentApp, list[Event]]:
    events = asyncio.run(_events(cwd))
    app = QuietApp(agent=_agent(cwd, TURNS), cwd_label="~/project", clock=_frozen)
    return app, events


def _feeding(events: list[Event]) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, AgentApp)
        await pilot.pause()
        await feed(app, events)
        # the chat grows and follows its end a layout or two later: on a loaded machine the
        # picture could be taken before (the scrollbar short of the end); and the chat's
        # freezer (a 0.25 s timer) could fold the first items into a gap at any moment, which
        # moves the scrollbar's thumb by a row: the snapshot tests hold it off
        chat = app.main.chat
        seen: list[object] = []

        def settled() -> bool:
            bar = chat.vertical_scrollbar
            seen.append(
                (
                    chat.scroll_y,
                    chat.max_scroll_y,
                    chat.virtual_size,
                    chat.size,
                    (bar.position, bar.window_virtual_size, bar.window_size),
                )
            )
            return len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]

        await wait_for(pilot, settled, "the chat's layout to settle")
        # the scrollbar's values are final now, but under load its last paint could still be
        # one made mid-layout (a thumb drawn half from before): paint it from them once more
        chat.vertical_scrollbar.refresh()
        await pilot.pause()

    return run_before


def test_snapshot_of_the_plan_panel(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Freezer, "run", lambda self: None)  # see _feeding
    app, events = _snapshot_app(tmp_path)
    assert snap_compare(app, terminal_size=(120, 32), run_before=_feeding(events))


def test_snapshot_of_the_plan_panel_at_80x24(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Freezer, "run", lambda self: None)  # see _feeding
    app, events = _snapshot_app(tmp_path)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_feeding(events))
