"""The sidecar line index of a spill file: any window is found with a few seeks.

Layout (little-endian ``uint64`` everywhere)::

    header       magic, data bytes, data mtime (ns), chars, lines, newlines, checkpoints, step,
                 meta bytes
    line starts  one entry per ``\\n`` in the data: the byte offset just after it
    checkpoints  (line, char in line, byte offset) triples inside long lines, every ``step``
                 characters of the text (every ``step`` bytes of raw bytes), so a character
                 position deep inside a huge line is reached without decoding the line from
                 its start
    meta         what the spill is the output of (``SpillMeta``: the call's input summary), a
                 small UTF-8 JSON object

Indexes written before the meta existed (magic ``AGTSPIX1``: no meta field, no meta) are read
as they are, with an empty ``SpillMeta``.

Characters are those of the data decoded as UTF-8 with U+FFFD for what is not UTF-8 (the
data is a tool's exact bytes, which need not be text); a checkpoint's byte offset is always
where that decoding can restart, so decoding from it gives the same characters.

Line ``n`` (1-based) starts at 0 for ``n == 1``, else at line-starts entry ``n - 2``. The
reader never loads the tables: it ``pread``s the entries it needs, so paging the last window
of a 1 GB spill costs what paging the first one does. The header records the data file's size
and mtime; an index that does not match its data file is ignored (read_file then scans the
file like any other).
"""

from __future__ import annotations

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

from agent_tui.core.summary import MAX_SUMMARY, one_line

MAGIC = b"AGTSPIX2"
HEADER = struct.Struct("<8sQQQQQQQQ")
MAGIC_V1 = b"AGTSPIX1"
HEADER_V1 = struct.Struct("<8sQQQQQQQ")
"""The layout before the meta: still read (spills outlive the version that wrote them)."""
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
    """The call's input in one line (``core.call_summary``): a command, a path, a pattern;
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

    def __init__(self, out: BinaryIO, step: int = STEP) -> None:
        self.out = out
        self.step = step
        self.chars = 0
        self.bytes = 0
        self.newlines = 0
        self._line_start_char = 0
        self._last_start = 0
        self._starts = array("Q")
        self._checkpoints = array("Q")
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        out.write(bytes(HEADER.size))

    def _lines(self, text: str, data: bytes) -> None:
        """Record the line starts in ``data`` (``text`` is what it decodes to: a "\n" byte is
        never part of a character or of an undecodable sequence, so the last one in the bytes
        is the last one in the text)."""
        count = data.count(b"\n")
        if not count:
            return
        parts = data.split(b"\n")
        offsets = accumulate(map(_plus_one, map(len, parts)), initial=self.bytes)
        self._starts.extend(islice(offsets, 1, count + 1))
        self.newlines += count
        self._line_start_char = self.chars + text.rfind("\n") + 1
        self._last_start = self._starts[-1]
        if len(self._starts) >= _FLUSH_ENTRIES:
            self.out.write(_pack(self._starts))
            self._starts = array("Q")

    def feed(self, piece: str, data: bytes) -> None:
        self._lines(piece, data)
        self.chars += len(piece)
        self.bytes += len(data)
        if self.chars % self.step == 0:
            in_line = self.chars - self._line_start_char
            if in_line > 0:
                self._checkpoints.extend((self.newlines + 1, in_line, self.bytes))

    def feed_raw(self, data: bytes) -> None:
        """Bytes that need not be UTF-8: characters are counted as they decode with U+FFFD
        (a character cut between pieces is counted in the piece that completes it)."""
        text = self._decoder.decode(data)
        self._lines(text, data)
        self.chars += len(text)
        self.bytes += len(data)
        if self.bytes % self.step == 0:
            in_line = self.chars - self._line_start_char
            if in_line > 0:  # where decoding restarts: before the bytes of an unfinished char
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
        self.out.write(_pack(self._starts))
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
                len(self._checkpoints) // 3,
                self.step,
                len(raw_meta),
            )
        )


def _header(raw: bytes) -> tuple[int, ...] | None:
    """(data bytes, mtime, chars, lines, newlines, checkpoints, step, meta bytes, header size)
    of either layout, or None when ``raw`` does not start an index."""
    if raw[:8] == MAGIC and len(raw) == HEADER.size:
        return (*HEADER.unpack(raw)[1:], HEADER.size)
    if raw[:8] == MAGIC_V1 and len(raw) >= HEADER_V1.size:
        return (*HEADER_V1.unpack(raw[: HEADER_V1.size])[1:], 0, HEADER_V1.size)
    return None


@dataclass
class SpillIndex:
    """Read access to one index file; entries are read with ``pread`` as needed."""

    fd: int
    data_bytes: int
    chars: int
    lines: int
    newlines: int
    checkpoints: int
    step: int
    base: int = HEADER.size
    """Where the line starts begin: the size of the header (the old one is shorter)."""
    meta_bytes: int = 0

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
            if header is not None:
                size, mtime, chars, lines, newlines, points, step, meta, base = header
                expected = base + 8 * newlines + 24 * points + meta
                if (
                    size == st.st_size
                    and mtime == st.st_mtime_ns
                    and os.fstat(fd).st_size == expected
                ):
                    return cls(fd, size, chars, lines, newlines, points, step, base, meta)
        except OSError:
            pass
        os.close(fd)
        return None

    def meta(self) -> SpillMeta:
        """What the spill is the output of (empty for an old index, or one too large)."""
        if not 0 < self.meta_bytes <= MAX_META_BYTES:
            return SpillMeta()
        at = self.base + 8 * self.newlines + 24 * self.checkpoints
        return SpillMeta.decode(os.pread(self.fd, self.meta_bytes, at))

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> SpillIndex:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _starts(self, first: int, count: int) -> array[int]:
        """Line-starts entries ``first .. first + count - 1`` (0-based, clipped)."""
        count = max(0, min(count, self.newlines - first))
        if count == 0:
            return array("Q")
        return _unpack(os.pread(self.fd, 8 * count, self.base + 8 * first))

    def spans(self, first_line: int, count: int) -> list[tuple[int, int]]:
        """``(start, end)`` byte spans of lines ``first_line ..`` (end excludes the ``\\n``)."""
        last_line = min(first_line + count - 1, self.lines)
        if first_line > last_line:
            return []
        # Entry k is the start of line k + 2; the end of line n is the start of line n + 1 - 1.
        entries = self._starts(max(first_line - 2, 0), last_line - first_line + 2)
        starts = ([0] if first_line == 1 else []) + list(entries)
        spans = []
        for n in range(first_line, last_line + 1):
            start = starts[n - first_line]
            nxt = n - first_line + 1
            end = starts[nxt] - 1 if nxt < len(starts) else self.data_bytes
            spans.append((start, end))
        return spans

    def line_start(self, line: int) -> int:
        """The byte offset where ``line`` (1-based) starts."""
        if line <= 1:
            return 0
        return int(self._starts(min(line, self.newlines + 1) - 2, 1)[0])

    def line_at(self, byte: int) -> int:
        """The line holding byte ``byte``: a binary search of the line starts, one ``pread``
        per step (about 24 for 13 million lines), never a count from the start."""
        lo, hi = 0, self.newlines  # number of line starts (after the first) at or before byte
        while lo < hi:
            mid = (lo + hi) // 2
            if self._starts(mid, 1)[0] <= byte:
                lo = mid + 1
            else:
                hi = mid
        return lo + 1

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
        base = self.base + 8 * self.newlines + 24 * i
        line, char, byte = _unpack(os.pread(self.fd, 24, base))
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
