"""The sidecar line index of a spill file: any window is found with a few seeks.

Layout (little-endian ``uint64`` everywhere)::

    header       magic, data bytes, data mtime (ns), chars, lines, newlines, marks,
                 checkpoints, step, meta bytes, mark lines, mark bytes
    marks        (line, byte offset of its start) pairs, sparse: a line start is marked once
                 ``mark lines`` lines or ``mark bytes`` bytes have passed since the last mark
                 (line 1 at byte 0 is not stored); any line's start is then a mark plus a
                 short scan of the data (under ``mark bytes`` bytes, ``mark lines`` newlines)
    checkpoints  (line, char in line, byte offset) triples inside long lines, every ``step``
                 characters of the text (every ``step`` bytes of raw bytes) once a line is
                 that long, so a character position deep inside a huge line is reached
                 without decoding the line from its start
    meta         what the spill is the output of (``SpillMeta``: the call's input summary), a
                 small UTF-8 JSON object

So the index is small beside its spill (16 bytes per 1,024 lines or 64 KiB, 24 per 32,768
characters of a long line: ~32 KB for the 2 million lines of ``seq 2000000``, where one
entry per line took 16 MB, more than the 14.9 MB spill). Indexes of the earlier layouts
(``AGTSPIX2``: one line start per line; ``AGTSPIX1``: the same without the meta) are read as
they are: each line start is its own mark, and nothing is scanned.

Characters are those of the data decoded as UTF-8 with ``surrogateescape``: a byte that is
not UTF-8 (the data is a tool's exact bytes, which need not be text) is one character, shown
``\\xNN`` by read_file as in any other file; a checkpoint's byte offset is always where that
decoding can restart, so decoding from it gives the same characters. (The earlier layouts
counted such a run of bytes as one U+FFFD: their checkpoints are off by that much inside a
long line that holds some.)

The reader (``reader``) never loads the tables: it ``pread``s the entries it needs, so paging
the last window of a 1 GB spill costs what paging the first one does. The header records the
data file's size and mtime; an index that does not match its data file is ignored (read_file
then scans the file like any other).
"""

from __future__ import annotations

import bisect
import codecs
import json
import os
import re
import struct
import sys
from array import array
from dataclasses import dataclass
from itertools import accumulate, islice
from pathlib import Path
from typing import BinaryIO

from agent_tui.core.text.summary import MAX_SUMMARY, one_line

MAGIC = b"AGTSPIX3"
HEADER = struct.Struct("<8sQQQQQQQQQQQ")
MAGIC_V2 = b"AGTSPIX2"
HEADER_V2 = struct.Struct("<8sQQQQQQQQ")
"""The layout with one line start per line: still read (spills outlive the version that
wrote them)."""
MAGIC_V1 = b"AGTSPIX1"
HEADER_V1 = struct.Struct("<8sQQQQQQQ")
"""The same before the meta."""
MARK_LINES = 1024
"""Lines between two marks at most: the most newlines a reader skips to reach a line."""
MARK_BYTES = 1 << 16
"""Bytes between two marks beyond which the next line start is marked: the most a reader
scans to reach a line (a line longer than this is followed by a mark)."""
MAX_META_BYTES = 4096
"""A meta larger than this is not read (ours is a few hundred bytes)."""
STEP = 32_768
"""Characters between checkpoints: the most a reader decodes to reach a position in a line."""
INDEX_DIR = ".index"
_FLUSH_ENTRIES = 1 << 16
_SWAP = sys.byteorder == "big"
_plus_one = (1).__add__
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def index_path(data_path: Path) -> Path:
    """Where the index of ``data_path`` lives: ``<dir>/.index/<name>.idx``."""
    return data_path.parent / INDEX_DIR / f"{data_path.name}.idx"


def _open_index(data_path: Path) -> int:
    """The index file of ``data_path``, opened without following a link at ``.index`` or at
    the index's own name (a planted one would make the reader take another file's index)."""
    index_dir = os.open(
        data_path.parent / INDEX_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    )
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
        return os.open(f"{data_path.name}.idx", flags, dir_fd=index_dir)
    finally:
        os.close(index_dir)


@dataclass(frozen=True)
class SpillMeta:
    """What a spill is the output of, beyond the tool and call id its name holds."""

    summary: str = ""
    """The call's input in one line (``core.calls.call_summary``): a command, a path, a pattern;
    at most ``MAX_SUMMARY`` characters, no control characters (whatever was given or read)."""

    def __post_init__(self) -> None:
        clean = _CONTROL.sub("\ufffd", one_line(self.summary, MAX_SUMMARY))
        object.__setattr__(self, "summary", clean)

    def encode(self) -> bytes:
        return json.dumps({"summary": self.summary}, ensure_ascii=False).encode("utf-8")

    @classmethod
    def decode(cls, raw: bytes) -> SpillMeta:
        """The meta in ``raw``; an empty one when it is not a JSON object (never an error)."""
        try:
            value = json.loads(raw.decode("utf-8", "replace"))
        except json.JSONDecodeError:
            return cls()
        summary = value.get("summary") if isinstance(value, dict) else None
        return cls(summary=summary if isinstance(summary, str) else "")


def _pack(values: array[int]) -> bytes:
    if _SWAP:
        values = array("Q", values)
        values.byteswap()
    return values.tobytes()


def _unpack(data: bytes) -> array[int]:
    values = array("Q")
    values.frombytes(data)
    if _SWAP:
        values.byteswap()
    return values


class IndexBuilder:
    """Builds the index while the data is written, piece by piece, into ``out``.

    Either ``feed`` takes consecutive pieces of a text with their UTF-8 bytes, a piece not
    crossing a multiple of ``step`` characters, or ``feed_raw`` takes consecutive pieces of
    any bytes, a piece not crossing a multiple of ``step`` bytes (the writer cuts pieces
    there); one builder does not mix them.
    """

    def __init__(
        self,
        out: BinaryIO,
        step: int = STEP,
        *,
        mark_lines: int = MARK_LINES,
        mark_bytes: int = MARK_BYTES,
    ) -> None:
        self.out = out
        self.step = step
        self.mark_lines = mark_lines
        self.mark_bytes = mark_bytes
        self.chars = 0
        self.bytes = 0
        self.newlines = 0
        self._line_start_char = 0
        self._last_start = 0
        self._mark = (1, 0)
        """The last mark: (line, byte); line 1 at 0 is implicit."""
        self._marks = array("Q")
        self.marks = 0
        self._checkpoints = array("Q")
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        out.write(bytes(HEADER.size))

    def _lines(self, text: str, data: bytes) -> None:
        """Record the line starts in ``data`` that are marks (``text`` is what it decodes to:
        a "\n" byte is never part of a character or of an undecodable sequence, so the last
        one in the bytes is the last one in the text)."""
        count = data.count(b"\n")
        if not count:
            return
        last_start = self.bytes + data.rindex(b"\n") + 1
        first_line = self.newlines + 2  # the line the first "\n" of ``data`` starts
        mark_line, mark_byte = self._mark
        if first_line + count - 1 - mark_line >= self.mark_lines or (
            last_start - mark_byte >= self.mark_bytes
        ):
            parts = data.split(b"\n")
            offsets = accumulate(map(_plus_one, map(len, parts)), initial=self.bytes)
            starts = list(islice(offsets, 1, count + 1))
            while True:
                by_lines = mark_line + self.mark_lines - first_line
                by_bytes = bisect.bisect_left(starts, mark_byte + self.mark_bytes)
                at = min(by_lines, by_bytes)
                if at >= count:
                    break
                mark_line, mark_byte = first_line + at, starts[at]
                self._marks.extend((mark_line, mark_byte))
                self.marks += 1
            self._mark = (mark_line, mark_byte)
            if len(self._marks) >= _FLUSH_ENTRIES:
                self.out.write(_pack(self._marks))
                self._marks = array("Q")
        self.newlines += count
        self._line_start_char = self.chars + text.rfind("\n") + 1
        self._last_start = last_start

    def feed(self, piece: str, data: bytes) -> None:
        self._lines(piece, data)
        self.chars += len(piece)
        self.bytes += len(data)
        if self.chars % self.step == 0:
            in_line = self.chars - self._line_start_char
            if in_line >= self.step:  # only inside a long line (a short one decodes whole)
                self._checkpoints.extend((self.newlines + 1, in_line, self.bytes))

    def feed_raw(self, data: bytes) -> None:
        """Bytes that need not be UTF-8: characters are counted as they decode with
        ``surrogateescape`` (a character cut between pieces is counted in the piece that
        completes it)."""
        text = self._decoder.decode(data)
        self._lines(text, data)
        self.chars += len(text)
        self.bytes += len(data)
        if self.bytes % self.step == 0:
            in_line = self.chars - self._line_start_char
            if in_line >= self.step // 4:  # inside a long line; where decoding restarts:
                # before the bytes of an unfinished character
                clean = self.bytes - len(self._decoder.getstate()[0])
                self._checkpoints.extend((self.newlines + 1, in_line, clean))

    @property
    def lines(self) -> int:
        return self.newlines + (1 if self.bytes > self._last_start else 0)

    def finish(self, data_mtime_ns: int, meta: SpillMeta | None = None) -> None:
        """Write the rest of the tables, the meta and the header (``out`` must be seekable)."""
        self.chars += len(self._decoder.decode(b"", final=True))  # raw bytes cut short
        lines = self.lines
        raw_meta = (meta or SpillMeta()).encode()
        self.out.write(_pack(self._marks))
        self.out.write(_pack(self._checkpoints))
        self.out.write(raw_meta)
        self.out.seek(0)
        self.out.write(
            HEADER.pack(
                MAGIC,
                self.bytes,
                data_mtime_ns,
                self.chars,
                lines,
                self.newlines,
                self.marks,
                len(self._checkpoints) // 3,
                self.step,
                len(raw_meta),
                self.mark_lines,
                self.mark_bytes,
            )
        )


@dataclass(frozen=True)
class _Header:
    data_bytes: int
    mtime: int
    chars: int
    lines: int
    newlines: int
    marks: int
    """Mark entries; in the earlier layouts, one per newline (each line start is one)."""
    checkpoints: int
    step: int
    meta_bytes: int
    mark_bytes: int
    """0 in the earlier layouts: every line start is a mark, nothing is scanned."""
    base: int
    """Where the marks begin: the size of the header."""
    mark_size: int
    """Bytes per mark entry: 16 (line, byte), or 8 (byte) in the earlier layouts."""

    @property
    def size(self) -> int:
        """What the index file weighs."""
        return self.base + self.mark_size * self.marks + 24 * self.checkpoints + self.meta_bytes


def _header(raw: bytes) -> _Header | None:
    """The header of any layout, or None when ``raw`` does not start an index."""
    if raw[:8] == MAGIC and len(raw) >= HEADER.size:
        size, mtime, chars, lines, newlines, marks, points, step, meta, _, mark_bytes = (
            HEADER.unpack(raw[: HEADER.size])[1:]
        )
        return _Header(
            size, mtime, chars, lines, newlines, marks, points, step, meta, mark_bytes,
            HEADER.size, 16,
        )  # fmt: skip
    for magic, layout in ((MAGIC_V2, HEADER_V2), (MAGIC_V1, HEADER_V1)):
        if raw[:8] == magic and len(raw) >= layout.size:
            fields = layout.unpack(raw[: layout.size])[1:]
            size, mtime, chars, lines, newlines, points, step = fields[:7]
            meta = fields[7] if len(fields) > 7 else 0
            return _Header(
                size, mtime, chars, lines, newlines, newlines, points, step, meta, 0,
                layout.size, 8,
            )  # fmt: skip
    return None


class SpillIndex:
    """Read access to one index file; entries are read with ``pread`` as needed."""

    def __init__(self, fd: int, header: _Header) -> None:
        self.fd = fd
        self._h = header
        self.data_bytes = header.data_bytes
        self.chars = header.chars
        self.lines = header.lines
        self.newlines = header.newlines
        self.checkpoints = header.checkpoints
        self.step = header.step
        self.mark_bytes = header.mark_bytes
        """Under this many bytes lie between a mark and any later line start before the next
        mark (0: every line start is a mark, the earlier layouts)."""
        self._checkpoints_at = header.base + header.mark_size * header.marks

    @classmethod
    def open_for(cls, data_path: Path, opened: int | None = None) -> SpillIndex | None:
        """The index of ``data_path`` if it exists and matches the file (``opened``: the
        descriptor of the file the caller opened as ``data_path``, judged instead of the name),
        else None."""
        try:
            # a link is no spill of ours
            st = (
                os.fstat(opened)
                if opened is not None
                else os.stat(data_path, follow_symlinks=False)
            )
            fd = _open_index(data_path)
        except OSError:
            return None
        try:
            header = _header(os.pread(fd, HEADER.size, 0))
            if (
                header is not None
                and header.data_bytes == st.st_size
                and header.mtime == st.st_mtime_ns
                and os.fstat(fd).st_size == header.size
            ):
                return cls(fd, header)
        except OSError:
            pass
        os.close(fd)
        return None

    @property
    def size(self) -> int:
        """Bytes of the index file."""
        return self._h.size

    def meta(self) -> SpillMeta:
        """What the spill is the output of (empty for an old index, or one too large)."""
        if not 0 < self._h.meta_bytes <= MAX_META_BYTES:
            return SpillMeta()
        at = self._checkpoints_at + 24 * self.checkpoints
        return SpillMeta.decode(os.pread(self.fd, self._h.meta_bytes, at))

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> SpillIndex:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _mark(self, i: int) -> tuple[int, int]:
        """Mark entry ``i`` (0-based): (line, byte of its start)."""
        h = self._h
        if h.mark_size == 8:  # one entry per newline: entry i starts line i + 2
            return i + 2, int(_unpack(os.pread(self.fd, 8, h.base + 8 * i))[0])
        line, byte = _unpack(os.pread(self.fd, 16, h.base + 16 * i))
        return int(line), int(byte)

    def mark_for_line(self, line: int) -> tuple[int, int]:
        """The last mark at or before ``line``: (its line, the byte where it starts)."""
        lo, hi = 0, self._h.marks  # marks whose line is at most ``line``
        if self._h.mark_size == 8:
            lo = hi = max(0, min(line - 1, hi))  # the entries are the lines: no search
        while lo < hi:
            mid = (lo + hi) // 2
            if self._mark(mid)[0] <= line:
                lo = mid + 1
            else:
                hi = mid
        return self._mark(lo - 1) if lo else (1, 0)

    def mark_for_byte(self, byte: int) -> tuple[int, int]:
        """The last mark starting at or before ``byte``: a binary search, one ``pread`` per
        step (about 24 for 13 million entries), never a count from the start."""
        lo, hi = 0, self._h.marks
        while lo < hi:
            mid = (lo + hi) // 2
            if self._mark(mid)[1] <= byte:
                lo = mid + 1
            else:
                hi = mid
        return self._mark(lo - 1) if lo else (1, 0)

    def checkpoint_before(self, byte: int) -> tuple[int, int, int] | None:
        """The last ``(line, char in line, byte)`` checkpoint at or before ``byte``."""
        lo, hi = 0, self.checkpoints
        while lo < hi:
            mid = (lo + hi) // 2
            if self._checkpoint(mid)[2] <= byte:
                lo = mid + 1
            else:
                hi = mid
        return self._checkpoint(lo - 1) if lo else None

    def _checkpoint(self, i: int) -> tuple[int, int, int]:
        line, char, byte = _unpack(os.pread(self.fd, 24, self._checkpoints_at + 24 * i))
        return int(line), int(char), int(byte)

    def checkpoint(self, line: int, char: int) -> tuple[int, int] | None:
        """The last ``(char, byte)`` checkpoint of ``line`` at or before ``char``."""
        lo, hi = 0, self.checkpoints
        while lo < hi:  # first checkpoint after (line, char)
            mid = (lo + hi) // 2
            if self._checkpoint(mid)[:2] <= (line, char):
                lo = mid + 1
            else:
                hi = mid
        if lo == 0:
            return None
        found_line, found_char, byte = self._checkpoint(lo - 1)
        return (found_char, byte) if found_line == line else None
