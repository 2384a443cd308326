"""The last lines a stdio server wrote to stderr, in a scrollable box kept at its end."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static


class StderrTail(VerticalScroll):
    DEFAULT_CSS = """
    StderrTail {
        height: auto;
        max-height: 9;
        border: round $panel-lighten-2;
        border-title-color: $foreground-muted;
        background: $background;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        &:focus { border: round $primary; background-tint: transparent; }
        & > Static { color: $foreground-muted; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static()

    def show(self, lines: Sequence[str]) -> None:
        lines = tuple(lines)
        self.display = bool(lines)
        if lines == self.lines:
            return
        self.lines = lines
        self.border_title = f"stderr · last {len(lines)} line{'s' if len(lines) != 1 else ''}"
        self.query_one(Static).update(Content("\n".join(lines)))
        self.call_after_refresh(self.scroll_end, animate=False)
