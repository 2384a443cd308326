"""*error*: the structured error — its code highlighted, the message; Enter shows the rest."""

from __future__ import annotations

from textual.content import Content

from agent_tui.ui.calls.state import CallState
from agent_tui.ui.lane.states.base import StateView


class ErrorView(StateView):
    DEFAULT_CSS = """
    ErrorView { color: $text-error; }
    """

    def build(self, call: CallState, now: float) -> Content:
        message = (call.content or "").split("\n", 1)[0] or call.outcome
        code = Content.styled(f" {call.code or 'error'} ", "bold $text-error on $error-muted")
        return Content.assemble(code, " ", message)
