"""The part of a card that shows its state; one widget class per state (see ``__init__``)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from agent_tui.ui.calls.state import CallState


class StateView(Static):
    """Renders one state of a call below the card's title line; ``show`` re-renders it."""

    DEFAULT_CSS = """
    StateView {
        padding-left: 2;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, call: CallState, now: float) -> None:
        super().__init__()
        self.show(call, now)

    def build(self, call: CallState, now: float) -> Content:
        """The content of this state for ``call`` at clock time ``now``."""
        return Content(call.status_line())

    def show(self, call: CallState, now: float) -> None:
        self.update(self.build(call, now))
