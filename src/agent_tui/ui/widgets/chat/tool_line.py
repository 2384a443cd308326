"""A compact reference to a tool call (or a parallel batch) in the chat.

``● read_file README.md — ok · lines 1–42 of 42``; the full card lives in the lane.
"""

from __future__ import annotations

from collections import Counter

from textual.content import Content
from textual.widgets import Static

from agent_tui.ui.tool_calls import STATUS_STYLE, CallState, CallStatus

# The status a batch shows: the most pressing one among its calls.
_PRECEDENCE = (
    CallStatus.APPROVAL,
    CallStatus.RUNNING,
    CallStatus.QUEUED,
    CallStatus.ERROR,
    CallStatus.FAILED,
    CallStatus.REJECTED,
    CallStatus.OK,
)


def batch_status(calls: list[CallState]) -> CallStatus:
    present = {c.status for c in calls}
    return next((s for s in _PRECEDENCE if s in present), CallStatus.OK)


class ToolLine(Static):
    """Renders one call, or every call of a group, from the shared ``CallState``s."""

    DEFAULT_CSS = """
    ToolLine {
        padding: 0 1 0 2;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-first { margin-top: 1; }
    }
    """

    def __init__(self, calls: list[CallState]) -> None:
        super().__init__()
        self.calls = calls

    def on_mount(self) -> None:
        self.update_view()

    def set_calls(self, calls: list[CallState]) -> None:
        self.calls = calls
        self.update_view()

    def update_view(self) -> None:
        self.update(self.build_content())

    def build_content(self) -> Content:
        if len(self.calls) == 1:
            call = self.calls[0]
            status = call.status
            outcome = call.status_line()
            head = Content.assemble((call.name, "bold $foreground"))
            if call.summary:
                head = Content.assemble(head, " ", call.summary)
        else:
            status = batch_status(self.calls)
            counts = Counter(c.status.label for c in self.calls)
            outcome = ", ".join(f"{n} {label}" for label, n in counts.items())
            names = ", ".join(f"{c.name} {c.summary}".strip() for c in self.calls)
            head = Content.assemble(
                (f"parallel ×{len(self.calls)}", "bold $foreground"), " ", names
            )
        return Content.assemble(
            ("● ", STATUS_STYLE[status]),
            head,
            " — ",
            (outcome, STATUS_STYLE[status]),
        )
