"""The seals of session files (``core.state.seals``): made at creation, renewed by each append
that finds the file as agent-tui left it, checked before a session is loaded.

An append is sealed in two writes of the seal around the one write of the lines: first the
append as *pending* (the size and hash the file will have, and when the write began), then the
file as it is after it. A process killed between the two — or in the middle of the lines, or
after a write cut short and cut back (disk full) — leaves its file as the pending record
describes, so the next load takes it as agent-tui's (``state_seal.verify``) and seals it again;
nothing a crash leaves asks the user to accept their own session.

The writer keeps the state it last sealed and the running SHA-256 of the file in memory
(``Keeper``): an append that finds the file exactly as it left it (same inode, size, change
time) costs no read of the file or of its seal; any other state is judged as a load would,
reading the file once."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from agent_tui.core.state.nofollow import create_at, write_all
from agent_tui.core.state.seals import (
    Digest,
    Doubted,
    Pending,
    Seal,
    State,
    Verified,
    open_parent,
    open_seal,
    put_seal,
    read_all,
    read_seal,
    seal_name,
    sha256,
    verified,
    verify,
    write_seal,
)


class SessionDoubted(OSError):
    """A saved session that is not loaded: not as agent-tui last wrote it."""

    def __init__(self, path: Path, why: str, latest_of: Path | None = None) -> None:
        self.path, self.why = path, why
        self.id = path.stem.rsplit("-", 1)[-1]
        which = (
            f"the latest session of {latest_of}, {self.id} ({path}),"
            if latest_of is not None
            else f"the session {self.id} ({path})"
        )
        super().__init__(
            errno.EPERM,
            f"{which} {why}: it is not loaded, since a session file put there or changed by "
            "another program could put words in your mouth (its messages go to the model as "
            "yours). If you restored or edited it yourself (or a power cut hit agent-tui in "
            "the middle of saving it), read it and accept it with `agent-tui trust --session "
            f"{self.id}`, then load it again",
            str(path),
        )

    def __str__(self) -> str:
        return str(self.strerror)


def whole_lines(tail: bytes) -> bool:
    """Whether ``tail`` is what an unfinished append can leave: a line break, whole entries
    (JSON objects, one a line), the last one possibly cut off."""
    *whole, _cut = tail.split(b"\n")
    for line in whole:
        if not line:
            continue
        try:
            entry = json.loads(line.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            return False
        if not isinstance(entry, dict):
            return False
    return True


def read_session(path: Path) -> Verified:
    """The session file ``path`` read whole and checked against its seal, under the writers'
    lock; a crash's pending append is taken and sealed again. ``Doubted`` when it is not as
    agent-tui wrote it, ``FileNotFoundError`` when it does not exist."""
    dir_fd = open_parent(path)
    try:
        with verified(dir_fd, path.name, tail_ok=whole_lines, lock=True) as found:
            if found.recovered and found.locked:
                with contextlib.suppress(OSError):  # a read-only data dir: loaded all the same
                    write_seal(dir_fd, path.name, Seal(found.state))
            return found
    finally:
        os.close(dir_fd)


class Keeper:
    """What the writer of one session file knows of it: the state it last sealed and the
    running hash of its bytes (None until known)."""

    def __init__(self, path: Path, found: Verified | None = None) -> None:
        self.path = path
        self.state: State | None = found.state if found is not None else None
        self.digest: Digest | None = found.digest if found is not None else None
        self._refused: tuple[int, int] | None = None
        """The seal (inode, change time) a judgement found no match in: not read again."""

    def adopt(self, state: State, digest: Digest) -> None:
        self.state, self.digest = state, digest

    def knows(self, st: os.stat_result) -> bool:
        """Whether the file of ``st`` is exactly as this writer sealed it last."""
        return self.state is not None and self.digest is not None and self.state.describes(st)

    def judge(self, dir_fd: int, fd: int, st: os.stat_result) -> bool:
        """Whether the file (open as ``fd``, now ``st``) can be vouched for: as this writer
        left it, or as its seal says (another agent-tui process, ``agent-tui trust
        --session``, a crash's pending append). Reads the file unless it is as left."""
        if self.knows(st):
            return True
        try:
            seal_st = os.stat(seal_name(self.path.name), dir_fd=dir_fd, follow_symlinks=False)
            if (seal_st.st_ino, seal_st.st_ctime_ns) == self._refused:
                return False  # the same seal as the last time: no match still
            seal = read_seal(dir_fd, self.path.name)
        except (OSError, ValueError):
            return False
        found = verify(seal, st, read_all(fd, st.st_size), tail_ok=whole_lines)
        if found is None:
            self._refused = (seal_st.st_ino, seal_st.st_ctime_ns)
            return False
        self.adopt(found.state, found.digest)
        return True

    def begin(self, fd: int) -> Append:
        """An append to the file open as ``fd`` (under the writers' ``flock``)."""
        return Append(self, fd)


class Append:
    """One append's seal work: ``ours`` (the file can be vouched for), ``pending`` before the
    write, ``done`` after it, ``undone`` after a failed write was cut back off."""

    def __init__(self, keeper: Keeper, fd: int) -> None:
        self.keeper, self.fd = keeper, fd
        self.st = os.fstat(fd)
        self.size = self.st.st_size
        self.seal_fd: int | None = None
        self.after: Digest | None = None
        dir_fd = open_parent(keeper.path)
        try:
            self.ours = keeper.judge(dir_fd, fd, self.st)
            if self.ours:
                self.seal_fd = open_seal(dir_fd, keeper.path.name)
        except OSError:  # a seal that cannot be written (a link there): saved, not vouched for
            self.ours = False
        finally:
            os.close(dir_fd)

    def pending(self, data: bytes) -> None:
        """Record the append of ``data`` as under way."""
        keeper = self.keeper
        if self.seal_fd is None or keeper.digest is None:
            return
        after = keeper.digest.copy()
        after.update(data)
        self.after = after
        size = self.size + len(data)
        record = Pending(self.st.st_ino, size, after.hexdigest(), time.time_ns())
        put_seal(self.seal_fd, Seal(keeper.state, record))

    def done(self) -> None:
        """The write landed: seal the file as it is now."""
        if self.seal_fd is None or self.after is None:
            return
        state = State.of(os.fstat(self.fd), self.after.hexdigest())
        put_seal(self.seal_fd, Seal(state))
        self.keeper.adopt(state, self.after)  # not before: a failed seal cuts the write back

    def undone(self) -> None:
        """The write failed and was cut back off: the content is as before, sealed again."""
        keeper = self.keeper
        if self.seal_fd is None or keeper.state is None or keeper.digest is None:
            return
        state = State.of(os.fstat(self.fd), keeper.state.sha256)
        keeper.adopt(state, keeper.digest)
        put_seal(self.seal_fd, Seal(state))

    def close(self) -> None:
        if self.seal_fd is not None:
            os.close(self.seal_fd)
            self.seal_fd = None


def append_sealed(path: Path, keeper: Keeper, data: bytes, ours: Callable[[bool], None]) -> None:
    """Append ``data`` (whole lines) to the session file ``path`` in one write, starting on a
    fresh line if the file ends in an unfinished one, under the writers' ``flock``; sealed
    around the write when ``keeper`` can vouch for the file (``ours`` is told whether it
    can, before the write). ``OSError`` when it failed, after the partial line was cut back
    off (so the file ends whole) and the file sealed again."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW)
    size = -1
    sealing: Append | None = None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another process appending: one write+seal at a time
        sealing = keeper.begin(fd)
        ours(sealing.ours)
        size = sealing.size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # an unfinished line is left: never append onto it
        sealing.pending(data)
        write_all(fd, data)
        sealing.done()
    except OSError:
        if size >= 0:  # take the partial line back off, so the file ends whole
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
                if sealing is not None:  # back to what was sealed: sealed again
                    sealing.undone()
        raise
    finally:
        if sealing is not None:
            sealing.close()
        os.close(fd)


def sync_seal(path: Path) -> None:
    """``fsync`` the seal of ``path`` (after the file's own), when it has one."""
    try:
        fd = os.open(
            path.with_name(path.name + ".seal"), os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC
        )
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def create_sealed(path: Path, data: bytes) -> Keeper:
    """A new session file holding ``data`` (mode 0600, never through a link), sealed: first
    as pending, so a crash right after the write leaves a file the next load takes."""
    dir_fd = open_parent(path)
    try:
        fd = create_at(dir_fd, path.name, 0o600)
        try:
            digest = sha256(data)
            seal_fd = open_seal(dir_fd, path.name)
            try:
                record = Pending(os.fstat(fd).st_ino, len(data), digest.hexdigest(), time.time_ns())
                put_seal(seal_fd, Seal(None, record))
                write_all(fd, data)
                state = State.of(os.fstat(fd), digest.hexdigest())
                put_seal(seal_fd, Seal(state))
            finally:
                os.close(seal_fd)
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)
    keeper = Keeper(path)
    keeper.adopt(state, digest)
    return keeper


__all__ = [
    "Doubted",
    "Keeper",
    "SessionDoubted",
    "append_sealed",
    "create_sealed",
    "read_session",
    "sync_seal",
]
