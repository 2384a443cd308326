"""Plan mode's hand-off in the TUI: a scripted model in plan mode proposes its plan with
``exit_plan_mode``; the dialog shows it rendered; y approves into default mode (the status bar
follows, the next write asks), a into accept-edits (the write runs, the plan panel holds the
plan's steps), f sends feedback (the mode stays plan, the model reads it, the write is
refused), Esc keeps planning; a burst of keys answers once. Snapshots at 140x40 and 80x24."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Markdown

from agent_tui.core.events import ToolResult
from agent_tui.core.permissions import Mode
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.ui.app import AgentApp
from agent_tui.ui.approval.plan_screen import PlanReviewScreen

from .helpers import make_agent, make_app, submit, wait_approval, wait_armed, wait_for, wait_idle

SnapCompare = Callable[..., bool]
PLAN = """\
## Split the parser

`parse()` is 400 lines; the lexer moves out.

1. Move `tokenize()` to **lexer.py**
2. Import it from `parser.py`, keeping the old name
3. Run the tests
"""
WRITE = {"path": "made.txt", "content": "x\n"}
TURNS: list[dict[str, Any]] = [
    {"text": "I read the parser. Here is my plan.", "tool_calls": [
        {"id": "x", "name": "exit_plan_mode", "arguments": {"plan": PLAN}}]},
    {"tool_calls": [{"id": "w", "name": "write_file", "arguments": WRITE}]},
    {"text": "done"},
]  # fmt: skip


def _app(tmp_path: Path, **kwargs: Any) -> AgentApp:
    agent = make_agent(tmp_path, TURNS)
    agent.policy = agent.executor.policy = build_pipeline(tmp_path, mode="plan").pipeline
    app = make_app(agent, **kwargs)
    app.mode = "plan"  # the app holds the state; the status bar binds it
    return app


async def _dialog(pilot: Pilot[Any]) -> PlanReviewScreen:
    await submit(pilot, "split the parser")
    return await wait_armed(pilot, PlanReviewScreen, "the plan dialog")


def _result(app: AgentApp, call_id: str) -> str:
    """What the model read of the call ``call_id``."""
    for message in app.agent.messages:
        if message.role == "tool" and message.tool_call_id == call_id:
            assert message.record is not None
            assert isinstance(message.record.end, ToolResult)
            return message.content
    raise AssertionError(f"no result for {call_id}")


async def test_y_approves_into_default_mode_and_the_write_then_asks(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await _dialog(pilot)
        shown = dialog.query_one(Markdown).source
        assert "Move `tokenize()` to **lexer.py**" in shown
        assert app.main.status.mode == "plan"
        await pilot.press("y")
        prompt = await wait_approval(pilot)  # default mode: the write asks
        assert prompt.ask.tool == "write_file"
        assert app.agent.policy.mode is Mode.DEFAULT
        assert app.main.status.mode == "default"
        assert "now default" in _result(app, "x")
        await pilot.press("n")
        await wait_idle(pilot)
    assert not (tmp_path / "made.txt").exists()


async def test_a_approves_into_accept_edits_and_seeds_the_plan_panel(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _dialog(pilot)
        await pilot.press("a")
        await wait_idle(pilot)
        assert app.agent.policy.mode is Mode.ACCEPT_EDITS
        assert app.main.status.mode == "accept-edits"
        plan = app.main.plan.plan
        assert plan is not None
        assert [(s.content, s.status) for s in plan.steps] == [
            ("Move `tokenize()` to **lexer.py**", "pending"),
            ("Import it from `parser.py`, keeping the old name", "pending"),
            ("Run the tests", "pending"),
        ]
        assert "accept-edits" in _result(app, "x")
    assert (tmp_path / "made.txt").read_text() == "x\n"


async def test_f_sends_feedback_and_the_mode_stays_plan(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _dialog(pilot)
        await pilot.press("f", *"keep tokenize", "enter")
        await wait_idle(pilot)
        assert app.agent.policy.mode is Mode.PLAN
        assert app.main.status.mode == "plan"
        content = _result(app, "x")
        assert "Their feedback:\nkeep tokenize" in content
        assert app.calls.calls["w"].rejected_by == "plan mode"
        assert app.main.plan.plan is None
    assert not (tmp_path / "made.txt").exists()


async def test_escape_keeps_planning_without_feedback(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _dialog(pilot)
        await pilot.press("f", "escape")  # out of the field first, then keep planning
        assert isinstance(app.screen, PlanReviewScreen)
        await pilot.press("escape")
        await wait_idle(pilot)
        assert app.agent.policy.mode is Mode.PLAN
        assert "no feedback given" in _result(app, "x")
    assert not (tmp_path / "made.txt").exists()


async def test_a_burst_of_keys_answers_once_and_crashes_nothing(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _dialog(pilot)
        await pilot.press("a", "y", "n", "escape", "a")
        await wait_idle(pilot)
        assert app.agent.policy.mode is Mode.ACCEPT_EDITS
        assert app.main.status.mode == "accept-edits"
        assert not isinstance(app.screen, PlanReviewScreen)
    assert (tmp_path / "made.txt").exists()


async def test_keys_before_the_dialog_is_armed_answer_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # armed only when the test says so: a loaded machine cannot make the key arrive late
    monkeypatch.setattr(PlanReviewScreen, "ARM_SECONDS", 3600.0)
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the dialog")
        screen = app.screen
        assert isinstance(screen, PlanReviewScreen)
        await pilot.press("y", "a")
        await pilot.pause()
        assert app.screen is screen
        assert app.agent.policy.mode is Mode.PLAN
        screen.armed = True
        await pilot.press("n")
        await wait_idle(pilot)
        assert app.agent.policy.mode is Mode.PLAN


def _showing(then: str = "") -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _dialog(pilot)
        if then:
            await pilot.press(*then)
        await pilot.pause()

    return run_before


def _snap_app(tmp_path: Path) -> AgentApp:
    return _app(tmp_path, clock=lambda: 1000.0)


def test_snapshot_plan_dialog_140x40(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(_snap_app(tmp_path), terminal_size=(140, 40), run_before=_showing())


def test_snapshot_plan_dialog_80x24(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(_snap_app(tmp_path), terminal_size=(80, 24), run_before=_showing())


def test_snapshot_plan_dialog_feedback_80x24(snap_compare: SnapCompare, tmp_path: Path) -> None:
    run_before = _showing("f" + "keep tokenize()")
    assert snap_compare(_snap_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


async def test_a_long_plan_scrolls_and_the_choices_stay_on_screen(tmp_path: Path) -> None:
    long_plan = "\n".join(f"{n}. Step number {n} of a long plan" for n in range(1, 61))
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": "x", "name": "exit_plan_mode", "arguments": {"plan": long_plan}}]},
        {"text": "ok"},
    ]
    agent = make_agent(tmp_path, turns)
    agent.policy = agent.executor.policy = build_pipeline(tmp_path, mode="plan").pipeline
    app = make_app(agent)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await _dialog(pilot)
        await wait_for(pilot, lambda: dialog.scrolls, "the plan to scroll")
        choices = dialog.query_one("#choices")
        assert choices.region.bottom <= 24
        assert choices.region.height == 4
        await pilot.press("a")
        await wait_idle(pilot)
        plan = app.main.plan.plan
        assert plan is not None
        assert len(plan.steps) == 50  # at most MAX_STEPS seed the list
