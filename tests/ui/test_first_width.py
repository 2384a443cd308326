"""The width a widget's content gets at its first layout, worked out before it (the MCP panel's
tables are drawn at it, so their first frame has the real columns)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import OptionList, Static

from agent_tui.ui.mcp.first_width import content_width


class Nested(App[None]):
    CSS = """
    #outer { padding: 0 2; border: round red; }
    #side { width: 34; max-width: 40%; border: round blue; padding: 0 1; }
    #main { margin: 0 1; padding: 0 3; }
    #rows { border: none; padding: 0; }
    #short { width: 50%; border: tall green; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.before: dict[str, int] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="outer"):
            with Horizontal():
                yield OptionList(*[f"row {n}" for n in range(3)], id="side")
                yield Static("beside", id="beside")
            with Vertical(id="main"):
                yield OptionList(*[f"tool {n}" for n in range(40)], id="rows")
                yield Static("short", id="short")

    def on_mount(self) -> None:  # before the first layout: every width still 0
        for name in ("side", "rows", "short"):
            widget = self.query_one(f"#{name}")
            assert widget.scrollable_content_region.width == 0
            self.before[name] = content_width(widget, scrollbar=name == "rows")


async def test_the_width_before_the_first_layout_is_the_width_after_it() -> None:
    for size in ((120, 40), (100, 40), (95, 50)):  # wide: #side is its 34 cells
        app = Nested()
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            after = {
                name: app.query_one(f"#{name}").scrollable_content_region.width
                for name in ("side", "rows", "short")
            }
            assert app.before == after, size


async def test_once_laid_out_it_is_the_widgets_own() -> None:
    app = Nested()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        rows = app.query_one("#rows")
        rows.styles.width = 30  # no longer what the styles said at first: it reads the layout
        await pilot.pause()
        assert content_width(rows) == rows.scrollable_content_region.width > 0
