"""One writer per session file: an advisory lock held while a process writes the session.

Two agent-tui processes appending to one session file interleave their turns (two prompts in a
row, duplicate call ids), and the next resume sends that merged transcript to the model. So
the process that writes a session holds an exclusive ``flock`` on ``<session>.jsonl.lock``
(beside it, holding the holder's pid for the message), released when the session is left or
the process ends — ``kill -9`` included: the kernel drops a dead process's locks, so a crash
never leaves a session locked. Where ``fcntl`` does not exist (Windows) there is no lock.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


class SessionLock:
    """The lock of one session file, held by this process (``claim``) or not."""

    def __init__(self, session_file: Path) -> None:
        self.path = session_file.with_name(session_file.name + ".lock")
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def claim(self) -> str | None:
        """Hold the lock; None when held now (or locks do not exist here), else who holds it
        (``pid 1234``), for the message. Never raises: a lock that cannot be made at all (a
        read-only data dir) is no reason to refuse a session that can still be read."""
        if self._fd is not None:
            return None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return None
        for _ in range(5):  # the file was replaced between our open and our lock: again
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError:
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                return holder
            except OSError:
                os.close(fd)
                return None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except OSError:
                same = False
            if not same:  # a releasing holder unlinked it after our open: lock the new one
                os.close(fd)
                continue
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            self._fd = fd
            return None
        return None

    def release(self) -> None:
        """Let the session go (idempotent): the lock file is removed while still held, so a
        process waiting on it retries on a fresh one."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(fd)


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return f"pid {text}" if text.isdigit() else "another process"
