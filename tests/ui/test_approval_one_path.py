"""The TUI never decides a call's permission: Shift+Tab at an open prompt tells the waiting
ask that the mode changed, and the executor judges it again — once per mode change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.ui.app import AgentApp
from tests.core.executor.helpers import EXECUTOR, record_decisions

from .helpers import make_agent, make_app, submit, wait_approval, wait_for, wait_idle


def _app(tmp_path: Path, call: dict[str, Any]) -> tuple[AgentApp, list[tuple[str, str, str]]]:
    agent = make_agent(tmp_path, [{"tool_calls": [call]}, {"text": "done"}])
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    return make_app(agent), record_decisions(agent.policy)


async def test_shift_tab_runs_the_write_on_the_executors_one_new_decision(
    tmp_path: Path,
) -> None:
    write = {"id": "w", "name": "write_file", "arguments": {"path": "a.txt", "content": "x\n"}}
    app, made = _app(tmp_path, write)
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "write")
        await wait_approval(pilot)
        await pilot.press("shift+tab")
        await wait_idle(pilot)
        assert app.calls.calls["w"].allowed_by == "accept-edits mode"
        assert not app.desk.pending
    assert made == [("w", "default", EXECUTOR), ("w", "accept-edits", EXECUTOR)]
    assert (tmp_path / "a.txt").read_text() == "x\n"


async def test_a_still_ask_keeps_its_prompt_and_plan_rejects_it_all_decided_by_the_executor(
    tmp_path: Path,
) -> None:
    shell = {"id": "s", "name": "run_shell", "arguments": {"command": "touch made"}}
    app, made = _app(tmp_path, shell)
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "touch")
        screen = await wait_approval(pilot)
        await pilot.press("shift+tab")
        assert app.screen is screen
        assert str(screen.query_one("#reason", Static).render()).startswith("still asks in")
        await pilot.press("shift+tab")
        await wait_idle(pilot)
        await wait_for(pilot, lambda: app.screen is not screen, "the prompt to close")
        assert app.calls.calls["s"].rejected_by == "plan mode"
    assert made == [
        ("s", "default", EXECUTOR),
        ("s", "accept-edits", EXECUTOR),
        ("s", "plan", EXECUTOR),
    ]
    assert not (tmp_path / "made").exists()
