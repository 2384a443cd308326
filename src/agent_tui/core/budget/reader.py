"""Windows of a spill file through its index: cost proportional to the window, not the file.

``read_file`` uses this for any file that has a valid sidecar index. Lines are shown exactly
as saved (a ``\\r`` before ``\\n`` is part of the line's text, so paging reconstructs the
output byte for byte); a byte that is not UTF-8 is decoded as a lone surrogate
(``surrogateescape``: U+DC80–U+DCFF, one character), which read_file shows as ``\\xNN`` and
counts, as it does for any file. A line longer than the row limit is cut; the rest of it is
reached with ``segment``, a window of characters inside one line that starts from the nearest
checkpoint.

A line's start is its index mark's plus a scan of the data from there (``index``: under 64 KiB
and 1,024 newlines); a window's lines are then read in one forward pass, a long line's head
only (its end is found from the next mark).
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.budget.index import SpillIndex

BLOCK_BYTES = 1 << 16
"""The most one read takes when scanning for line ends."""
FIRST_READ = 4096
"""The first read of a scan (each next one twice as large, up to ``BLOCK_BYTES``): a line
start a few lines past a mark costs a few KB, not a whole block."""
ERRORS = "surrogateescape"
"""How the bytes of a spill are decoded: exactly, an undecodable byte one character."""


def decode(data: bytes) -> str:
    """Bytes of a spill as text (complete: a character cut at the end is kept as bytes)."""
    return data.decode("utf-8", ERRORS)


def decoder() -> codecs.IncrementalDecoder:
    return codecs.getincrementaldecoder("utf-8")(errors=ERRORS)


@dataclass
class Row:
    line: int
    text: str
    """The line's first characters (all of them unless cut)."""
    chars: int
    """The line's full length in characters."""

    @property
    def cut(self) -> int:
        return self.chars - len(self.text)


@dataclass
class Segment:
    line: int
    start: int
    text: str
    line_chars: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


class SpillReader:
    """An open spill file and its index. ``bytes_read`` counts what the reads cost."""

    def __init__(self, path: Path, index: SpillIndex, opened: int | None = None) -> None:
        self.index = index
        # the caller's file when it opened one (a name may point elsewhere by now), else ours
        self.fd = (
            os.dup(opened)
            if opened is not None
            else os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        )
        self.bytes_read = 0

    @classmethod
    def open(cls, path: Path, opened: int | None = None) -> SpillReader | None:
        """A reader when ``path`` has a matching index, else None (not a spill file).
        ``opened``: the caller's descriptor of ``path``, whose file the index must match."""
        index = SpillIndex.open_for(path, opened)
        if index is None:
            return None
        try:
            return cls(path, index, opened)
        except OSError:
            index.close()
            return None

    def close(self) -> None:
        os.close(self.fd)
        self.index.close()

    def __enter__(self) -> SpillReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def lines(self) -> int:
        return self.index.lines

    @property
    def ends_with_newline(self) -> bool:
        return self.index.lines == self.index.newlines

    def pread(self, size: int, offset: int) -> bytes:
        data = os.pread(self.fd, size, offset)
        self.bytes_read += len(data)
        return data

    # -- where lines are ---------------------------------------------------------------------

    def line_start(self, line: int) -> int:
        """The byte offset where ``line`` (1-based; past the end: the end) starts."""
        index = self.index
        if line <= 1:
            return 0
        if line > index.newlines + 1:
            return index.data_bytes
        mark_line, pos = index.mark_for_line(line)
        return self._skip(pos, line - mark_line)

    def _blocks(self, pos: int, end: int | None = None) -> Iterator[bytes]:
        """The data from ``pos`` (to ``end``), in reads growing from ``FIRST_READ``."""
        size = FIRST_READ
        while end is None or pos < end:
            block = self.pread(size if end is None else min(size, end - pos), pos)
            if not block:
                return
            yield block
            pos += len(block)
            size = min(2 * size, BLOCK_BYTES)

    def _skip(self, pos: int, newlines: int) -> int:
        """The offset just after the ``newlines``-th newline from ``pos``."""
        if not newlines:
            return pos
        for block in self._blocks(pos):
            count = block.count(b"\n")
            if count < newlines:
                newlines -= count
                pos += len(block)
                continue
            at = -1
            for _ in range(newlines):
                at = block.index(b"\n", at + 1)
            return pos + at + 1
        return self.index.data_bytes

    def span(self, line: int) -> tuple[int, int]:
        """(start, end) bytes of ``line``; the end excludes its ``\\n``."""
        start = self.line_start(line)
        if line > self.index.newlines:
            return start, self.index.data_bytes
        return start, self._line_end(line, start)

    def _line_end(self, line: int, start: int) -> int:
        """Where the ``\\n`` ending ``line`` (which has one) is: a short scan, else the next
        line's start (a line longer than the scan is followed by a mark)."""
        pos = start
        for block in self._blocks(start, start + BLOCK_BYTES):
            at = block.find(b"\n")
            if at >= 0:
                return pos + at
            pos += len(block)
        return self.line_start(line + 1) - 1

    def line_at(self, byte: int) -> int:
        """The line holding byte ``byte``: from the last mark before it, the newlines between
        (all within ``mark_bytes`` of the mark: the line's start is no further)."""
        index = self.index
        mark_line, pos = index.mark_for_byte(byte)
        end = min(byte, pos + index.mark_bytes)
        return mark_line + sum(block.count(b"\n") for block in self._blocks(pos, end))

    # -- what lines say ----------------------------------------------------------------------

    def line_chars(self, line: int, span: tuple[int, int]) -> int:
        """Characters of ``line``: decoded from its last checkpoint (at most one step)."""
        start, end = span
        char, byte = self.index.checkpoint(line, sys.maxsize) or (0, start)
        return char + len(decode(self.pread(end - byte, byte)))

    def rows(self, offset: int, limit: int, max_chars: int) -> Iterator[Row]:
        """Lines ``offset .. offset + limit - 1``, each cut to ``max_chars`` characters: one
        forward pass from the first line's start, reading only the head of a long line."""
        last = min(offset + limit - 1, self.lines)
        if offset > last:
            return
        head = 4 * max_chars + 4  # enough bytes for max_chars characters
        pos = self.line_start(offset)
        buffer, base, size = b"", pos, FIRST_READ
        for line in range(offset, last + 1):
            # the line's bytes up to its end or ``head`` of them, whichever comes first
            while True:
                at = buffer.find(b"\n", pos - base, pos - base + head + 1)
                if at >= 0 or len(buffer) - (pos - base) > head:
                    break
                more = self.pread(size, base + len(buffer))
                if not more:
                    break
                buffer, base, size = buffer[pos - base :] + more, pos, min(2 * size, BLOCK_BYTES)
            if at >= 0:  # the whole line
                text = decode(buffer[pos - base : at])
                yield Row(line, text[:max_chars], len(text))
                pos = base + at + 1
            elif line > self.index.newlines and base + len(buffer) - pos <= head:
                text = decode(buffer[pos - base :])  # the last line, without a newline
                yield Row(line, text[:max_chars], len(text))
                pos = base + len(buffer)
            else:  # a long line: its head, its length from its end's checkpoint
                text = decoder().decode(buffer[pos - base : pos - base + head])[:max_chars]
                end = self._line_end(line, pos) if line <= self.index.newlines else None
                end = self.index.data_bytes if end is None else end
                yield Row(line, text, self.line_chars(line, (pos, end)))
                pos, buffer, base = end + 1, b"", end + 1

    def segment(self, line: int, char_offset: int, size: int) -> Segment:
        """``size`` characters of ``line`` from ``char_offset`` (0-based)."""
        if not 1 <= line <= self.lines:
            raise ValueError(f"line {line} is past the end ({self.lines} lines)")
        start, end = self.span(line)
        line_chars = self.line_chars(line, (start, end))
        if char_offset >= line_chars and char_offset > 0:
            return Segment(line, char_offset, "", line_chars)
        char, pos = self.index.checkpoint(line, char_offset) or (0, start)
        skip = char_offset - char
        incremental = decoder()
        parts: list[str] = []
        got = 0
        while pos < end and got < size:
            chunk = self.pread(min(BLOCK_BYTES, end - pos), pos)
            if not chunk:
                break
            pos += len(chunk)
            text = incremental.decode(chunk, pos >= end)
            if skip:
                if len(text) <= skip:
                    skip -= len(text)
                    continue
                text, skip = text[skip:], 0
            parts.append(text[: size - got])
            got += len(parts[-1])
        return Segment(line, char_offset, "".join(parts), line_chars)

    def char_byte(self, line: int, char: int) -> int:
        """The byte offset of character ``char`` (0-based) of ``line`` (its end when the
        line is shorter): decoded from the nearest checkpoint before it."""
        start, end = self.span(line)
        found, pos = self.index.checkpoint(line, char) or (0, start)
        need = char - found
        # ``need`` characters take at most 4 * need bytes; surrogateescape round-trips, so
        # the bytes of the characters before it are their encoding
        text = decode(self.pread(min(4 * need, end - pos), pos))[:need]
        return pos + len(text.encode("utf-8", ERRORS))
