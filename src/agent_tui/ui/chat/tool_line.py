"""Compact references to tool calls in the chat: one row per call or per parallel batch.

``● read_file README.md — ok · lines 1–42 of 42``; the full card lives in the lane, and a
click on a row shows it there (``Selected``). Consecutive calls share one widget (up to
``MAX_ROWS`` rows), so a long run of calls adds rows, not widgets, to the transcript.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from agent_tui.ui.calls.state import STATUS_STYLE, CallState, batch_status
from agent_tui.ui.common.format import group_title

MAX_ROWS = 50


def row_content(calls: list[CallState]) -> Content:
    """One row: a call, or a batch titled like its group card with its members' inputs."""
    if len(calls) == 1:
        call = calls[0]
        status = call.status
        outcome = call.status_line()
        if call.facts.blocked:
            outcome += " · blocked by the sandbox"
        head = Content.assemble((call.name, "bold $foreground"))
        if call.summary:
            head = Content.assemble(head, " ", call.summary)
    else:
        status = batch_status(calls)
        counts = Counter(c.status.label for c in calls)
        outcome = ", ".join(f"{n} {label}" for label, n in counts.items())
        names = ", ".join(c.summary or c.name for c in calls)
        title = group_title([c.name for c in calls])
        head = Content.assemble((title, "bold $foreground"), " ", names)
    return Content.assemble(
        ("● ", STATUS_STYLE[status]), head, " — ", (outcome, STATUS_STYLE[status])
    )


class ToolLine(Static):
    """Renders its rows from the shared ``CallState``s."""

    DEFAULT_CSS = """
    ToolLine {
        padding: 0 1 0 2;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-first { margin-top: 1; }
        &:hover { background: $foreground 5%; }
    }
    """

    class Selected(Message):
        """A row was clicked: show the call's card in the lane."""

        def __init__(self, line: ToolLine, call_id: str) -> None:
            super().__init__()
            self.line = line
            self.call_id = call_id

        @property
        def control(self) -> ToolLine:
            return self.line

    def __init__(self, calls: list[CallState]) -> None:
        super().__init__()
        self.rows: list[list[CallState]] = [calls]
        self._shown: list[Content] = [row_content(calls)]

    @property
    def full(self) -> bool:
        return len(self.rows) >= MAX_ROWS

    @property
    def finished(self) -> bool:
        """Every call of its rows has ended (nothing of it changes any more)."""
        return all(call.status.finished for row in self.rows for call in row)

    @classmethod
    def of(cls, rows: list[list[CallState]], classes: Iterable[str] = ()) -> ToolLine:
        """A line of these rows (a frozen one mounted again, ``freezer``)."""
        line = cls(rows[0])
        for row in rows[1:]:
            line.rows.append(row)
            line._shown.append(row_content(row))
        line.set_classes(classes)
        return line

    def on_mount(self) -> None:
        self.update(self.build_content())
        self.tooltip = "click: show the card in the lane"

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if 0 <= event.y < len(self.rows):
            self.post_message(self.Selected(self, self.rows[event.y][0].id))

    def add_row(self, calls: list[CallState]) -> None:
        self.rows.append(calls)
        self._shown.append(row_content(calls))
        self.update(self.build_content())

    def group(self, calls: list[CallState]) -> None:
        """Fold the rows of ``calls`` into one row for their batch, where the first was."""
        ids = {c.id for c in calls}
        positions = [i for i, row in enumerate(self.rows) if any(c.id in ids for c in row)]
        if not positions:
            return
        first = positions[0]
        for position in reversed(positions):
            del self.rows[position]
            del self._shown[position]
        self.rows.insert(first, calls)
        self._shown.insert(first, row_content(calls))
        self.update(self.build_content())

    def update_view(self, call_id: str | None = None) -> None:
        """Re-render the row of ``call_id`` (every row when None)."""
        for index, row in enumerate(self.rows):
            if call_id is None or any(c.id == call_id for c in row):
                self._shown[index] = row_content(row)
        self.update(self.build_content())

    def build_content(self) -> Content:
        return Content("\n").join(self._shown)
