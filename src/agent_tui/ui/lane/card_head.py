"""The title line of a tool card: state glyph, tool name, a summary of
the input, and the elapsed time on the right (ticking while the call runs)."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from agent_tui.ui.calls.state import STATUS_GLYPH, STATUS_STYLE, CallState, CallStatus, Clock
from agent_tui.ui.common.format import format_elapsed


def elapsed_text(call: CallState, now: float) -> str:
    running = call.status is CallStatus.RUNNING
    if running or (call.status.finished and call.elapsed > 0):
        return format_elapsed(call.live_elapsed(now), live=running)
    return ""


def title_line(call: CallState, now: float, width: int) -> Content:
    """One line of exactly ``width`` cells (the summary is cut with an ellipsis)."""
    glyph = STATUS_GLYPH[call.status]
    right = elapsed_text(call, now)
    left = Content.assemble(
        (f"{glyph} ", STATUS_STYLE[call.status]),
        (call.name, "bold"),
        "  ",
        (call.summary, "$foreground-muted"),
    )
    room = max(1, width - (len(right) + 1 if right else 0))
    left = left.truncate(room, ellipsis=True, pad=True)
    return left + Content.styled(f" {right}", "$foreground-muted") if right else left


class CardHead(Widget):
    DEFAULT_CSS = """
    CardHead { height: 1; }
    """

    def __init__(self, call: CallState, clock: Clock) -> None:
        super().__init__()
        self.call = call
        self.clock = clock

    def render(self) -> Content:
        return title_line(self.call, self.clock(), self.size.width)
