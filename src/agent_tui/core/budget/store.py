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
``.gitignore`` keeps the directory out of version control. Which sessions reference which
spills is recorded beside them (``refs``, ``refs_writer``); ``cleanup`` deletes by it.

Every file is made with ``O_EXCL | O_NOFOLLOW`` and renamed relative to a descriptor of the
spill directory, which is reached from the workspace without following a link
(``spill_dir``): a symlinked ``.agent-spill`` (or ``.index``, or ``.gitignore``) is never
written through.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
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
from agent_tui.core.budget.refs_writer import SpillRefs
from agent_tui.core.budget.spill_dir import SpillDir
from agent_tui.core.state.nofollow import create_at

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


def name_part(part: str, limit: int = 40) -> str:
    """``part`` (a tool name or a call id) as it appears in a spill file name."""
    return _UNSAFE.sub("_", part).strip("_")[:limit] or "x"


def spill_name(tool: str, call_id: str, when: datetime, token: str) -> str:
    """``<UTC time>-<tool>-<call id>-<token>.txt``; its length does not depend on ``token``."""
    return f"{when:%Y%m%dT%H%M%S}Z-{name_part(tool)}-{name_part(call_id)}-{token}.txt"


def is_spill_name(name: str) -> bool:
    return SPILL_NAME.fullmatch(name) is not None


class SpillStore:
    """Spill files of one session directory (``spill_dir``: reached without following a link;
    a private fallback directory when the configured one is refused)."""

    def __init__(
        self,
        root: Path,
        cwd: Path,
        *,
        durable: bool = True,
        step: int = STEP,
        marks: tuple[int, int] = (MARK_LINES, MARK_BYTES),
    ) -> None:
        self.cwd = cwd
        self.dir = SpillDir(root if root.is_absolute() else cwd / root, cwd)
        self.durable = durable
        """fsync the data before the rename (a crash then never leaves a short file)."""
        self.step = step
        """Characters between index checkpoints inside long lines."""
        self.marks = marks
        """(lines, bytes) after which the index marks a line start (``index``)."""
        self.refs = SpillRefs(self.dir, durable=durable)
        """This process's reference record here (``refs_writer``): every spill is named in it
        from the moment its name is reserved."""

    @property
    def root(self) -> Path:
        """The directory spills go to: the configured one, or the fallback once it was
        refused (``problem``)."""
        return self.dir.path

    @property
    def problem(self) -> str | None:
        """Why the configured directory is not used (a link on the way), or None."""
        return self.dir.problem

    def take_problem(self) -> str | None:
        """``problem``, once (for the front ends)."""
        return self.dir.take_problem()

    def checked_root(self) -> Path:
        """``root`` after checking the way to it (a link found switches to the fallback)."""
        with contextlib.suppress(FileNotFoundError):
            os.close(self.dir.open(create=False))
        return self.root

    def open_dir(self, *sub: str, create: bool = False) -> int:
        """A descriptor of ``root/sub…`` reached without following a link (the caller closes
        it); ``FileNotFoundError`` when missing and not ``create``."""
        return self.dir.open(*sub, create=create)

    def shown(self, path: Path) -> str:
        absolute = Path(os.path.abspath(path))
        cwd = Path(os.path.abspath(self.cwd))
        if absolute.is_relative_to(cwd):
            return absolute.relative_to(cwd).as_posix()
        return str(absolute)

    def provisional(self, tool: str, call_id: str, when: datetime) -> str:
        """The path a spill of this call would get (same length as the real one)."""
        return self.shown(self.root / spill_name(tool, call_id, when, "0" * TOKEN_CHARS))

    def _prepare(self) -> tuple[int, int, Path]:
        """(directory, index directory, the directory's path): made as real directories when
        missing, with the ``.gitignore`` (created, never written through a link)."""
        fd, index_fd, root = self.dir.open_with(INDEX_DIR)
        with contextlib.suppress(OSError):  # FileExistsError: there already (or a link: left)
            ignore = create_at(fd, ".gitignore", 0o644)
            with os.fdopen(ignore, "wb") as fh:
                fh.write(b"# agent-tui spilled tool outputs\n*\n")
        return fd, index_fd, root

    def _reserve(self, fd: int, root: Path, tool: str, call_id: str, when: datetime) -> Path:
        """Create an empty placeholder under a fresh name, so no other writer can take it."""
        for _ in range(1000):
            token = secrets.token_hex(TOKEN_CHARS // 2)
            name = spill_name(tool, call_id, when, token)
            self.refs.add((name,))  # before the file exists: a spill on disk is always recorded
            try:
                os.close(create_at(fd, name, 0o644))
            except FileExistsError:
                continue
            return root / name
        raise FileExistsError(f"no free spill file name in {root}")

    def open_writer(
        self, tool: str, call_id: str, when: datetime | None = None, *, summary: str = ""
    ) -> SpillWriter:
        """A streaming writer; ``commit()`` it when the output is complete. ``summary`` is the
        call's input in one line (``core.calls.call_summary``), kept in the index."""
        when = when or datetime.now(UTC)
        fd, index_fd, root = self._prepare()
        try:
            path = self._reserve(fd, root, tool, call_id, when)
        except BaseException:
            os.close(fd)
            os.close(index_fd)
            raise
        meta = SpillMeta(summary=summary)
        return SpillWriter(self, path, tool, call_id, meta, (fd, index_fd))  # owns both now

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

    def listing(self, *sub: str) -> list[tuple[str, os.stat_result]]:
        """(name, ``lstat``) of the entries of ``root/sub…``, sorted by name; empty when it
        does not exist. Symlinks are listed as what they are (never followed)."""
        try:
            fd = self.dir.open(*sub, create=False)
        except OSError:
            return []
        try:
            out = []
            for name in sorted(os.listdir(fd)):
                with contextlib.suppress(OSError):
                    out.append((name, os.stat(name, dir_fd=fd, follow_symlinks=False)))
            return out
        finally:
            os.close(fd)

    def files(self) -> list[Path]:
        """The spill files present, oldest name first (regular files only: a link named like
        a spill is not one)."""
        root = self.root
        return [
            root / name
            for name, st in self.listing()
            if is_spill_name(name) and stat.S_ISREG(st.st_mode)
        ]

    def unlink(self, name: str, *sub: str) -> None:
        """Remove ``root/sub…/name`` (a link is removed, never what it points to)."""
        try:
            fd = self.dir.open(*sub, create=False)
        except FileNotFoundError:
            return
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=fd)
        finally:
            os.close(fd)

    def remove(self, path: Path) -> None:
        """Delete a spill file of this store and its index (only inside ``root``)."""
        self.unlink(index_path(path).name, INDEX_DIR)
        self.unlink(path.name)


class SpillWriter:
    """Writes one spill: data and index to temporary files, renamed into place on commit."""

    def __init__(
        self,
        store: SpillStore,
        path: Path,
        tool: str,
        call_id: str,
        meta: SpillMeta | None = None,
        fds: tuple[int, int] | None = None,
    ) -> None:
        self.store, self.path, self.tool, self.call_id = store, path, tool, call_id
        self.meta = meta or SpillMeta()
        if fds is None:
            fd, index_fd, _ = store._prepare()
        else:
            fd, index_fd = fds
        self._fd, self._index_fd = fd, index_fd
        """The spill directory and its index directory, as they were walked: every file of
        this spill is made and renamed relative to them."""
        tag = secrets.token_hex(4)
        self._data_tmp = f".tmp-{tag}-{path.name}"
        self._index_tmp = f".tmp-{tag}-{path.name}.idx"
        self._done = False
        try:
            data = create_at(fd, self._data_tmp, 0o644)
            self._data: BinaryIO = os.fdopen(data, "wb", buffering=WRITE_BUFFER)
            index = create_at(index_fd, self._index_tmp, 0o644)
            self._index: BinaryIO = os.fdopen(index, "w+b", buffering=WRITE_BUFFER)
        except BaseException:
            self.abort()
            raise
        lines, size = store.marks
        self._builder = IndexBuilder(self._index, store.step, mark_lines=lines, mark_bytes=size)

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

    def flush(self) -> None:
        """Push what was written to the file (a reader of ``open_reader`` then sees it)."""
        self._data.flush()

    def touch(self) -> None:
        """Mark the temporary files as fresh: a write that stays open for hours (a background
        job's) is not a leftover for ``cleanup`` to remove."""
        for fh in (self._data, self._index):
            with contextlib.suppress(OSError, ValueError):
                os.utime(fh.fileno())

    def open_reader(self) -> int:
        """A read-only descriptor of the data being written (the caller closes it): it stays
        valid when ``commit`` renames the file into place, so a growing output (a background
        job's) can be read while it is written and after."""
        return os.open(self._data_tmp, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=self._fd)

    def commit(self) -> SpillRecord:
        self._data.flush()
        if self.store.durable:
            os.fsync(self._data.fileno())
        mtime = os.fstat(self._data.fileno()).st_mtime_ns
        self._data.close()
        self._builder.finish(mtime, self.meta)
        self._index.flush()
        self._index.close()
        name = self.path.name
        index = self._index_fd
        os.replace(self._index_tmp, f"{name}.idx", src_dir_fd=index, dst_dir_fd=index)
        os.replace(self._data_tmp, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)  # placeholder
        self._done = True
        self._close_dirs()
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
        for fh in (getattr(self, "_data", None), getattr(self, "_index", None)):
            if fh is not None:
                with contextlib.suppress(OSError):
                    fh.close()
        victims = (
            (self._fd, self._data_tmp),
            (self._index_fd, self._index_tmp),
            (self._fd, self.path.name),
        )
        for fd, name in victims:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=fd)
        self._done = True
        self._close_dirs()

    def _close_dirs(self) -> None:
        for fd in (self._fd, self._index_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fd = self._index_fd = -1

    def __enter__(self) -> SpillWriter:
        return self

    def __exit__(self, *_: object) -> None:
        if not self._done:
            self.abort()
