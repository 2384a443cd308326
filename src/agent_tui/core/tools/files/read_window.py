"""read_file's streaming window: numbered rows of a byte stream, decoded only in the window."""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

from agent_tui.core.text.utf8 import escape_bytes


def numbered_row(line: int, text: str, total: int) -> str:
    """One row as read_file shows it: the number, a tab, the text (with a cut marker when
    ``text`` is only the first characters of a line of ``total`` characters). A byte that is
    not valid UTF-8 (decoded with ``surrogateescape``) is shown as ``\\xNN``."""
    return _numbered(line, text, total)[0]


def _numbered(line: int, text: str, total: int) -> tuple[str, int]:
    """``numbered_row`` and how many undecodable bytes it shows escaped."""
    more = total - len(text)
    text, escaped = escape_bytes(text)
    if more > 0:
        text += f" [… line cut: {more:,} more chars]"
    return f"{line:>6}\t{text}", escaped


@dataclass
class Rows:
    """Numbered rows of a window, capped in size; remembers which lines were cut."""

    cap: int
    """Most characters of rows in one window."""
    rows: list[str] = field(default_factory=list)
    chars: int = 0
    last: int = 0
    capped: bool = False
    cut: list[tuple[int, int]] = field(default_factory=list)
    """(line, its length in chars) of each line shown cut."""
    undecodable: int = 0
    """Bytes of the rows that are not valid UTF-8, shown as ``\\xNN``."""

    def add(self, line: int, text: str, total: int) -> bool:
        """Add a row; False (and ``capped``) when it no longer fits."""
        row, escaped = _numbered(line, text, total)
        if self.rows and self.chars + len(row) + 1 > self.cap:
            self.capped = True
            return False
        self.undecodable += escaped
        self.rows.append(row)
        self.chars += len(row) + 1
        self.last = line
        if total > len(text):
            self.cut.append((line, total))
        return True


@dataclass
class Window:
    """Collects the numbered lines of the window [offset, offset + limit) while streaming.

    With ``skip`` (a char_offset) the window is one line, and only the characters
    ``[skip, skip + room)`` of it are kept, in ``segment``.
    """

    offset: int
    stop_at: int
    room: int
    out: Rows
    skip: int = 0
    char_mode: bool = False
    line_no: int = 1
    segment: tuple[str, int] | None = None
    """(text, line length in chars) in char_offset mode."""
    _decoder: codecs.IncrementalDecoder | None = None
    _parts: list[str] = field(default_factory=list)
    _seen: int = 0
    _last_char: str = ""

    def _in_window(self) -> bool:
        return self.offset <= self.line_no <= self.stop_at and not self.out.capped

    def feed(self, chunk: bytes) -> None:
        pos, size = 0, len(chunk)
        while pos < size:
            if not self._in_window():
                if self.line_no < self.offset:  # skip to the window without decoding
                    need = self.offset - self.line_no
                    if chunk.count(b"\n", pos) < need:
                        self.line_no += chunk.count(b"\n", pos)
                        return
                    for _ in range(need):
                        pos = chunk.index(b"\n", pos) + 1
                    self.line_no += need
                    continue
                self.line_no += chunk.count(b"\n", pos)  # past the window: only count
                return
            newline = chunk.find(b"\n", pos)
            self._take(chunk[pos : size if newline == -1 else newline])
            if newline == -1:
                return
            self._end_line()
            pos = newline + 1

    def _take(self, piece: bytes, final: bool = False) -> None:
        if self._decoder is None:
            # Exact: an undecodable byte is kept (as U+DC80–U+DCFF) to be shown as \xNN.
            self._decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
            self._parts, self._seen, self._last_char = [], 0, ""
        text = self._decoder.decode(piece, final)
        if not text:
            return
        lo = max(self.skip - self._seen, 0)
        hi = min(self.skip + self.room - self._seen, len(text))
        if hi > lo:
            self._parts.append(text[lo:hi])
        self._seen += len(text)
        self._last_char = text[-1]

    def _end_line(self) -> None:
        self._take(b"", final=True)
        text, total = "".join(self._parts), self._seen
        if self._last_char == "\r":  # a CRLF line ending is not part of the text
            total -= 1
            if self.skip + len(text) > total:
                text = text[:-1]
        if self.char_mode:
            self.segment = (text, total)
            self.out.last = self.line_no
        else:
            self.out.add(self.line_no, text, total)
        self._decoder = None
        self.line_no += 1

    def finish(self, size: int, last_byte: bytes) -> int:
        """Close the last line; return the file's total line count."""
        total = self.line_no - 1 if size == 0 or last_byte == b"\n" else self.line_no
        if self._decoder is not None:
            self._end_line()
        return total
