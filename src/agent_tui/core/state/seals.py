"""Seals: the trust store and saved sessions load only as agent-tui itself last wrote them.

The trust store (``trust.json``) turns on a project's MCP servers and allow rules; a saved
session is what ``--continue`` puts back in the model's context, as the user's own words. Both
live in the data directory, which is inside the workspace when the workspace is the home
directory (containers, dotfile repositories): a repository can *ship* them (a dotfile repository
cloned as ``~`` with ``.local/share/agent-tui/trust.json`` trusting its own ``.mcp.json``), an
image can carry them, and a command can write them.

What is sound here. A command run as the user can reach every file the user can, outside the
sandbox: no key or hash kept on disk is out of its reach, so against a *running* command the
defences are the permission check (the data directory is a protected path in every mode,
``permissions.agent_state``) and the sandbox (the directory is read-only inside it). Against a
file that was *put there* — shipped in a repository, unpacked from an archive or an image,
copied from another machine, or edited by hand — there is something sound: the kernel's own
record of the file. When agent-tui writes one of these files it keeps, beside it
(``NAME.seal``), the file's inode number, its size, its change time (``st_ctime``, which the
kernel sets on every change and no program can set back: ``touch`` sets the modification time
only) and the SHA-256 of its content. A file that was written by anything else since — or that
came from anywhere else — has another change time, which nobody can predict to the nanosecond,
so its seal does not match and it is not loaded: the trust store counts as empty (the user is
asked again), a session is not continued until the user accepts it (``agent-tui trust
--session ID``). So are files another user can write (a group- or world-writable file, one
owned by someone else, a symlink).

Crashes. A write changes the file's change time before the seal can record it, so a process
killed between the two (``kill -9``, a torn write on a full disk, a power cut) would leave its
own file doubted. So before each write the writer records it in the seal as *pending*: the
inode the file will have (the same one for an append, the new file's for a rename into
place), its size and SHA-256 after the write, and the time the write began. A file whose seal
does not match is still taken as agent-tui's when it is the pending write, landed whole (its
inode, size and hash are the pending ones) or cut short (the part sealed before is unchanged,
byte for byte, and what follows is no more than the write's own bytes can be: ``tail_ok``), and
its change time falls within ``BEFORE_NS``/``AFTER_NS`` of the time the write began. A file put
there fails that: it has another inode (which a copy cannot choose), and even a guessed inode
would need its change time guessed to within about two seconds of a moment the shipper cannot
know (when the victim clones or unpacks it), whatever the forged seal says.

Files written by versions before seals have none: they are doubted like the rest, once.
Version-1 seals (no hash, no pending write) still match exactly.
"""

from __future__ import annotations

import contextlib
import errno
import grp
import hashlib
import json
import os
import pwd
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

SUFFIX = ".seal"
VERSION = 2
SEAL_BYTES = 512
"""A seal's size: its JSON padded with spaces, so each rewrite is one write of a fixed size
(one sector)."""
BEFORE_NS = 100_000_000
"""How far before the recorded start of a write the file's change time may be: the kernel
stamps changes from a clock that lags the one read here by up to a tick."""
AFTER_NS = 2_000_000_000
"""How long after the recorded start of a write its change time may be: the write follows
the record at once; a process stalled longer between the two only has its file doubted."""
TailCheck = Callable[[bytes], bool]
"""Whether the bytes past the sealed part are what an unfinished write of the file's kind can
leave (for a session: whole JSON lines, the last one possibly cut)."""


def seal_name(name: str) -> str:
    """The name of the seal of file ``name`` (beside it)."""
    return f"{name}{SUFFIX}"


class Digest(Protocol):
    """A running SHA-256 (what ``hashlib.sha256()`` returns; its class is private to hashlib)."""

    def update(self, data: bytes, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> Digest: ...


def sha256(data: bytes = b"") -> Digest:
    return hashlib.sha256(data)


@dataclass(frozen=True)
class State:
    """A file as agent-tui left it."""

    inode: int
    size: int
    ctime_ns: int
    sha256: str | None = None
    """Of its content; None in a version-1 seal."""

    @classmethod
    def of(cls, st: os.stat_result, digest: str | None) -> State:
        return cls(st.st_ino, st.st_size, st.st_ctime_ns, digest)

    def describes(self, st: os.stat_result) -> bool:
        """Same inode, size and change time: the file has not changed since."""
        return (self.inode, self.size, self.ctime_ns) == (st.st_ino, st.st_size, st.st_ctime_ns)


@dataclass(frozen=True)
class Pending:
    """A write under way: after it the file is ``inode``, ``size`` bytes hashing to
    ``sha256``; it began at ``at_ns`` (``time.time_ns``)."""

    inode: int
    size: int
    sha256: str
    at_ns: int

    def timely(self, st: os.stat_result) -> bool:
        """Whether ``st``'s change time can be this write's."""
        return self.at_ns - BEFORE_NS <= st.st_ctime_ns <= self.at_ns + AFTER_NS


@dataclass(frozen=True)
class Seal:
    state: State | None = None
    """The file as last written whole (None: not yet, a new file)."""
    pending: Pending | None = None
    """The write under way, if any."""


def encode(seal: Seal) -> bytes:
    state = seal.state
    pending = seal.pending
    raw = {
        "version": VERSION,
        "state": None if state is None else [state.inode, state.size, state.ctime_ns, state.sha256],
        "pending": None
        if pending is None
        else [pending.inode, pending.size, pending.sha256, pending.at_ns],
    }
    data = json.dumps(raw, separators=(",", ":")).encode("ascii")
    if len(data) > SEAL_BYTES:  # pragma: no cover - 64-bit numbers and two hashes fit
        raise ValueError("seal too long")
    return data.ljust(SEAL_BYTES)


def _ints(values: object, count: int) -> list[int]:
    if not isinstance(values, list) or len(values) != count:
        raise ValueError("not a seal")
    out = [v for v in values if isinstance(v, int) and not isinstance(v, bool) and v >= 0]
    if len(out) != count:
        raise ValueError("not a seal")
    return out


def _digest(value: object) -> str:
    if not isinstance(value, str) or len(value) != 64 or value.strip("0123456789abcdef"):
        raise ValueError("not a seal")
    return value


def decode(data: bytes) -> Seal:
    """A seal's bytes read back; ``ValueError`` when they are not one."""
    raw = json.loads(data)
    if not isinstance(raw, dict):
        raise ValueError("not a seal")
    if raw.get("version") == 1:  # before hashes: an exact match only
        inode, size, ctime = _ints([raw.get(k) for k in ("inode", "size", "ctime_ns")], 3)
        return Seal(State(inode, size, ctime))
    if raw.get("version") != VERSION:
        raise ValueError("not a seal")
    state = pending = None
    if raw.get("state") is not None:
        fields = raw["state"]
        inode, size, ctime = _ints(fields[:3] if isinstance(fields, list) else None, 3)
        state = State(inode, size, ctime, _digest(fields[3] if len(fields) == 4 else None))
    if raw.get("pending") is not None:
        fields = raw["pending"]
        if not isinstance(fields, list) or len(fields) != 4:
            raise ValueError("not a seal")
        inode, size, at = _ints([fields[0], fields[1], fields[3]], 3)
        pending = Pending(inode, size, _digest(fields[2]), at)
    return Seal(state, pending)


def open_seal(dir_fd: int, name: str, *, create: bool = True) -> int:
    """The seal of ``name`` opened for writing, never through a link."""
    flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_CREAT if create else 0)
    return os.open(seal_name(name), flags, 0o600, dir_fd=dir_fd)


def put_seal(fd: int, seal: Seal, *, durable: bool = False) -> None:
    """Rewrite the seal open as ``fd`` in place: one write of ``SEAL_BYTES`` (a rename costs a
    millisecond on some file systems, and sessions seal twice an append); a torn seal only
    makes the file doubted."""
    data = encode(seal)
    if os.pwrite(fd, data, 0) != len(data):
        raise OSError(errno.EIO, "short write to a seal")
    if os.fstat(fd).st_size != len(data):
        os.ftruncate(fd, len(data))
    if durable:
        os.fsync(fd)


def write_seal(dir_fd: int, name: str, seal: Seal, *, durable: bool = False) -> None:
    """Write the seal of file ``name`` of directory ``dir_fd``, without following a link."""
    fd = open_seal(dir_fd, name)
    try:
        put_seal(fd, seal, durable=durable)
    finally:
        os.close(fd)


def _private_group(gid: int) -> bool:
    """Whether group ``gid`` is the user's own private group (no other member): a file only
    that group may write is writable by the user alone (the umask 002 of user private groups)."""
    try:
        group = grp.getgrgid(gid)
        user = pwd.getpwuid(os.geteuid())
    except KeyError:
        return False
    return group.gr_name == user.pw_name and not [m for m in group.gr_mem if m != user.pw_name]


def others_can_write(st: os.stat_result) -> str | None:
    """Why another user could change the file or directory of ``st``, or None."""
    if st.st_uid != os.geteuid():
        return f"belongs to another user (uid {st.st_uid})"
    mode = stat.S_IMODE(st.st_mode)
    sticky_dir = stat.S_ISDIR(st.st_mode) and mode & stat.S_ISVTX
    if mode & stat.S_IWOTH and not sticky_dir:
        return f"can be written by every user (mode {mode:04o})"
    if mode & stat.S_IWGRP and not sticky_dir and not _private_group(st.st_gid):
        return f"can be written by the users of its group (mode {mode:04o})"
    return None


def read_seal(dir_fd: int, name: str) -> Seal:
    """The seal of ``name``: ``FileNotFoundError`` when there is none, ``ValueError`` when
    it is not one (or another user could write it)."""
    fd = os.open(seal_name(name), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or others_can_write(st):
            raise ValueError("not a seal")
        return decode(os.read(fd, 4096))
    finally:
        os.close(fd)


@dataclass
class Verified:
    """A sealed file read and found to be as agent-tui wrote it."""

    data: bytes
    state: State
    """The file as it is now (its hash that of ``data``)."""
    digest: Digest
    """The running hash of ``data`` (an appender goes on from it)."""
    recovered: bool
    """Taken as the pending write of a writer that stopped before sealing it (its seal does
    not say so yet)."""
    locked: bool = False
    """The file is ``flock``-ed by the reader (``verified(lock=True)``), so it may reseal it."""


def verify(
    seal: Seal, st: os.stat_result, data: bytes, *, tail_ok: TailCheck | None = None
) -> Verified | None:
    """``data``, the content of the file of ``st``, checked against its ``seal``: exactly as
    sealed, or the pending write landed whole, or (with ``tail_ok``) cut short. None when it
    is none of these."""
    if len(data) != st.st_size:
        return None
    digest = sha256(data)
    hexed = digest.hexdigest()
    now = State.of(st, hexed)
    sealed, pending = seal.state, seal.pending
    if sealed is not None and sealed.describes(st) and sealed.sha256 in (None, hexed):
        return Verified(data, now, digest, recovered=False)
    if pending is None or st.st_ino != pending.inode or not pending.timely(st):
        return None
    if st.st_size == pending.size and hexed == pending.sha256:
        return Verified(data, now, digest, recovered=True)  # it landed whole
    if tail_ok is None or sealed is None or sealed.sha256 is None or sealed.inode != st.st_ino:
        return None
    if not sealed.size <= st.st_size < pending.size:
        return None
    if sha256(data[: sealed.size]).hexdigest() != sealed.sha256:
        return None
    if not tail_ok(data[sealed.size :]):
        return None
    return Verified(data, now, digest, recovered=True)  # cut short, or cut back


class Doubted(Exception):
    """A sealed file that cannot be taken as agent-tui wrote it: ``why``, in a few words
    (the caller says what follows and what to do)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


_CHANGED = "was changed since agent-tui last wrote it (by another program, or copied)"
LOCK_WAIT = 5.0
"""How long a reader that may reseal waits for a writer's lock (held for one append)."""


def _lock(fd: int, wait: float) -> bool:
    import fcntl

    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)


def read_all(fd: int, size: int) -> bytes:
    """All of ``fd`` from offset 0 by ``pread`` (at least ``size`` bytes are expected; a file
    that grew meanwhile is read to its end)."""
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, max(size - offset, 0) + 65536, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


@contextlib.contextmanager
def verified(
    dir_fd: int, name: str, *, tail_ok: TailCheck | None = None, lock: bool = False
) -> Iterator[Verified]:
    """File ``name`` of ``dir_fd`` read whole and checked against its seal (``verify``) and
    against other users; ``Doubted`` saying why it is not agent-tui's, ``FileNotFoundError``
    when it does not exist. ``lock``: ``flock`` it first (the lock agent-tui's writers hold
    for each write), held while the block runs — the reader may then reseal it."""
    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        raise Doubted("is a symbolic link (agent-tui writes a real file there)")
    if not stat.S_ISREG(st.st_mode):
        raise Doubted("is not a regular file")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Doubted("is a symbolic link (agent-tui writes a real file there)") from None
        raise
    try:
        locked = lock and _lock(fd, LOCK_WAIT)
        found = _check(dir_fd, name, fd, tail_ok)
        found.locked = locked
        yield found
    finally:
        os.close(fd)  # releases the lock


def _check(dir_fd: int, name: str, fd: int, tail_ok: TailCheck | None) -> Verified:
    for _ in range(3):
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Doubted("is not a regular file")
        for what, of in (("its directory", os.fstat(dir_fd)), ("it", st)):
            why = others_can_write(of)
            if why is not None:
                raise Doubted(f"{what} {why}")
        try:
            seal = read_seal(dir_fd, name)
        except FileNotFoundError:
            raise Doubted(
                "has no seal: agent-tui did not write it (or a version older than seals did; "
                "it was shipped, copied or restored)"
            ) from None
        except (OSError, ValueError):
            raise Doubted("has a broken seal") from None
        data = read_all(fd, st.st_size)
        again = os.fstat(fd)
        if (again.st_size, again.st_ctime_ns) != (st.st_size, st.st_ctime_ns):
            continue  # written while read: read it again
        found = verify(seal, st, data, tail_ok=tail_ok)
        if found is None:
            raise Doubted(_CHANGED)
        return found
    raise Doubted("kept changing while agent-tui read it")


def open_parent(path: Path, *, create: bool = False) -> int:
    """A descriptor of ``path``'s directory (made, mode 0700, when missing and ``create``).
    The directory is the one the user's data lives in: opened as named."""
    if create:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def doubt_file(path: Path, *, tail_ok: TailCheck | None = None) -> str | None:
    """Why ``path`` cannot be taken as agent-tui wrote it (``verified``), or None; None also
    when it does not exist (nothing to load)."""
    try:
        fd = open_parent(path)
    except FileNotFoundError:
        return None
    try:
        with verified(fd, path.name, tail_ok=tail_ok):
            return None
    except Doubted as doubted:
        return doubted.why
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)


def seal_file(path: Path, *, shown: bytes | None = None, durable: bool = False) -> None:
    """Seal ``path`` as it is now (after the user accepted it as theirs). ``shown``: what the
    user was shown — ``OSError`` if the file no longer holds exactly that."""
    dir_fd = open_parent(path)
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(path.name, flags, dir_fd=dir_fd)
        try:
            st = os.fstat(fd)
            data = read_all(fd, st.st_size)
            again = os.fstat(fd)
        finally:
            os.close(fd)
        if (again.st_size, again.st_ctime_ns) != (st.st_size, st.st_ctime_ns) or (
            shown is not None and data != shown
        ):
            raise OSError(errno.EAGAIN, "it changed after it was shown: not sealed", str(path))
        write_seal(dir_fd, path.name, Seal(State.of(st, sha256(data).hexdigest())), durable=durable)
    finally:
        os.close(dir_fd)


def remove_seal(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path.with_name(seal_name(path.name)))
