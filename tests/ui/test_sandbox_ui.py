"""Where a command ran, on screen: the approval prompt and the card say ``⛉ sandboxed · no
network``, a refusal of the sandbox is explained on the card and in the chat, an auto-allowed
command says what let it run, and the status bar shows the sandbox (a machine without one
gets a notice, once)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Static

from agent_tui.core.permissions import PermissionPipeline
from agent_tui.core.sandbox import SandboxSettings
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.settings import Settings
from agent_tui.ui.approval.screen import ApprovalScreen
from agent_tui.ui.chat.tool_line import row_content
from agent_tui.ui.lane.states.result import ResultView

from .helpers import (
    SIZE,
    QuietApp,
    make_agent,
    make_app,
    submit,
    wait_approval,
    wait_for,
    wait_idle,
)

PROBLEM = Bubblewrap().problem()
needs_sandbox = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")


def _agent(tmp_path: Path, command: str, **sandbox: object):  # type: ignore[no-untyped-def]
    turns = [
        {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": command}}]},
        {"text": "done"},
    ]
    agent = make_agent(tmp_path, turns)
    agent.settings = Settings(sandbox=SandboxSettings(**sandbox))  # type: ignore[arg-type]
    agent.executor.sandbox.settings = agent.settings.sandbox
    pipeline = PermissionPipeline(tmp_path)
    pipeline.use_sandbox(agent.executor.sandbox)
    agent.policy = agent.executor.policy = pipeline
    return agent


@needs_sandbox
async def test_the_prompt_and_the_card_say_the_command_ran_sandboxed(tmp_path: Path) -> None:
    canary = Path("/var/tmp") / f"agent-tui-ui-canary-{os.getpid()}"
    app = make_app(_agent(tmp_path, f"echo hi; touch {canary}"))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        screen = await wait_approval(pilot)
        shelter = screen.query_one("#shelter", Static)
        assert str(shelter.render()) == "⛉ runs sandboxed · no network"
        await pilot.press("y")
        await wait_idle(pilot)
        call = next(iter(app.calls.calls.values()))
        assert call.facts.sandboxed is True
        view = app.main.lane.query_one(ResultView)
        shown = view.build(call, 0.0).plain
        assert "⛉ sandboxed · no network" in shown
        assert f"⚠ blocked by the sandbox: {canary} is outside what commands may write" in shown
        assert "blocked by the sandbox" in row_content([call]).plain  # the chat's line too
    assert not canary.exists()


@needs_sandbox
async def test_an_auto_allowed_command_runs_without_a_prompt_and_says_why(tmp_path: Path) -> None:
    app = make_app(_agent(tmp_path, "echo made > made.txt", auto_allow=True))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_idle(pilot)
        assert not isinstance(app.screen, ApprovalScreen)
        call = next(iter(app.calls.calls.values()))
        assert call.status_line() == "ok · exit 0 · allowed by the sandbox"
    assert (tmp_path / "made.txt").read_text() == "made\n"


class _Probing(QuietApp):
    SHOW_SANDBOX = True


async def test_the_status_bar_shows_the_sandbox_and_a_missing_one_is_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs"))  # a machine without bubblewrap
    for launch in (1, 2):
        app = _Probing(agent=_agent(tmp_path, "true"), cwd_label="~/p")
        async with app.run_test(size=SIZE) as pilot:
            status = app.main.status
            await wait_for(pilot, lambda: status.sandbox != "", "the sandbox probe")  # noqa: B023
            assert app.main.status.sandbox == "⚠ no sandbox"
            assert app.main.status.sandbox_warn
            await pilot.pause()
            notices = [
                str(n.render()) for n in app.main.chat.query(".notice, Notice").results(Static)
            ]
            said = [n for n in notices if "No sandbox: bubblewrap (bwrap) is not installed" in n]
            assert len(said) == (1 if launch == 1 else 0), notices


@needs_sandbox
async def test_the_status_bar_shows_a_working_sandbox(tmp_path: Path) -> None:
    app = _Probing(agent=_agent(tmp_path, "true", network="on"), cwd_label="~/p")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.status.sandbox != "", "the sandbox probe")
        assert app.main.status.sandbox == "⛉ sandbox · network"
        assert not app.main.status.sandbox_warn
        assert "sandboxed (bubblewrap) · network on" in app.main.status.sandbox_tooltip
