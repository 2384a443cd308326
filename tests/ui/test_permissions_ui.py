"""The permission pipeline through the TUI: the mode key, and "always" saving a narrow rule."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.ui.approval.choices import ApprovalChoices
from agent_tui.ui.approval.screen import ApprovalScreen
from agent_tui.ui.shell.bypass_confirm import BypassConfirm

from .helpers import (
    SIZE,
    make_agent,
    make_app,
    submit,
    wait_approval,
    wait_armed,
    wait_for,
    wait_idle,
)


def _shell_turns(*commands: str) -> list[dict]:  # type: ignore[type-arg]
    turns: list[dict] = [  # type: ignore[type-arg]
        {"tool_calls": [{"id": f"c{i}", "name": "run_shell", "arguments": {"command": c}}]}
        for i, c in enumerate(commands)
    ]
    return [*turns, {"text": "done"}]


async def test_always_saves_the_command_prefix_rule_and_skips_the_next_prompt(
    tmp_path: Path,
) -> None:
    agent = make_agent(tmp_path, _shell_turns("echo one", "echo two"))
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        screen = await wait_approval(pilot)
        assert screen.always == "run_shell(echo:*)"
        await pilot.press("a")
        await wait_idle(pilot)  # the second echo ran without a second prompt
        assert [c.status.value for c in app.calls.calls.values()] == ["ok", "ok"]
    saved = json.loads((tmp_path / ".agent-tui" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["run_shell(echo:*)"]


async def test_mode_key_cycles_and_accept_edits_lets_writes_through(tmp_path: Path) -> None:
    turns = [
        {
            "tool_calls": [
                {"id": "w", "name": "write_file", "arguments": {"path": "a.txt", "content": "x\n"}}
            ]
        },
        {"text": "ok"},
    ]
    agent = make_agent(tmp_path, turns)
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        assert app.main.status.mode == "default"
        await pilot.press("shift+tab")
        assert app.main.status.mode == "accept-edits"
        await submit(pilot, "write")
        await wait_idle(pilot)
        assert not isinstance(app.screen, ApprovalScreen)
        assert (tmp_path / "a.txt").read_text() == "x\n"
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: app.main.status.mode == "plan", "plan")
        await pilot.press("shift+tab")  # bypass asks for confirmation first
        await wait_armed(pilot, BypassConfirm, "the bypass confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.main.status.mode == "bypass", "bypass")
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: app.main.status.mode == "default", "default")


async def test_interrupt_while_the_prompt_is_open_closes_it(tmp_path: Path) -> None:
    turns = [
        {
            "tool_calls": [
                {"id": "w", "name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}
            ]
        },
        {"text": "never"},
    ]
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write")
        await wait_approval(pilot)
        app.action_interrupt()
        await wait_idle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalScreen), "prompt closed")
        call = app.main.lane.cards["w"].call
        assert (call.status.value, call.code) == ("interrupted", "interrupted")
    assert not (tmp_path / "a.txt").exists()


async def test_an_opaque_command_offers_no_always_and_a_does_nothing(tmp_path: Path) -> None:
    """The prompt reads the typed decision: no rule to save, the reason shown, 'a' refused."""
    agent = make_agent(tmp_path, _shell_turns("x=$(printf touch); $x made-it"))
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        screen = await wait_approval(pilot)
        assert screen.ask.no_always is not None
        assert "not fully understood" in screen.ask.no_always
        assert "always" not in screen.query_one(ApprovalChoices).choices
        assert "session" not in screen.query_one(ApprovalChoices).choices
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is screen  # still asking: "always" is not an answer here
        hint = str(screen.query_one("#hint").render())
        assert "always allow is not offered for this call" in hint  # said in the dialog
        await pilot.press("y")
        await wait_idle(pilot)
    assert (tmp_path / "made-it").exists()  # allowed once, it ran
    assert not (tmp_path / ".agent-tui" / "settings.local.json").exists()  # nothing saved
