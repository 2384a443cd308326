"""Searching a spill file without loading it: the bytes are streamed in chunks (1 MiB by
default), forward or backward from a position, wrapping around the ends like vim.

Matching is literal and smart-case (case-insensitive unless the query has a capital letter),
done on the UTF-8 bytes: a case-sensitive or ASCII query is a ``bytes.find`` (on the lowered
chunk when case does not matter); a non-ASCII query that ignores case becomes a bytes regex
that accepts each character's cases. A match can cross a chunk boundary: each chunk is read
with the longest match's length as overlap. The line of a match is found with the spill's
line index (a binary search of its marks, then a short scan), its column by decoding from the
nearest checkpoint: memory stays at a couple of chunks whatever the file's size. Blocking: run it in
a thread, with ``cancel`` to stop it and ``progress`` to follow it.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.browse.opening import open_reader
from agent_tui.core.browse.windows import column_of_byte, line_of_byte

CHUNK_BYTES = 1 << 20

Progress = Callable[[int, int], None]
"""Called after each chunk with (bytes searched, bytes to search)."""


class SearchCancelled(Exception):
    """The search was cancelled (its ``cancel`` event was set)."""


def is_case_sensitive(query: str) -> bool:
    """Smart case: a query with a capital letter matches case; otherwise case is ignored."""
    return any(char.isupper() for char in query)


class Matcher:
    """Finds a query in byte chunks: the first or the last match starting before ``end``."""

    def __init__(self, query: str) -> None:
        if not query:
            raise ValueError("empty search")
        self.query = query
        self.case_sensitive = is_case_sensitive(query)
        encoded = query.encode("utf-8")
        self._lower = not self.case_sensitive and query.isascii()
        self._needle = encoded.lower() if self._lower else encoded
        self._regex: re.Pattern[bytes] | None = None
        self.longest = len(encoded)
        if not self.case_sensitive and not query.isascii():
            parts: list[bytes] = []
            self.longest = 0
            for char in query:
                forms = sorted({char, char.lower(), char.upper(), char.title()}, key=len)
                forms = [f for f in forms if len(f) == 1] or [char]
                encoded_forms = sorted({f.encode("utf-8") for f in forms})
                self.longest += max(map(len, encoded_forms))
                if len(encoded_forms) == 1:
                    parts.append(re.escape(encoded_forms[0]))
                else:
                    parts.append(b"(?:" + b"|".join(map(re.escape, encoded_forms)) + b")")
            self._regex = re.compile(b"".join(parts), re.IGNORECASE)

    def text_pattern(self) -> re.Pattern[str]:
        """The same search over decoded text (to highlight matches on screen)."""
        flags = 0 if self.case_sensitive else re.IGNORECASE
        return re.compile(re.escape(self.query), flags)

    def first(self, data: bytes, end: int) -> tuple[int, int] | None:
        """(start, size) of the first match in ``data`` that starts before ``end``."""
        if self._regex is not None:
            found = self._regex.search(data, 0, min(len(data), end + self.longest - 1))
            return (found.start(), found.end() - found.start()) if found else None
        hay = data.lower() if self._lower else data
        at = hay.find(self._needle, 0, end + len(self._needle) - 1)
        return (at, len(self._needle)) if at >= 0 else None

    def last(self, data: bytes, end: int) -> tuple[int, int] | None:
        """(start, size) of the last match in ``data`` that starts before ``end``."""
        if self._regex is not None:
            stop = min(len(data), end + self.longest - 1)
            best, pos = None, 0
            while (found := self._regex.search(data, pos, stop)) is not None:
                best, pos = found, found.start() + 1
            return (best.start(), best.end() - best.start()) if best else None
        hay = data.lower() if self._lower else data
        at = hay.rfind(self._needle, 0, end + len(self._needle) - 1)
        return (at, len(self._needle)) if at >= 0 else None


@dataclass(frozen=True)
class Hit:
    """A match: where it is in the file and on its line."""

    byte: int
    size: int
    """Bytes of the match."""
    line: int
    column: int
    """Characters from the start of the line to the match."""
    length: int
    """Characters of the match."""
    wrapped: bool
    """The search went past the end (or the start) of the file and went on from the other."""


class _Scan:
    def __init__(
        self,
        fd: int,
        matcher: Matcher,
        chunk: int,
        cancel: threading.Event | None,
        progress: Progress | None,
        total: int,
    ) -> None:
        self.fd, self.matcher, self.chunk = fd, matcher, chunk
        self.cancel, self.progress, self.total = cancel, progress, total
        self.done = 0
        self.overlap = matcher.longest - 1

    def _step(self, size: int) -> None:
        self.done += size
        if self.progress is not None:
            self.progress(self.done, self.total)

    def _check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise SearchCancelled

    def forward(self, lo: int, hi: int) -> tuple[int, int] | None:
        """The first match starting in ``[lo, hi)``."""
        pos = lo
        while pos < hi:
            self._check()
            size = min(self.chunk, hi - pos)
            data = os.pread(self.fd, size + self.overlap, pos)
            found = self.matcher.first(data, size)
            self._step(size)
            if found is not None:
                return pos + found[0], found[1]
            pos += size
        return None

    def backward(self, lo: int, hi: int) -> tuple[int, int] | None:
        """The last match starting in ``[lo, hi)``."""
        end = hi
        while end > lo:
            self._check()
            start = max(lo, end - self.chunk)
            data = os.pread(self.fd, end - start + self.overlap, start)
            found = self.matcher.last(data, end - start)
            self._step(end - start)
            if found is not None:
                return start + found[0], found[1]
            end = start
        return None


def search_spill(
    path: Path,
    query: str,
    start: int,
    *,
    backward: bool = False,
    wrap: bool = True,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    chunk_bytes: int | None = None,
    shown: str | None = None,
) -> Hit | None:
    """The first match at byte ``start`` or after it (``backward``: the last one before it),
    wrapping around the file when ``wrap``; None when the query is nowhere. Raises
    ``SearchCancelled`` when ``cancel`` is set, ``SpillRefused`` when the spill is gone."""
    matcher = Matcher(query)
    with open_reader(path, shown or str(path)) as reader:
        size = reader.index.data_bytes
        start = max(0, min(start, size))
        chunk = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
        scan = _Scan(reader.fd, matcher, max(chunk, 1), cancel, progress, size)
        wrapped = False
        if backward:
            found = scan.backward(0, start)
            if found is None and wrap:
                found, wrapped = scan.backward(start, size), True
        else:
            found = scan.forward(start, size)
            if found is None and wrap:
                found, wrapped = scan.forward(0, start), True
        if found is None:
            return None
        byte, length = found
        line = line_of_byte(reader, byte)
        column = column_of_byte(reader, line, byte)
        chars = len(os.pread(reader.fd, length, byte).decode("utf-8", "surrogateescape"))
        return Hit(byte, length, line, column, chars, wrapped)
