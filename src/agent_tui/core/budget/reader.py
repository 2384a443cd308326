"""Windows of a spill file through its index: cost proportional to the window, not the file.

``read_file`` uses this for any file that has a valid sidecar index. Lines are shown exactly
as saved (a ``\\r`` before ``\\n`` is part of the line's text, so paging reconstructs the
output byte for byte). A line longer than the row limit is cut; the rest of it is reached with
``segment``, a window of characters inside one line that starts from the nearest checkpoint.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.budget.index import SpillIndex

BULK_BYTES = 1 << 20
"""A window whose lines fit in this many bytes is read with one ``pread``."""
BLOCK_BYTES = 1 << 16


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

    def _pread(self, size: int, offset: int) -> bytes:
        data = os.pread(self.fd, size, offset)
        self.bytes_read += len(data)
        return data

    def line_chars(self, line: int, span: tuple[int, int]) -> int:
        """Characters of ``line``: decoded from its last checkpoint (at most one step)."""
        start, end = span
        char, byte = self.index.checkpoint(line, sys.maxsize) or (0, start)
        return char + len(self._pread(end - byte, byte).decode("utf-8", "replace"))

    def rows(self, offset: int, limit: int, max_chars: int) -> Iterator[Row]:
        """Lines ``offset .. offset + limit - 1``, each cut to ``max_chars`` characters."""
        spans = self.index.spans(offset, limit)
        if not spans:
            return
        base = spans[0][0]
        block = None
        if spans[-1][1] - base <= BULK_BYTES:
            block = self._pread(spans[-1][1] - base, base)
        head = 4 * max_chars + 4  # enough bytes for max_chars characters
        for line, (start, end) in enumerate(spans, offset):
            size = end - start
            if block is not None:
                raw = block[start - base : end - base]
            else:
                raw = self._pread(min(size, head), start)
            if len(raw) == size:
                text = raw.decode("utf-8", "replace")
                yield Row(line, text[:max_chars], len(text))
            else:
                decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
                text = decoder.decode(raw)[:max_chars]
                yield Row(line, text, self.line_chars(line, (start, end)))

    def segment(self, line: int, char_offset: int, size: int) -> Segment:
        """``size`` characters of ``line`` from ``char_offset`` (0-based)."""
        spans = self.index.spans(line, 1)
        if not spans:
            raise ValueError(f"line {line} is past the end ({self.lines} lines)")
        start, end = spans[0]
        line_chars = self.line_chars(line, spans[0])
        if char_offset >= line_chars and char_offset > 0:
            return Segment(line, char_offset, "", line_chars)
        char, pos = self.index.checkpoint(line, char_offset) or (0, start)
        skip = char_offset - char
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        parts: list[str] = []
        got = 0
        while pos < end and got < size:
            chunk = self._pread(min(BLOCK_BYTES, end - pos), pos)
            if not chunk:
                break
            pos += len(chunk)
            text = decoder.decode(chunk, pos >= end)
            if skip:
                if len(text) <= skip:
                    skip -= len(text)
                    continue
                text, skip = text[skip:], 0
            parts.append(text[: size - got])
            got += len(parts[-1])
        return Segment(line, char_offset, "".join(parts), line_chars)
