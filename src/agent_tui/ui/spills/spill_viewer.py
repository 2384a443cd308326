"""The window of a spill: read_file's numbered rows, drawn line by line (the Line API), so a
2,000-line window costs only the rows on screen.

It holds one ``SpillWindow`` (at most read_file's 100,000 characters) and draws each row as
``number │ text``: tabs expanded, control characters as visible symbols (a terminal never
receives raw escapes from a spill), a byte that is not UTF-8 as ``\\xNN`` (as read_file shows
it), read_file's cut marker dimmed, every match of the search highlighted and the current one
stronger; the marked line (a goto target or the line of the current match) spans the width.
A *segment* (characters of a line too long for a row, as read_file reads on in it with
``char_offset``) is one row wrapped to the viewer's width, its continuation rows marked ``┆``.
read_file's footer is the last row: what the model reads after the rows. Inside a window the
keys scroll; PgDn / PgUp ask for the next / previous window (``Paged``), which the screen reads
through the browser's model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from agent_tui.core.browse import SpillWindow
from agent_tui.ui.spills.steps import Highlight

__all__ = ["Highlight", "Row", "Shown", "SpillViewer", "prepare", "split_row"]

TAB = 8
_SPECIAL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
FALLBACK_WIDTH = 80
"""The width a segment is wrapped to before the viewer has one (the first layout wraps it
again)."""
_CUT = re.compile(r" \[… line cut: [\d,]+ more chars\]$")


def _symbol(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟
    if code == 0x7F:
        return "␡"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return "�"  # C1 controls, any other lone surrogate


@dataclass(frozen=True)
class Shown:
    """One row of text prepared for the screen."""

    text: str
    """What is drawn: tabs expanded, control characters and undecodable bytes replaced."""
    starts: tuple[int, ...] | None
    """Where each character of the original text starts in ``text`` (and its end), when
    ``text`` is not the original character for character."""
    controls: tuple[tuple[int, int], ...] = ()
    """(position, length) in ``text`` of each replaced control character or byte."""

    def at(self, index: int) -> int:
        if self.starts is None:
            return index
        return self.starts[min(index, len(self.starts) - 1)]


def prepare(text: str) -> Shown:
    """``text`` as drawn: tabs to the next multiple of 8 cells, control characters shown as
    symbols, a byte that is not UTF-8 (a lone surrogate, ``surrogateescape``) as ``\\xNN``.
    The common case (none of them) keeps the string as it is."""
    if not _SPECIAL.search(text):
        return Shown(text, None)
    parts: list[str] = []
    starts: list[int] = []
    controls: list[tuple[int, int]] = []
    column = position = 0
    for char in text:
        starts.append(position)
        if char == "\t":
            piece = " " * (TAB - column % TAB)
            column += len(piece)
        else:
            if _SPECIAL.match(char):
                piece = _symbol(char)
                controls.append((position, len(piece)))
            else:
                piece = char
            column += cell_len(piece)
        parts.append(piece)
        position += len(piece)
    starts.append(position)
    return Shown("".join(parts), tuple(starts), tuple(controls))


def wrap(text: str, width: int) -> list[tuple[int, int]]:
    """(start, end) of each screen row of ``text`` (drawn: no tabs, no controls) cut to
    ``width`` cells; at least one row."""
    if text.isascii():
        return [(i, min(i + width, len(text))) for i in range(0, len(text), width)] or [(0, 0)]
    rows: list[tuple[int, int]] = []
    start = cells = 0
    for index, char in enumerate(text):
        size = cell_len(char)
        if cells + size > width and index > start:
            rows.append((start, index))
            start, cells = index, 0
        cells += size
    rows.append((start, len(text)))
    return rows


@dataclass(frozen=True)
class Row:
    line: int
    text: str
    """The text read_file shows (without its cut marker)."""
    body: Shown
    cut_marker: str
    """read_file's `` [… line cut: N more chars]`` when the line is cut, else empty."""


def split_row(row: str) -> tuple[int, str, str]:
    """(line, text, cut marker) of one of read_file's rows."""
    number, _, text = row.partition("\t")
    marker = _CUT.search(text)
    if marker is None:
        return int(number), text, ""
    return int(number), text[: marker.start()], marker.group()


class SpillViewer(ScrollView, can_focus=True):
    """The rows of one window, scrollable in both directions."""

    COMPONENT_CLASSES = {
        "spill-viewer--gutter",
        "spill-viewer--marked",
        "spill-viewer--match",
        "spill-viewer--current",
        "spill-viewer--cut",
        "spill-viewer--control",
        "spill-viewer--footer",
    }

    DEFAULT_CSS = """
    SpillViewer {
        height: 1fr;
        background: $background;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
        &:focus { background-tint: $foreground 3%; }
        & > .spill-viewer--gutter { color: $text-muted; }
        & > .spill-viewer--marked { background: $primary 25%; }
        & > .spill-viewer--match { background: $warning 35%; }
        & > .spill-viewer--current { background: $accent; color: $text; text-style: bold; }
        & > .spill-viewer--cut { color: $text-warning; text-style: italic; }
        & > .spill-viewer--control { color: $text-secondary; }
        & > .spill-viewer--footer { color: $text-muted; text-style: italic; }
    }
    """

    BINDINGS = [
        Binding("pagedown", "page(True)", "Next", key_display="PgDn", id="spills.next"),
        Binding("pageup", "page(False)", "Prev", key_display="PgUp", id="spills.previous"),
        Binding("j", "scroll_down", show=False),
        Binding("k", "scroll_up", show=False),
        Binding("h", "scroll_left", show=False),
        Binding("l", "scroll_right", show=False),
        Binding("ctrl+d", "half_page(1)", show=False),
        Binding("ctrl+u", "half_page(-1)", show=False),
        Binding("space", "half_page(1)", show=False),
    ]

    class Paged(Message):
        """PgDn (``forward``) or PgUp: the user asks for the next or the previous window."""

        def __init__(self, forward: bool) -> None:
            super().__init__()
            self.forward = forward

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.window: SpillWindow | None = None
        self.rows: list[Row] = []
        self.marked: int | None = None
        self.highlight = Highlight()
        self._gutter = 6
        self._cache: LRUCache[int, Strip] = LRUCache(512)
        self._wrapped: list[tuple[int, int]] = [(0, 0)]
        """A segment's screen rows: (start, end) in its drawn text."""
        self._footer: list[tuple[int, int]] = [(0, 0)]
        """The footer's screen rows: one, or a segment's wrapped as its text is (the body
        has no horizontal scroll then)."""
        self._wrap_width = 0
        self._pieces: list[Text] | None = None
        """A segment's screen rows, styled (made when first drawn)."""

    @property
    def segment(self) -> bool:
        return self.window is not None and self.window.segment

    # -- content ---------------------------------------------------------------------------

    def show(
        self,
        window: SpillWindow | None,
        *,
        marked: int | None = None,
        highlight: Highlight | None = None,
        at: int | str | None = None,
    ) -> None:
        """Show ``window``; ``at`` is a line to bring into view, ``"end"`` or None (the top)."""
        self.window = window
        self.rows = []
        if window is not None:
            self._gutter = max(6, len(str(window.last)))
            texts = window.texts if len(window.texts) == len(window.rows) else None
            for index, raw in enumerate(window.rows):
                line, text, marker = split_row(raw)
                if texts is not None:
                    text = texts[index]
                self.rows.append(Row(line, text, prepare(text), marker))
        self.marked = marked
        self.highlight = highlight or Highlight()
        self._wrap_width = 0
        self._layout()
        self.call_after_refresh(self._bring_into_view, at)

    def _text_width(self) -> int:
        """Cells a segment's rows may take: the viewer's width less the gutter and the
        vertical scrollbar (there or not: a width that changed with it would wrap again)."""
        width = (self.size.width or FALLBACK_WIDTH) - self.styles.scrollbar_size_vertical
        return max(10, width - self._gutter - 3)

    def _layout(self) -> None:
        """The virtual size for the window (a segment wrapped to the width), redrawn."""
        self._cache.clear()
        self._pieces = None
        window = self.window
        if window is None:
            self.virtual_size = Size(0, 0)
        elif window.segment and self.rows:
            width = self._text_width()
            if width != self._wrap_width:
                self._wrap_width = width
                self._wrapped = wrap(self.rows[0].body.text, width)
                self._footer = wrap(window.footer, width)
            height = len(self._wrapped) + len(self._footer)
            self.virtual_size = Size(self._gutter + 3 + width, height)
        else:
            width = max(
                (cell_len(row.body.text) + len(row.cut_marker) for row in self.rows), default=0
            )
            width = max(width, len(window.footer))
            self._footer = [(0, len(window.footer))]
            self.virtual_size = Size(self._gutter + 3 + width, len(self.rows) + 1)
        self.refresh()

    def on_resize(self) -> None:
        if self.segment and self._text_width() != self._wrap_width:
            self._layout()

    @property
    def _screen_rows(self) -> int:
        """Rows before the footer's."""
        return len(self._wrapped) if self.segment else len(self.rows)

    def set_highlight(self, highlight: Highlight, marked: int | None) -> None:
        self.highlight = highlight
        self.marked = marked
        self._cache.clear()
        self._pieces = None
        self.refresh()

    def _bring_into_view(self, at: int | str | None) -> None:
        if at == "end":
            self.scroll_to(x=0, y=self.max_scroll_y, animate=False)
            return
        if not isinstance(at, int) or self.window is None:
            self.scroll_to(x=0, y=0, animate=False)
            return
        index = self.window.row_index(at) or 0
        self.bring_line(index)

    def bring_line(self, index: int) -> None:
        """Scroll so row ``index`` is in view (a third down the view), with the current match
        in view horizontally (in a segment: the screen row that holds the match)."""
        height = max(self.scrollable_content_region.height, 1)
        highlight = self.highlight
        matched = 0 <= index < len(self.rows) and highlight.line == self.rows[index].line
        if self.segment:
            target = 0
            if matched:
                drawn = self.rows[0].body.at(highlight.column)
                target = next(
                    (n for n, (a, b) in enumerate(self._wrapped) if a <= drawn < b),
                    len(self._wrapped) - 1,
                )
            y = self.scroll_y
            if not y <= target < y + height:
                y = max(0, target - height // 3)
            self.scroll_to(x=0, y=y, animate=False)
            return
        y = self.scroll_y
        if not y <= index < y + height:
            y = max(0, index - height // 3)
        x = 0
        if matched:
            body = self.rows[index].body
            end = self._gutter + 3 + cell_len(body.text[: body.at(highlight.column)])
            width = self.scrollable_content_region.width
            if end + highlight.length > width:
                x = end - width // 2
        self.scroll_to(x=x, y=y, animate=False)

    def line_at_top(self) -> int | None:
        """The file line of the first row in view."""
        if not self.rows:
            return None
        if self.segment:
            return self.rows[0].line
        return self.rows[min(int(self.scroll_y), len(self.rows) - 1)].line

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._pieces = None

    # -- drawing ---------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        base = self.rich_style
        width = self.size.width
        if self.window is None or index >= self._screen_rows + len(self._footer):
            return Strip.blank(width, base)
        strip = self._cache.get(index)
        if strip is None:
            strip = self._draw(index, base)
            self._cache[index] = strip
        line = self.rows[0 if self.segment else index].line if index < self._screen_rows else 0
        marked = index < self._screen_rows and line == self.marked
        fill = base + self.get_component_rich_style("spill-viewer--marked") if marked else base
        return strip.crop_extend(scroll_x, scroll_x + width, fill).apply_offsets(scroll_x, index)

    def _style(self, name: str) -> Style:
        """A component's style; for the text parts (not the highlights) without their
        background, so a marked row's background shows through them. (Full styles, not
        partial ones: those carry theme colours with alpha unblended.)"""
        full = self.get_component_rich_style(f"spill-viewer--{name}")
        if name in {"marked", "match", "current"}:
            return full
        return Style(color=full.color, bold=full.bold, italic=full.italic)

    def _body(self, row: Row) -> Text:
        """The row's text as drawn: controls dimmed, matches and the current one marked."""
        body = row.body
        line = Text(body.text, no_wrap=True, end="")
        for at, size in body.controls:
            line.stylize(self._style("control"), at, at + size)
        highlight = self.highlight
        if highlight.pattern is not None:
            for found in highlight.pattern.finditer(row.text):
                line.stylize(self._style("match"), body.at(found.start()), body.at(found.end()))
        if highlight.line == row.line and highlight.length:
            a = body.at(highlight.column)
            b = body.at(highlight.column + highlight.length)
            if a < len(body.text):
                line.stylize(self._style("current"), a, max(b, a + 1))
        return line

    def _draw(self, index: int, base: Style) -> Strip:
        assert self.window is not None
        if index >= self._screen_rows:
            a, b = self._footer[index - self._screen_rows]
            text = Text(" " * (self._gutter + 3), no_wrap=True, end="")
            text.append(self.window.footer[a:b], self._style("footer"))
            text.stylize_before(base)
            return Strip(text.render(self.app.console), text.cell_len)
        row = self.rows[0] if self.segment else self.rows[index]
        if self.segment:
            if self._pieces is None:
                body = self._body(row)
                self._pieces = [body[a:b] for a, b in self._wrapped]
            gutter = f"{row.line:>{self._gutter}} │ " if index == 0 else " " * self._gutter + " ┆ "
            line = Text(no_wrap=True, end="")
            line.append(gutter, self._style("gutter"))
            line.append_text(self._pieces[index])
        else:
            line = Text(no_wrap=True, end="")
            line.append(f"{row.line:>{self._gutter}} │ ", self._style("gutter"))
            line.append_text(self._body(row))
            if row.cut_marker:
                line.append(row.cut_marker, self._style("cut"))
        if row.line == self.marked:
            line.stylize_before(self._style("marked"))
        line.stylize_before(base)
        return Strip(line.render(self.app.console), line.cell_len)

    # -- keys ------------------------------------------------------------------------------

    def action_page(self, forward: bool) -> None:
        self.post_message(self.Paged(forward))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "page":
            return True if self.window is not None else None  # dimmed without a window
        return True

    def action_half_page(self, direction: int) -> None:
        step = max(1, self.scrollable_content_region.height // 2)
        self.scroll_to(y=self.scroll_y + direction * step, animate=False)
