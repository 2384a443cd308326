"""The title line of a group card: "Read 4 files", the members' states counted, the batch's
elapsed time."""

from __future__ import annotations

from collections import Counter

from textual.content import Content
from textual.widget import Widget

from agent_tui.ui.calls.state import STATUS_STYLE, CallState, CallStatus, Clock, batch_status
from agent_tui.ui.common.format import format_elapsed, group_title


def group_line(calls: list[CallState], folded: bool, now: float, width: int) -> Content:
    status = batch_status(calls)
    counts = Counter(c.status for c in calls)
    tally = " · ".join(f"{n} {s.label}" for s, n in counts.items())
    running = any(c.status is CallStatus.RUNNING for c in calls)
    elapsed = max((c.live_elapsed(now) for c in calls), default=0.0)
    right = f"{tally}  {format_elapsed(elapsed, live=running)}" if elapsed else tally
    left = Content.assemble(
        ("▸ " if folded else "▾ ", STATUS_STYLE[status]),
        (group_title([c.name for c in calls]), "bold $secondary"),
    )
    room = max(1, width - len(right) - 1)
    return left.truncate(room, ellipsis=True, pad=True) + Content.styled(
        f" {right}", STATUS_STYLE[status]
    )


class GroupHead(Widget):
    DEFAULT_CSS = """
    GroupHead { height: 1; }
    """

    def __init__(self, calls: list[CallState], clock: Clock) -> None:
        super().__init__()
        self.calls = calls
        self.clock = clock
        self.folded = False

    def render(self) -> Content:
        return group_line(self.calls, self.folded, self.clock(), self.size.width)
