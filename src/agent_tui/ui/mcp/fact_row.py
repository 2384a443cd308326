"""One labelled line of the server details (``status``, ``command``, ``protocol``…); the value
wraps under itself, and the row hides while it has no value.

One widget, not a row of a label and a value (three widgets): the MCP panel shows 14 of them,
and each widget costs its compose, styling, layout and render as the panel opens
(``benchmarks/bench_screens.py``). The value's colour and text style are the row's own (CSS on
the row: ``#fact-reason { color: $error; }``); the label keeps its muted look.
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

LABEL_WIDTH = 12
LABEL_STYLE = "$foreground-muted not italic not bold"


class FactRow(Widget):
    DEFAULT_CSS = """
    FactRow {
        height: auto;
        text-wrap: nowrap;  /* wrapped here already, the value under itself */
        text-overflow: clip;
    }
    """

    def __init__(self, label: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = label
        self.value: Content | None = None
        self._wrapped: tuple[int, list[Content]] | None = None

    def relabel(self, label: str) -> None:
        if label != self.label:
            self.label = label
            self._wrapped = None
            self.refresh()

    def set(self, value: Content | str | None) -> None:
        """Show ``value`` (hidden when empty)."""
        content = Content(value) if isinstance(value, str) else value
        self.display = bool(content and content.plain.strip())
        if content != self.value:
            self.value = content
            self._wrapped = None
            self.refresh(layout=True)

    def lines(self, width: int) -> list[Content]:
        """The row at ``width`` cells: the label, then the value wrapped under itself."""
        if self._wrapped is not None and self._wrapped[0] == width:
            return self._wrapped[1]
        label = Content.styled(self.label.ljust(LABEL_WIDTH)[:LABEL_WIDTH], LABEL_STYLE)
        value = self.value or Content("")
        wrapped = value.wrap(max(1, width - LABEL_WIDTH)) or [Content("")]
        indent = Content.styled(" " * LABEL_WIDTH, LABEL_STYLE)  # a span of its own
        lines = [label + wrapped[0], *(indent + line for line in wrapped[1:])]
        self._wrapped = (width, lines)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        return Content("\n").join(self.lines(self.content_size.width))
