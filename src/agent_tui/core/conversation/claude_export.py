"""The session as Claude Code's transcript, for hooks written for Claude Code (``ClaudeExport``).

A hook's ``transcript_path`` is this file: ``<session dir>/<session id>.jsonl``, beside the
session file in the session's own directory (the agent's state: sealed in the sandbox, so a
sandboxed command can neither read nor rewrite it). Its lines are Claude Code's
(``core.claude.transcript``), made from the session file's lines.

It is kept current before each hook runs (``refresh``, blocking: the hooks call it in a
thread), cheaply: only the session file's bytes past the last refresh are read, and only their
entries are appended (whole lines in one write). The first refresh of a process builds the file
whole (a resumed session, a fork: its copied history) into a temporary file renamed over it.
So does a refresh that finds the file not as it left it (another program wrote, truncated or
replaced it; its size, inode and change time are checked before each append): a hook never
reads entries planted by something else.

Nothing is lost and nothing raises: a write that fails is cut back off the file, the session's
lines are read again at the next refresh, and the failure is logged (once for a run of them);
the hook gets the file as it is (or ``None``: no export yet). The session file is never
written here.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_tui.core.checkpoints.records import Rewound
from agent_tui.core.claude.transcript import Chain
from agent_tui.core.conversation.compaction import Compacted, summary_message
from agent_tui.core.transcript import Message

log = logging.getLogger(__name__)

_Mark = tuple[int, int, int, int, int]
"""What the export's ``stat`` was after this process last wrote it: device, inode, size,
modification and change time."""


@dataclass(frozen=True)
class Refreshed:
    """What a refresh did: the file a hook gets (None: none yet), the session's bytes it read,
    the entries it wrote, whether it built the file whole, and why it failed (None: it did
    not)."""

    path: Path | None
    read: int = 0
    written: int = 0
    rebuilt: bool = False
    problem: str | None = None


class ClaudeExport:
    """The Claude Code transcript of one session file (``source``), kept at ``target``."""

    def __init__(self, source: Path, target: Path, session_id: str, cwd: str) -> None:
        self.source = source
        self.target = target
        self._session_id = session_id
        self._cwd = cwd
        self._lock = threading.Lock()
        self._offset = 0
        """Bytes of the session file turned into entries so far."""
        self._chain = Chain(session_id, cwd)
        self._mark: _Mark | None = None
        self._failing = False

    def refresh(self) -> Refreshed:
        """Bring the export up to date with the session file (blocking; any thread)."""
        with self._lock:
            try:
                done = self._refresh()
            except (OSError, ValueError) as exc:
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                problem = f"the Claude Code transcript {self.target} could not be updated: {why}"
                if not self._failing:  # once for a run of failures
                    log.warning("%s; hooks read it as it is", problem)
                self._failing = True
                return Refreshed(self._existing(), problem=problem)
            self._failing = False
            return done

    def _existing(self) -> Path | None:
        """The export as this process last left it, or None (never written, or changed by
        another program since: a hook does not read what something else planted)."""
        return self.target if self._mark is not None and self._still_ours() else None

    def _refresh(self) -> Refreshed:
        fd = os.open(self.source, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        try:
            size = os.fstat(fd).st_size
            if self._mark is None or size < self._offset or not self._still_ours():
                return self._rebuild(fd)
            if size == self._offset:
                return Refreshed(self.target)
            data = os.pread(fd, size - self._offset, self._offset)
        finally:
            os.close(fd)
        whole = data[: data.rfind(b"\n") + 1]  # a line being written is read next time
        if not whole:
            return Refreshed(self.target, read=len(data))
        made, live = self._chain.made, list(self._chain.live)
        try:
            lines = self._entries(whole)
            self._append(lines)
        except BaseException:
            self._chain.made, self._chain.live = made, live  # read again next time
            raise
        self._offset += len(whole)
        return Refreshed(self.target, read=len(data), written=len(lines))

    def _still_ours(self) -> bool:
        try:
            return _mark(os.stat(self.target, follow_symlinks=False)) == self._mark
        except OSError:
            return False

    def _rebuild(self, fd: int) -> Refreshed:
        """Build the whole export anew into a temporary file renamed over the old one."""
        size = os.fstat(fd).st_size
        data = os.pread(fd, size, 0) if size else b""
        whole = data[: data.rfind(b"\n") + 1]
        self._chain = Chain(self._session_id, self._cwd)
        self._offset, self._mark = 0, None
        lines = self._entries(whole)
        self.target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        out, name = tempfile.mkstemp(dir=self.target.parent, prefix=".claude-", suffix=".tmp")
        try:
            _write_all(out, b"".join(lines))
            os.replace(name, self.target)
            mark = _mark(os.fstat(out))  # after the rename, which changes its ctime
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(name)
            self._chain = Chain(self._session_id, self._cwd)
            raise
        finally:
            os.close(out)
        self._offset, self._mark = len(whole), mark
        return Refreshed(self.target, read=len(data), written=len(lines), rebuilt=True)

    def _append(self, lines: list[bytes]) -> None:
        """Append ``lines`` in one write; a failed write is cut back off (``OSError``)."""
        assert self._mark is not None
        fd = os.open(self.target, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW)
        try:
            if _mark(os.fstat(fd)) != self._mark:
                raise OSError(0, "changed by another program while being opened")
            try:
                _write_all(fd, b"".join(lines))
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, self._mark[2])
                    self._mark = _mark(os.fstat(fd))
                raise
            self._mark = _mark(os.fstat(fd))
        finally:
            os.close(fd)

    def _entries(self, data: bytes) -> list[bytes]:
        """Claude Code's lines for the session file's whole lines ``data``."""
        out: list[bytes] = []
        for raw in data.split(b"\n"):
            entry = _parsed(raw)
            if entry is None:
                continue  # a broken line: the session's reader skips it too
            for line in self._apply(entry):
                out.append(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n")
        return out

    def _apply(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        kind = entry.get("type")
        try:
            if kind == "message":
                return self._chain.message(Message.model_validate(entry.get("message")))
            if kind == "compaction":
                folding = Compacted.model_validate(entry.get("record"))
                return self._chain.message(summary_message(folding))
            if kind == "checkpoint":
                record = entry.get("entry")
                if isinstance(record, dict) and record.get("kind") == "rewind":
                    rewind = Rewound.model_validate(record)
                    if rewind.messages is not None:
                        self._chain.rewound(rewind.messages)
        except ValidationError:
            pass  # a line the session's reader skips too
        return []


def _parsed(raw: bytes) -> dict[str, Any] | None:
    if not raw.strip():
        return None
    try:
        entry = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        return None
    return entry if isinstance(entry, dict) else None


def _mark(st: os.stat_result) -> _Mark:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


__all__ = ["ClaudeExport", "Refreshed"]
