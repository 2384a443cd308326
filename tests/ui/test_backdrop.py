"""The permission prompt's backdrop: the shell under it, dimmed as Textual dims it, drawn line by
line from the shell's own frame and kept current while the prompt is up."""

from __future__ import annotations

import re
from pathlib import Path

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen

from agent_tui.ui.approval.screen import ApprovalScreen
from agent_tui.ui.common.backdrop import _tinted_style

from .helpers import make_agent, make_app, submit, wait_approval, wait_for


def test_the_tint_is_textuals() -> None:
    """Each style seen through the modal's background comes out as Textual's own tint makes it
    (colours blended, links and meta dropped, no colour left as it was)."""
    styles = [
        None,
        Style(),
        Style(color="#ff8800"),
        Style(bgcolor="#102030", bold=True),
        Style(color=RichColor.from_rgb(10, 200, 30), bgcolor="#000000", italic=True),
        Style(color="#ffffff", link="https://example.invalid"),
        Style.from_meta({"@click": "app.bell()"}) + Style(color="#abcdef"),
    ]
    for color in (Color(18, 18, 18, 0.6), Color(255, 255, 255, 0.3), Color(0, 0, 0, 0)):
        for style in styles:
            (theirs,) = BackgroundScreen.process_segments([Segment("x", style)], color)
            assert _tinted_style(style, color) == theirs.style, (style, color)


def _shows(app: App[object], text: str) -> bool:
    """Whether the terminal, as the app draws it now, shows ``text`` (one word) in a cell
    (the screenshot's window title aside)."""
    return re.search(rf'line-\d+\)">{text}</text>', app.export_screenshot()) is not None


async def test_the_shell_shows_through_the_prompt_and_changes_under_it(tmp_path: Path) -> None:
    call = {"id": "c", "name": "run_shell", "arguments": {"command": "echo hi"}}
    app = make_app(make_agent(tmp_path, [{"tool_calls": [call]}, {"text": "done"}]))
    async with app.run_test(size=(100, 30)) as pilot:
        app.title = "BACKDROP-BEFORE"
        await submit(pilot, "go")
        prompt = await wait_approval(pilot)
        assert isinstance(prompt, ApprovalScreen)
        await wait_for(pilot, lambda: _shows(app, "BACKDROP-BEFORE"), "the shell behind it")
        app.title = "BACKDROP-AFTER"  # the shell's header changes while the prompt is up
        await wait_for(pilot, lambda: _shows(app, "BACKDROP-AFTER"), "the header redrawn")
        assert not _shows(app, "BACKDROP-BEFORE")
        assert app.screen is prompt
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is app.main, "the prompt closed")
