"""A one-key question (the start-up trust prompt, the bypass confirmation) takes one key; what
follows goes to the prompt, in order, nothing lost, never a crash (issue 38, item 11).

Keys are posted to the app in one burst, as a terminal delivers fast typing or a paste of
keystrokes: every key is in the app's queue before the first is handled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.ui.shell.bypass_confirm import BypassConfirm
from agent_tui.ui.shell.trust_dialog import TrustDialog

from .helpers import SIZE, make_agent, make_app, wait_armed, wait_for
from .test_trust_dialog import _agent as trusting_agent

pytestmark = pytest.mark.real_trust


def burst(pilot: Pilot[Any], keys: str) -> None:
    """Every key of ``keys`` into the app's queue at once (no wait between them)."""
    for char in keys:
        key = "space" if char == " " else char
        pilot.app.post_message(events.Key(key, char))


def prompt_text(app: Any) -> str:
    return str(app.main.prompt.text)


async def test_a_burst_at_the_trust_prompt_answers_once_and_types_the_rest(
    tmp_path: Path,
) -> None:
    canary = tmp_path / "SERVER_RAN"
    agent = trusting_agent(tmp_path / "repo", canary)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await wait_armed(pilot, TrustDialog, "the trust prompt")
        burst(pilot, "nhello")
        await wait_for(pilot, lambda: prompt_text(app) == "hello", "the rest in the prompt")
        assert not isinstance(app.screen, TrustDialog)
        assert agent.policy.mode is not None
        assert agent.policy.mode.value == "default"  # n answered: started without them
    assert not canary.exists()
    await agent.close()


async def test_a_burst_that_starts_with_t_trusts_once(tmp_path: Path) -> None:
    canary = tmp_path / "SERVER_RAN"
    agent = trusting_agent(tmp_path / "repo", canary)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await wait_armed(pilot, TrustDialog, "the trust prompt")
        burst(pilot, "ttt")
        await wait_for(pilot, lambda: prompt_text(app) == "tt", "the two other t's typed")
        await wait_for(pilot, canary.exists, "the trusted server to start", timeout=30)
    await agent.close()


async def test_keys_typed_before_the_question_is_armed_go_to_the_prompt(tmp_path: Path) -> None:
    """Typing when the question opens: the keys reach the prompt and the question stays open
    until a key comes after a pause; nothing is answered by a keystroke meant for the prompt."""
    canary = tmp_path / "SERVER_RAN"
    agent = trusting_agent(tmp_path / "repo", canary)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustDialog), "the trust prompt")
        dialog = app.screen
        assert isinstance(dialog, TrustDialog)
        just_opened(dialog)
        burst(pilot, "typing t")
        await wait_for(pilot, lambda: app.main.prompt.text == "typing t", "the keys typed")
        assert app.screen is dialog  # still asking
        await wait_armed(pilot, TrustDialog, "the question armed after the pause")
        burst(pilot, "x")
        await wait_for(pilot, lambda: app.screen is not dialog, "answered")
        assert app.main.prompt.text == "typing t"
    assert not canary.exists()
    await agent.close()


async def test_a_paste_at_the_trust_prompt_goes_to_the_prompt(tmp_path: Path) -> None:
    agent = trusting_agent(tmp_path / "repo", tmp_path / "SERVER_RAN")
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_armed(pilot, TrustDialog, "the trust prompt")
        pilot.app.post_message(events.Paste("pasted text"))
        await wait_for(pilot, lambda: app.main.prompt.text == "pasted text", "the paste")
        assert app.screen is dialog  # a paste answers nothing
    await agent.close()


async def test_enter_typed_at_the_trust_prompt_sends_only_after_the_answer(
    tmp_path: Path,
) -> None:
    agent = trusting_agent(tmp_path / "repo", tmp_path / "SERVER_RAN")
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_for_dialog_unarmed(pilot)
        burst(pilot, "hi")
        pilot.app.post_message(events.Key("enter", "\r"))
        await wait_for(pilot, lambda: app.main.prompt.text == "", "sent from the prompt")
        assert app.screen is dialog
        assert not agent.messages  # not sent while the question is open
        await wait_armed(pilot, TrustDialog, "armed")
        burst(pilot, "n")
        await wait_for(pilot, lambda: len(agent.messages) >= 1, "sent after the answer")
        assert agent.messages[0].content == "hi"
    await agent.close()


async def wait_for_dialog_unarmed(pilot: Pilot[Any]) -> TrustDialog:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, TrustDialog), "the trust prompt")
    dialog = app.screen
    assert isinstance(dialog, TrustDialog)
    just_opened(dialog)
    return dialog


def just_opened(dialog: TrustDialog) -> None:
    """The question as when it has just opened: not armed, its quiet timer started again (on
    a loaded machine the first timer may already have armed it before the test looks)."""
    if dialog._arm_timer is not None:
        dialog._arm_timer.stop()
    dialog.armed = False
    dialog._arm_timer = dialog.set_timer(dialog.ARM_SECONDS, dialog._arm)


def _moded_agent(tmp_path: Path) -> Agent:
    agent = make_agent(tmp_path, [{"text": "ok"}])
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    return agent


async def test_a_burst_at_the_bypass_confirmation_answers_once(tmp_path: Path) -> None:
    app = make_app(_moded_agent(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("shift+tab", "shift+tab", "shift+tab")  # → plan → bypass asks
        await wait_armed(pilot, BypassConfirm, "the bypass confirmation")
        burst(pilot, "yes")
        await wait_for(pilot, lambda: app.main.prompt.text == "es", "the rest typed")
        await wait_for(pilot, lambda: app.main.status.mode == "bypass", "bypass")


async def test_a_refusal_at_the_bypass_confirmation_says_so(tmp_path: Path) -> None:
    app = make_app(_moded_agent(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("shift+tab", "shift+tab", "shift+tab")
        await wait_armed(pilot, BypassConfirm, "the bypass confirmation")
        burst(pilot, "no")
        await wait_for(pilot, lambda: app.main.prompt.text == "o", "the rest typed")
        assert app.main.status.mode != "bypass"
        await wait_for(
            pilot,
            lambda: any("not entered" in str(n.message) for n in app._notifications),
            "a notice saying bypass was not entered",
        )


async def test_a_slash_command_finished_in_a_burst_runs_as_typed(tmp_path: Path) -> None:
    """The completion menu opened on ``/t``; the rest of ``/theme`` and Enter arrive in one
    burst: Enter must see the menu of the text as it is now (``/theme``), not of ``/t`` (it
    replaced ``/t`` with ``/theme `` and left ``/theme heme`` unsent)."""
    app = make_app(make_agent(tmp_path, [{"text": "ok"}]))
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main.prompt
        burst(pilot, "/t")
        await wait_for(pilot, lambda: prompt.menu.is_open, "the completion menu for /t")
        burst(pilot, "heme")
        pilot.app.post_message(events.Key("enter", "\r"))
        await wait_for(pilot, lambda: prompt.text == "", "the command sent")
        await wait_for(pilot, lambda: app.screen is not app.main, "the theme picker")


async def test_keys_after_an_enter_in_one_burst_stay_in_the_prompt(tmp_path: Path) -> None:
    """``hi⏎next one`` in one burst: ``hi`` is sent; ``next one``, typed before the app took
    the message, stays in the box (the box used to be cleared when the message was taken,
    wiping it)."""
    app = make_app(make_agent(tmp_path, [{"text": "ok"}]))
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main.prompt
        await wait_for(pilot, lambda: prompt.has_focus, "the prompt focused")
        burst(pilot, "hi")
        pilot.app.post_message(events.Key("enter", "\r"))
        burst(pilot, "next one")
        await wait_for(pilot, lambda: prompt.prompt_history[-1:] == ["hi"], "hi sent")
        await wait_for(pilot, lambda: not app.busy, "the turn over")
        assert prompt_text(app) == "next one"
        assert prompt.prompt_history == ["hi"]
        # it can be sent in turn, and the box is empty after
        await pilot.press("enter")
        await wait_for(pilot, lambda: prompt.prompt_history[-1:] == ["next one"], "sent")
        assert prompt_text(app) == ""
