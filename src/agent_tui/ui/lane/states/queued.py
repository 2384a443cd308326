"""*use*: the model asked for the call; it waits its turn, or waits for the user's approval."""

from __future__ import annotations

from textual.content import Content

from agent_tui.ui.calls.state import CallState, CallStatus
from agent_tui.ui.lane.states.base import StateView


class QueuedView(StateView):
    DEFAULT_CSS = """
    QueuedView.-approval { color: $warning; text-style: bold; }
    """

    def build(self, call: CallState, now: float) -> Content:
        approval = call.status is CallStatus.APPROVAL
        self.set_class(approval, "-approval")
        if approval:
            return Content("waiting for approval")
        return Content("queued")
