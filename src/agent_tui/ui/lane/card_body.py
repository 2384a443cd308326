"""The expanded part of a tool card: the full input and output, scrollable (mounted on demand)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent_tui.ui.calls.state import CallState
from agent_tui.ui.lane.card_content import body_content


class CardBody(VerticalScroll, can_focus=False):
    DEFAULT_CSS = """
    CardBody {
        height: auto;
        max-height: 20;
        margin: 1 0 0 2;
        padding: 0 1;
        background: $background;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, call: CallState) -> None:
        super().__init__()
        self.call = call

    def compose(self) -> ComposeResult:
        yield Static(body_content(self.call), classes="output")

    def show(self, call: CallState) -> None:
        self.call = call
        if self.is_mounted:
            self.query_one(".output", Static).update(body_content(call))
