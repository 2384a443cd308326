"""The permission prompt's answers, one row each — the key, what it does and, for "always",
the rule it saves — and, when "always" is not offered, why, in their place. A click on an
answer's row answers as its key does; the answer under the mouse is highlighted.

One widget draws every row. They were five buttons in a container: composing, styling and
laying out those six widgets was about a third of the CPU time between the
``permission_request`` event and the prompt's first frame (``benchmarks/bench_screens.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import events
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget


@dataclass(frozen=True)
class Answer:
    """A row that answers: ``choice`` is what a click on it asks the prompt to do."""

    choice: str
    label: Content


@dataclass(frozen=True)
class Note:
    """A row that is only read (wrapped to the widget's width, after ``indent`` cells)."""

    text: Content
    indent: int = 1


Row = Answer | Note


class ApprovalChoices(Widget):
    DEFAULT_CSS = """
    ApprovalChoices {
        height: auto;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        & > .approval-choices--hover { background: $boost; }
    }
    """
    COMPONENT_CLASSES = {"approval-choices--hover"}

    hovered: reactive[int | None] = reactive(None)
    """The line under the mouse, when it is an answer's."""

    class Picked(Message):
        """An answer's row was clicked."""

        def __init__(self, choice: str) -> None:
            super().__init__()
            self.choice = choice

    def __init__(self, rows: Sequence[Row], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows = tuple(rows)
        self._laid_out: tuple[int, list[Content], list[str | None]] | None = None

    @property
    def choices(self) -> list[str]:
        """The answers offered, top to bottom."""
        return [row.choice for row in self.rows if isinstance(row, Answer)]

    def label(self, choice: str) -> Content:
        """What the row of ``choice`` says (KeyError when it is not offered)."""
        for row in self.rows:
            if isinstance(row, Answer) and row.choice == choice:
                return row.label
        raise KeyError(choice)

    def _lines(self, width: int) -> tuple[list[Content], list[str | None]]:
        """The lines at ``width`` cells, and the answer each line belongs to."""
        if self._laid_out is not None and self._laid_out[0] == width:
            return self._laid_out[1], self._laid_out[2]
        lines: list[Content] = []
        owners: list[str | None] = []
        for row in self.rows:
            if isinstance(row, Answer):
                lines.append(row.label.pad_left(1))
                owners.append(row.choice)
                continue
            for paragraph in row.text.split("\n"):
                for line in paragraph.wrap(max(1, width - row.indent)):
                    lines.append(line.pad_left(row.indent))
                    owners.append(None)
        self._laid_out = (width, lines, owners)
        return lines, owners

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """The widest row unwrapped, read from the rows: laying them out at some width
        only to measure would replace the lines kept for the real width, so the first frame
        would wrap them twice."""
        widths = [0]
        for row in self.rows:
            if isinstance(row, Answer):
                widths.append(1 + row.label.cell_length)
            else:
                widths.extend(row.indent + p.cell_length for p in row.text.split("\n"))
        return max(widths) + 1

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width)[0])

    def render(self) -> Content:
        lines, _ = self._lines(self.size.width)
        hovered = self.hovered
        if hovered is not None and 0 <= hovered < len(lines):
            style = self.get_visual_style("approval-choices--hover")
            lines = list(lines)
            line = lines[hovered].extend_right(1)  # the row as wide as the button it replaces
            lines[hovered] = line.stylize_before(style)
        return Content("\n").join(lines)

    def watch_hovered(self) -> None:
        self.refresh()

    def answer_at(self, y: int, x: int = 0) -> str | None:
        """The answer whose row is line ``y`` (at cell ``x``; past the row's end: none)."""
        lines, owners = self._lines(self.size.width)
        if not 0 <= y < len(owners) or x > lines[y].cell_length:
            return None
        return owners[y]

    def _answer_at(self, event: events.MouseEvent) -> str | None:
        offset = event.get_content_offset(self)
        return None if offset is None else self.answer_at(offset.y, offset.x)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        offset = event.get_content_offset(self)
        self.hovered = offset.y if offset is not None and self._answer_at(event) else None

    def on_leave(self, event: events.Leave) -> None:
        self.hovered = None

    def on_click(self, event: events.Click) -> None:
        choice = self._answer_at(event)
        if choice is not None:
            event.stop()
            self.post_message(self.Picked(choice))
