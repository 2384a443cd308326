"""*interrupted*: the call was stopped before it finished (Esc, or a failing sibling)."""

from __future__ import annotations

from textual.content import Content

from agent_tui.ui.calls.state import CallState
from agent_tui.ui.lane.states.base import StateView


class InterruptedView(StateView):
    DEFAULT_CSS = """
    InterruptedView { color: $text-accent; }
    """

    def build(self, call: CallState, now: float) -> Content:
        label = Content.styled("interrupted", "bold")
        return Content.assemble(label, " · ", call.outcome) if call.outcome else label
