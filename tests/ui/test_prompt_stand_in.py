"""The shell's first frame has a stand-in for the prompt (``PromptStandIn``, a ``Static``) that
looks as the real one does; the real ``PromptInput`` takes its place right after the first frame
(``ShellScreen.swap_prompt``), with the focus and every key typed meanwhile, in order."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.user_prompt import UserPrompt
from agent_tui.ui.shell.boot import FirstLook
from agent_tui.ui.shell.prompt_input import PromptInput
from agent_tui.ui.shell.prompt_stand_in import PromptStandIn
from agent_tui.ui.shell.shell_screen import ShellScreen
from tests.ui.helpers import SIZE, QuietApp, wait_for, wait_idle
from tests.ui.test_boot import GatedBoot, _opened

LOOK = FirstLook(model="demo", demo=True, mode="", cwd="~")


class HeldSwap(QuietApp):
    """The app as shipped, but the shell's real prompt comes only once ``swap_gate`` is set
    (held in a worker of its own: every message pump goes on meanwhile)."""

    def __init__(self, boot: GatedBoot) -> None:
        super().__init__(boot=boot, first=LOOK)
        self.swap_gate = asyncio.Event()

    async def _after_first_frame(self) -> None:
        after = super()._after_first_frame

        async def held() -> None:
            await self.swap_gate.wait()
            await after()

        self.run_worker(held(), group="held-swap")


def _stand_in_up(app: AgentApp) -> bool:
    shell = app.screen
    return isinstance(shell, ShellScreen) and isinstance(app.focused, PromptStandIn)


def _swapped(app: AgentApp) -> bool:
    shell = app.screen
    if not isinstance(shell, ShellScreen) or not shell.query(PromptInput):
        return False
    return app.focused is shell.prompt and shell.prompt.display and not shell.query(PromptStandIn)


async def test_keys_typed_before_the_swap_land_in_the_prompt_in_order(tmp_path: Path) -> None:
    boot = GatedBoot(tmp_path, [{"text": "the answer"}])
    app = HeldSwap(boot)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _stand_in_up(app), "the stand-in to have the focus")
        await pilot.press(*"hellp", "backspace", "o", "space", *"there")
        shell = app.screen
        assert isinstance(shell, ShellScreen)
        assert not shell.query(PromptInput)  # still the stand-in: the keys wait there
        app.swap_gate.set()
        await wait_for(pilot, lambda: _swapped(app), "the real prompt to take the focus")
        await wait_for(pilot, lambda: shell.prompt.text == "hello there", "the keys to land")
        await pilot.press(*" again")  # typed after the swap: after them
        await wait_for(pilot, lambda: shell.prompt.text == "hello there again", "the last keys")
        assert app.focused is shell.prompt
        boot.gate.set()
        await wait_for(pilot, lambda: _opened(app), "the main screen to open")
        await wait_idle(pilot)
        assert app.main.prompt.text == "hello there again"


async def test_enter_typed_before_the_swap_sends_the_message_once(tmp_path: Path) -> None:
    boot = GatedBoot(tmp_path, [{"text": "the answer"}])
    app = HeldSwap(boot)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _stand_in_up(app), "the stand-in to have the focus")
        await pilot.press(*"first", "enter", *"draft")
        app.swap_gate.set()
        await wait_for(pilot, lambda: _swapped(app), "the real prompt to take the focus")
        shell = app.screen
        assert isinstance(shell, ShellScreen)
        await wait_for(pilot, lambda: bool(shell.query(".queued")), "the message to be listed")
        await wait_for(pilot, lambda: shell.prompt.text == "draft", "the draft to land")
        listed = [str(line.render()) for line in shell.query(".queued").results(Static)]
        assert len(listed) == 1, listed
        assert "first" in listed[0], listed
        boot.gate.set()
        await wait_for(
            pilot,
            lambda: _opened(app) and [p.text for p in app.main.chat.query(UserPrompt)] == ["first"],
            "the message to be sent",
        )
        await wait_idle(pilot)
        assert [m.content for m in app.agent.messages] == ["first", "the answer"]
        assert app.main.prompt.text == "draft"
        assert app.focused is app.main.prompt


async def test_the_prompt_has_the_focus_after_the_swap_with_nothing_typed(
    tmp_path: Path,
) -> None:
    boot = GatedBoot(tmp_path, [{"text": "the answer"}])
    app = QuietApp(boot=boot, first=LOOK)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _swapped(app), "the real prompt to take the focus")
        shell = app.screen
        assert isinstance(shell, ShellScreen)
        assert shell.prompt.text == ""
        assert shell.query_one("#prompt") is shell.prompt
        boot.gate.set()
        await wait_for(pilot, lambda: _opened(app), "the main screen to open")
        await wait_idle(pilot)


class _Alone(App[None]):
    """The stand-in, or the prompt, focused, as the shell has them (``#prompt``'s margin)."""

    CSS = "#prompt { margin: 0 1; }"

    def __init__(self, stand_in: bool) -> None:
        super().__init__()
        self.stand_in = stand_in

    def compose(self) -> ComposeResult:
        yield PromptStandIn() if self.stand_in else PromptInput(cursor_blink=False, id="prompt")

    def on_mount(self) -> None:
        self.screen.set_focus(self.query_one(PromptStandIn if self.stand_in else PromptInput))


async def _screenshot(stand_in: bool, size: tuple[int, int]) -> str:
    app = _Alone(stand_in)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await Pilot(app).pause()
        shot = app.export_screenshot()
    return re.sub(r"terminal-\d+", "terminal", shot)  # its id is a hash of the content's


@pytest.mark.parametrize("size", [(140, 40), (80, 24), (50, 10)])
async def test_the_stand_in_looks_as_the_focused_empty_prompt(size: tuple[int, int]) -> None:
    """Cell by cell: border, placeholder (cut to one line where it wraps), cursor."""
    assert await _screenshot(True, size) == await _screenshot(False, size)
