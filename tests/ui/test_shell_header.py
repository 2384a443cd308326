"""The shell's header is one widget drawing what Textual's ``Header`` draws as three (the icon,
the centred title, the clock's space): the same cells, at any width (an ellipsis when narrow)."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.ui.shell.shell_header import ShellHeader


class ThreePartHeader(Widget):
    """The header as it was: ``Header``'s layout, three ``Static`` children."""

    DEFAULT_CSS = """
    ThreePartHeader {
        dock: top; width: 100%; background: $panel; color: $foreground; height: 1;
        & > .icon { dock: left; padding: 0 1; width: 8; content-align: left middle; }
        & > .clock { dock: right; width: 10; padding: 0 1; }
        & > .title {
            text-wrap: nowrap; text-overflow: ellipsis; content-align: center middle; width: 100%;
        }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("◆", classes="icon", markup=False)
        yield Static(self.app.format_title(self.app.title, self.app.sub_title), classes="title")
        yield Static("", classes="clock")


class HeaderApp(App[None]):
    TITLE = "agent-tui"
    SUB_TITLE = "demo · offline demo"

    def __init__(self, header: Widget) -> None:
        super().__init__()
        self.header = header

    def compose(self) -> ComposeResult:
        yield self.header


async def _first_row(header: Widget, width: int) -> list[tuple[str, str, str]]:
    """The top row's cells: (character, background, foreground of a visible character)."""
    app = HeaderApp(header)
    async with app.run_test(size=(width, 3)) as pilot:
        await pilot.pause()
        # the frame as export_screenshot takes it, cell by cell (its SVG groups them otherwise)
        update = app.screen._compositor.render_update(full=True)
        console = Console(width=width, color_system="truecolor", force_terminal=True)
        row = next(iter(Segment.split_lines(console.render(update, console.options))))
    return [
        (char, str(seg.style and seg.style.bgcolor), str(seg.style and seg.style.color))
        if char != " "
        else (char, str(seg.style and seg.style.bgcolor), "")
        for seg in row
        if not seg.control  # the cursor's move to the row
        for char in seg.text
    ]


@pytest.mark.parametrize("width", [140, 80, 50, 31, 20, 12])
async def test_the_shell_header_draws_headers_cells(width: int) -> None:
    assert await _first_row(ShellHeader("◆"), width) == await _first_row(ThreePartHeader(), width)
