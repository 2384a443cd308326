"""The spill store: full tool outputs saved byte for byte, atomically, with a line index.

One file per spilled call, named so a human can tell when and from what it came::

    .agent-spill/20260105T142233Z-run_shell-call_2_1-7f3a.txt
    .agent-spill/.index/20260105T142233Z-run_shell-call_2_1-7f3a.txt.idx

The index also keeps what the output is of: the call's input in one line (its command, path
or pattern), so the spill browser can say it once the transcript is gone.

A text is written as its exact UTF-8 bytes (CRLF and every other character kept; a lone
surrogate, which UTF-8 cannot hold, becomes ``?``); a tool's raw bytes (``RawOutput``: what a
command wrote, valid UTF-8 or not) are written as they are. Either is streamed in pieces so a
huge output never exists twice in memory, into a temporary file that is renamed into place
when complete. The sidecar index (``index.py``) is built during the same pass. A
``.gitignore`` keeps the directory out of version control.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from agent_tui.core.budget.index import (
    INDEX_DIR,
    MARK_BYTES,
    MARK_LINES,
    STEP,
    IndexBuilder,
    SpillMeta,
    index_path,
)

WRITE_BUFFER = 1 << 20
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
TOKEN_CHARS = 4
SPILL_NAME = re.compile(r"\d{8}T\d{6}Z-[A-Za-z0-9_-]+?-[0-9a-f]{4}\.txt")
"""The file names spill_name() makes: only such files are ever listed or deleted."""


@dataclass(frozen=True)
class SpillRecord:
    """A saved output. ``shown`` is the path as the model sees it (relative to the cwd)."""

    path: Path
    shown: str
    chars: int
    lines: int
    bytes: int
    tool: str
    call_id: str
    summary: str = ""
    """The call's input in one line, as the index keeps it (empty when not given)."""


def _safe(part: str, limit: int = 40) -> str:
    return _UNSAFE.sub("_", part).strip("_")[:limit] or "x"


def spill_name(tool: str, call_id: str, when: datetime, token: str) -> str:
    """``<UTC time>-<tool>-<call id>-<token>.txt``; its length does not depend on ``token``."""
    return f"{when:%Y%m%dT%H%M%S}Z-{_safe(tool)}-{_safe(call_id)}-{token}.txt"


def is_spill_name(name: str) -> bool:
    return SPILL_NAME.fullmatch(name) is not None


class SpillStore:
    """Spill files of one session directory."""

    def __init__(
        self,
        root: Path,
        cwd: Path,
        *,
        durable: bool = True,
        step: int = STEP,
        marks: tuple[int, int] = (MARK_LINES, MARK_BYTES),
    ) -> None:
        self.root = root if root.is_absolute() else cwd / root
        self.cwd = cwd
        self.durable = durable
        """fsync the data before the rename (a crash then never leaves a short file)."""
        self.step = step
        """Characters between index checkpoints inside long lines."""
        self.marks = marks
        """(lines, bytes) after which the index marks a line start (``index``)."""

    def shown(self, path: Path) -> str:
        absolute = Path(os.path.abspath(path))
        cwd = Path(os.path.abspath(self.cwd))
        if absolute.is_relative_to(cwd):
            return absolute.relative_to(cwd).as_posix()
        return str(absolute)

    def provisional(self, tool: str, call_id: str, when: datetime) -> str:
        """The path a spill of this call would get (same length as the real one)."""
        return self.shown(self.root / spill_name(tool, call_id, when, "0" * TOKEN_CHARS))

    def _prepare(self) -> None:
        (self.root / INDEX_DIR).mkdir(parents=True, exist_ok=True)
        ignore = self.root / ".gitignore"
        if not ignore.exists():
            with contextlib.suppress(OSError):
                ignore.write_text("# agent-tui spilled tool outputs\n*\n", encoding="utf-8")

    def _reserve(self, tool: str, call_id: str, when: datetime) -> Path:
        """Create an empty placeholder under a fresh name, so no other writer can take it."""
        self._prepare()
        for _ in range(1000):
            token = secrets.token_hex(TOKEN_CHARS // 2)
            path = self.root / spill_name(tool, call_id, when, token)
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            except FileExistsError:
                continue
            return path
        raise FileExistsError(f"no free spill file name in {self.root}")

    def open_writer(
        self, tool: str, call_id: str, when: datetime | None = None, *, summary: str = ""
    ) -> SpillWriter:
        """A streaming writer; ``commit()`` it when the output is complete. ``summary`` is the
        call's input in one line (``core.call_summary``), kept in the index."""
        when = when or datetime.now(UTC)
        path = self._reserve(tool, call_id, when)
        return SpillWriter(self, path, tool, call_id, SpillMeta(summary=summary))

    def write(
        self,
        text: str,
        tool: str,
        call_id: str,
        when: datetime | None = None,
        *,
        summary: str = "",
    ) -> SpillRecord:
        """Save ``text`` in one go (streamed to disk in pieces). Blocking: use a thread."""
        with self.open_writer(tool, call_id, when, summary=summary) as writer:
            writer.write(text)
            return writer.commit()

    def write_bytes(
        self,
        chunks: Iterable[bytes],
        tool: str,
        call_id: str,
        when: datetime | None = None,
        *,
        summary: str = "",
    ) -> SpillRecord:
        """Save these bytes exactly (``RawOutput.chunks()``). Blocking: use a thread."""
        with self.open_writer(tool, call_id, when, summary=summary) as writer:
            for chunk in chunks:
                writer.write_bytes(chunk)
            return writer.commit()

    def files(self) -> list[Path]:
        """The spill files present, oldest name first."""
        try:
            entries = sorted(os.listdir(self.root))
        except OSError:
            return []
        return [self.root / n for n in entries if is_spill_name(n) and (self.root / n).is_file()]

    def remove(self, path: Path) -> None:
        for victim in (index_path(path), path):
            with contextlib.suppress(FileNotFoundError):
                victim.unlink()


class SpillWriter:
    """Writes one spill: data and index to temporary files, renamed into place on commit."""

    def __init__(
        self,
        store: SpillStore,
        path: Path,
        tool: str,
        call_id: str,
        meta: SpillMeta | None = None,
    ) -> None:
        self.store, self.path, self.tool, self.call_id = store, path, tool, call_id
        self.meta = meta or SpillMeta()
        tag = secrets.token_hex(4)
        self._data_tmp = path.with_name(f".tmp-{tag}-{path.name}")
        self._index_tmp = index_path(path).with_name(f".tmp-{tag}-{path.name}.idx")
        self._data: BinaryIO = open(self._data_tmp, "xb", buffering=WRITE_BUFFER)  # noqa: SIM115
        self._index: BinaryIO = open(self._index_tmp, "x+b", buffering=WRITE_BUFFER)  # noqa: SIM115
        lines, size = store.marks
        self._builder = IndexBuilder(self._index, store.step, mark_lines=lines, mark_bytes=size)
        self._done = False

    def write(self, text: str) -> None:
        """More of a text (not after ``write_bytes``)."""
        builder, step, pos, size = self._builder, self._builder.step, 0, len(text)
        while pos < size:
            room = step - builder.chars % step
            piece = text[pos : pos + room]
            data = piece.encode("utf-8", "replace")
            self._data.write(data)
            builder.feed(piece, data)
            pos += len(piece)

    def write_bytes(self, data: bytes) -> None:
        """More bytes, written exactly as they are (not after ``write``)."""
        builder, step, pos, size = self._builder, self._builder.step, 0, len(data)
        while pos < size:
            room = step - builder.bytes % step
            piece = data[pos : pos + room]
            self._data.write(piece)
            builder.feed_raw(piece)
            pos += len(piece)

    def commit(self) -> SpillRecord:
        self._data.flush()
        if self.store.durable:
            os.fsync(self._data.fileno())
        mtime = os.fstat(self._data.fileno()).st_mtime_ns
        self._data.close()
        self._builder.finish(mtime, self.meta)
        self._index.flush()
        self._index.close()
        os.replace(self._index_tmp, index_path(self.path))
        os.replace(self._data_tmp, self.path)  # over our own placeholder
        self._done = True
        builder = self._builder
        return SpillRecord(
            path=self.path,
            shown=self.store.shown(self.path),
            chars=builder.chars,
            lines=builder.lines,
            bytes=builder.bytes,
            tool=self.tool,
            call_id=self.call_id,
            summary=self.meta.summary,
        )

    def abort(self) -> None:
        for fh in (self._data, self._index):
            with contextlib.suppress(OSError):
                fh.close()
        for victim in (self._data_tmp, self._index_tmp, self.path):
            with contextlib.suppress(FileNotFoundError):
                victim.unlink()
        self._done = True

    def __enter__(self) -> SpillWriter:
        return self

    def __exit__(self, *_: object) -> None:
        if not self._done:
            self.abort()
