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
from agent_tui.ui.common.format import group_title, member_names

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
        title = group_title([c.name for c in calls])
        head = Content.assemble(
            (title, "bold $foreground"), " ", member_names(c.summary or c.name for c in calls)
        )
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
        self.rows: list[list[CallState]] = []
        self._shown: list[Content | None] = []
        """Each row drawn, None until it is drawn again (at the next paint: the changes of
        many calls between two frames cost one drawing of their rows)."""
        self._row_of: dict[str, int] = {}
        """The row of each call id."""
        self.add_row(calls)

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
            line.add_row(row)
        line.set_classes(classes)
        return line

    def on_mount(self) -> None:
        self.tooltip = "click: show the card in the lane"

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if 0 <= event.y < len(self.rows):
            self.post_message(self.Selected(self, self.rows[event.y][0].id))

    def render(self) -> Content:
        return self.build_content()

    def add_row(self, calls: list[CallState]) -> None:
        for call in calls:
            self._row_of[call.id] = len(self.rows)
        self.rows.append(calls)
        self._shown.append(None)
        self.refresh(layout=True)

    def drop(self, ids: set[str]) -> None:
        """Forget the rows holding any of ``ids`` (their batch is a row of another line)."""
        self.rows = [row for row in self.rows if not any(c.id in ids for c in row)]
        self._reindex()

    def group(self, calls: list[CallState]) -> None:
        """Fold the rows of ``calls`` into one row for their batch, where the first was."""
        ids = {c.id for c in calls}
        positions = sorted({self._row_of[i] for i in ids if i in self._row_of})
        if not positions:
            return
        first = positions[0]
        for position in reversed(positions):
            del self.rows[position]
        self.rows.insert(first, calls)
        self._reindex()

    def _reindex(self) -> None:
        self._shown = [None] * len(self.rows)
        self._row_of = {call.id: index for index, row in enumerate(self.rows) for call in row}
        self.refresh(layout=True)

    def update_view(self, call_id: str | None = None) -> None:
        """Draw the row of ``call_id`` again (every row when None) at the next paint."""
        if call_id is None:
            self._shown = [None] * len(self.rows)
        elif (index := self._row_of.get(call_id)) is not None:
            self._shown[index] = None
        self.refresh()

    def build_content(self) -> Content:
        shown = self._shown
        for index, row in enumerate(self.rows):
            if shown[index] is None:
                shown[index] = row_content(row)
        return Content("\n").join(c for c in shown if c is not None)
