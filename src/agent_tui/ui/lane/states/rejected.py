"""*rejected*: who denied the call (you, a rule, plan mode) and the feedback the model got."""

from __future__ import annotations

from textual.content import Content

from agent_tui.ui.calls.state import CallState
from agent_tui.ui.lane.states.base import StateView


class RejectedView(StateView):
    DEFAULT_CSS = """
    RejectedView { color: $warning; }
    """

    def build(self, call: CallState, now: float) -> Content:
        by = Content.styled(f"rejected by {call.rejected_by or 'policy'}", "bold")
        return Content.assemble(by, " · ", call.outcome) if call.outcome else by
