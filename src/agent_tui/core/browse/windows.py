"""Windows of a spill exactly as ``read_file`` returns them, and bytes to lines.

- ``window_of``: the rows ``read_file(path, offset, limit)`` returns (read_file's own code),
  with its footer, the call that returns them and each row's decoded text (a byte that is
  not UTF-8 kept as a lone surrogate, for the viewer to draw ``\\xNN``);
- ``segment_of``: what ``read_file(path, offset=line, char_offset=…)`` returns — 20,000
  characters of a line too long for a row — the same way, so the browser pages a long line
  to its end as read_file's footers say to (``last_segment``: where the last page starts);
- ``window_ending_at``: for paging back and jumping to the end under read_file's
  100,000-character window cap;
- ``window_text``: the lines of a window as the file has them (what the browser copies; a
  byte that is not UTF-8 as ``\\xNN``);
- ``line_start``, ``line_of_byte``, ``column_of_byte``: where a search match is.

Each reads what the window holds (through the spill's sparse index), never the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.core.budget.reader import SpillReader, decode, decoder
from agent_tui.core.text.utf8 import escape_bytes
from agent_tui.core.tools.builtin import read_file
from agent_tui.core.tools.files.read_window import numbered_row


@dataclass(frozen=True)
class SpillWindow:
    """Lines ``offset..last`` of a spill, as ``read_file(shown, offset, limit)`` returns them;
    or, a *segment*, characters ``char_offset..segment_end`` of line ``offset``, as
    ``read_file(shown, offset=offset, char_offset=char_offset)`` returns them."""

    shown: str
    offset: int
    limit: int
    """The window size in lines (kept by a segment, for the windows of lines after it)."""
    rows: tuple[str, ...]
    """read_file's rows: ``{line:>6}\\t{text}``, long lines cut with a marker, a byte that is
    not UTF-8 as ``\\xNN``."""
    last: int
    """The last line shown (0 when nothing is): read_file's window cap may end it early."""
    total: int
    capped: bool
    cut: tuple[tuple[int, int], ...]
    """(line, its length in chars) of each line shown cut."""
    final_newline: bool
    footer: str
    """read_file's footer for this window (its whole output for an empty file)."""
    texts: tuple[str, ...] = ()
    """Each row's text as decoded: a byte that is not UTF-8 as a lone surrogate
    (``surrogateescape``), so it is drawn apart from text that reads ``\\xNN``."""
    segment: bool = False
    """Characters of one line (``read_file``'s ``char_offset``), not a window of lines."""
    char_offset: int = 0
    """A segment's first character in its line (0-based)."""
    segment_text: str = ""
    """A segment's characters, as decoded."""
    line_chars: int = 0
    """A segment's line length in characters."""

    @property
    def empty(self) -> bool:
        return not self.rows

    @property
    def segment_end(self) -> int:
        """The character after a segment's last."""
        return self.char_offset + len(self.segment_text)

    @property
    def at_end(self) -> bool:
        """Nothing of the file comes after this window."""
        if self.segment and self.segment_end < self.line_chars:
            return False
        return self.last >= self.total

    @property
    def last_cut(self) -> int | None:
        """The length in chars of the window's last line when it is shown cut (PgDn reads on
        in it, as read_file's footer says), else None; None for a segment."""
        if self.segment or not self.cut or self.cut[-1][0] != self.last:
            return None
        return self.cut[-1][1]

    @property
    def call(self) -> str:
        """The read_file call that returns exactly this window."""
        if self.segment:
            return read_file.call_text(self.shown, offset=self.offset, char_offset=self.char_offset)
        return read_file.window_call(self.shown, self.offset, self.limit)

    @property
    def span(self) -> str:
        """``lines a–b of N``, or for a segment ``line N, chars a–b of c``."""
        if self.segment:
            return (
                f"line {self.offset:,}, chars {self.char_offset:,}–{self.segment_end:,} of "
                f"{self.line_chars:,}"
            )
        if self.empty:
            return f"0 lines of {self.total:,}" if self.total else "empty file: 0 lines"
        return f"lines {self.offset:,}–{self.last:,} of {self.total:,}"

    def contains(self, line: int) -> bool:
        return bool(self.rows) and self.offset <= line <= self.last

    def text(self) -> str:
        """The window as read_file returns it to the model: the rows and the footer."""
        return "\n".join([*self.rows, self.footer])

    def row_index(self, line: int) -> int | None:
        return line - self.offset if self.contains(line) else None


def window_of(reader: SpillReader, shown: str, offset: int, limit: int) -> SpillWindow:
    """The window from ``offset`` (clamped into the file) of an open reader."""
    total = reader.lines
    limit = max(1, min(limit, read_file.MAX_LINES))
    offset = max(1, min(offset, max(total, 1)))
    if total == 0:
        return SpillWindow(
            shown, 1, limit, (), 0, 0, False, (), reader.ends_with_newline, "[empty file: 0 lines]"
        )
    texts: list[str] = []
    rows = read_file.spill_rows(reader, offset, limit, texts)
    final_newline = reader.ends_with_newline
    return SpillWindow(
        shown=shown,
        offset=offset,
        limit=limit,
        rows=tuple(rows.rows),
        last=rows.last,
        total=total,
        capped=rows.capped,
        cut=tuple(rows.cut),
        final_newline=final_newline,
        footer=read_file.rows_footer(shown, offset, rows, total, final_newline, limit),
        texts=tuple(texts),
    )


def segment_of(
    reader: SpillReader,
    shown: str,
    line: int,
    char_offset: int,
    limit: int = read_file.MAX_LINES,
) -> SpillWindow:
    """``read_file(shown, offset=line, char_offset=char_offset)``: ``SEGMENT_CHARS``
    characters of ``line`` (clamped into the file) from ``char_offset``, with read_file's
    footer. A line that has no such character is not a segment: the window of lines from it
    is returned instead (``segment`` False)."""
    total = reader.lines
    line = max(1, min(line, max(total, 1)))
    if total == 0 or char_offset <= 0:
        return window_of(reader, shown, line, limit)
    piece = reader.segment(line, char_offset, read_file.SEGMENT_CHARS)
    if char_offset >= piece.line_chars:
        return window_of(reader, shown, line, limit)
    final_newline = reader.ends_with_newline
    shown_text = escape_bytes(piece.text)[0]
    return SpillWindow(
        shown=shown,
        offset=line,
        limit=max(1, min(limit, read_file.MAX_LINES)),
        rows=(f"{line:>6}\t{shown_text}",),
        last=line,
        total=total,
        capped=False,
        cut=(),
        final_newline=final_newline,
        footer=read_file.segment_footer(
            shown, line, char_offset, piece.text, piece.line_chars, total, final_newline
        ),
        texts=(piece.text,),
        segment=True,
        char_offset=char_offset,
        segment_text=piece.text,
        line_chars=piece.line_chars,
    )


def last_segment(line_chars: int) -> int:
    """Where the last segment of a line of ``line_chars`` characters starts: its last
    ``SEGMENT_CHARS`` characters (never before the end of read_file's row)."""
    return max(read_file.MAX_LINE_CHARS, line_chars - read_file.SEGMENT_CHARS)


def window_ending_at(reader: SpillReader, end_line: int, limit: int) -> int:
    """The offset of the window that ends at ``end_line``: the first line from which read_file
    returns ``end_line`` within ``limit`` lines and its character cap. For ``G`` (the last
    window) and ``PgUp`` (the window before). Reads at most ``limit`` rows."""
    end_line = max(1, min(end_line, reader.lines))
    limit = max(1, min(limit, read_file.MAX_LINES))
    first = max(1, end_line - limit + 1)
    sizes = [
        len(numbered_row(row.line, row.text, row.chars)) + 1
        for row in reader.rows(first, end_line - first + 1, read_file.MAX_LINE_CHARS)
    ]
    used, start = 0, end_line
    for at in range(len(sizes) - 1, -1, -1):
        if used and used + sizes[at] > read_file.MAX_WINDOW_CHARS:
            break
        used += sizes[at]
        start = first + at
    return start


COPY_MAX_BYTES = 1 << 20
"""The most ``window_text`` reads: a copy of a window of huge lines stops there."""


@dataclass(frozen=True)
class WindowText:
    """The text of a window's lines, exactly as the file has them."""

    text: str
    complete: bool
    """False when the lines held more than ``COPY_MAX_BYTES``: ``text`` is their start."""


def window_text(
    reader: SpillReader, window: SpillWindow, max_bytes: int = COPY_MAX_BYTES
) -> WindowText:
    """Lines ``window.offset..window.last`` as the file has them: no line numbers, no footer,
    cut lines whole, line endings kept (``\\r\\n`` too; none after a last line that has
    none); of a segment, its characters. One ``pread`` of at most ``max_bytes``; a byte that
    is not UTF-8 becomes ``\\xNN``, as read_file shows it."""
    if window.empty:
        return WindowText("", True)
    if window.segment:
        return WindowText(escape_bytes(window.segment_text)[0], True)
    start = reader.line_start(window.offset)
    end = reader.line_start(window.last + 1)  # past the last line: the end of the data
    size = min(end - start, max_bytes)
    data = reader.pread(size, start)
    if len(data) < end - start:
        text = decoder().decode(data)  # an unfinished character is left out
        return WindowText(escape_bytes(text)[0], False)
    return WindowText(escape_bytes(decode(data))[0], True)


# -- lines and bytes ------------------------------------------------------------------------


def line_start(reader: SpillReader, line: int) -> int:
    """The byte offset where ``line`` (1-based) starts: its index mark and a short scan."""
    return reader.line_start(line)


def line_of_byte(reader: SpillReader, byte: int) -> int:
    """The line holding byte ``byte``: a binary search of the index's marks, a short scan."""
    return reader.line_at(byte)


def column_of_byte(reader: SpillReader, line: int, byte: int) -> int:
    """Characters between the start of ``line`` and ``byte`` (a byte that is not UTF-8 is
    one): decoded from the nearest index checkpoint, so at most one checkpoint step of text
    is read even inside a huge line."""
    index = reader.index
    start = reader.line_start(line)
    char, base = 0, start
    if byte - start > 4 * index.step:
        found = index.checkpoint_before(byte)
        if found is not None and found[0] == line and found[2] >= start:
            char, base = found[1], found[2]
    return char + len(decode(reader.pread(byte - base, base)))
