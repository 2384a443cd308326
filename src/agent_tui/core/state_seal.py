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
(``NAME.seal``), the file's inode number, its size and its change time (``st_ctime``, which
the kernel sets on every change and no program can set back: ``touch`` sets the modification
time only). A file that was written by anything else since — or that came from anywhere else
— has another change time, which nobody can predict to the nanosecond, so its seal does not
match and it is not loaded: the trust store counts as empty (the user is asked again), a session
is not continued until the user accepts it (``agent-tui trust --session ID``). So are files
another user can write (a group- or world-writable file, one owned by someone else, a symlink).

Files written by versions before seals have none: they are doubted like the rest, once.
"""

from __future__ import annotations

import contextlib
import errno
import grp
import json
import os
import pwd
import stat
from pathlib import Path

SUFFIX = ".seal"
VERSION = 1
SEAL_BYTES = 128
"""A seal's size: its JSON padded with spaces, so each rewrite is one write of a fixed size."""


def seal_name(name: str) -> str:
    """The name of the seal of file ``name`` (beside it)."""
    return f"{name}{SUFFIX}"


def _fields(st: os.stat_result) -> dict[str, int]:
    return {"inode": st.st_ino, "size": st.st_size, "ctime_ns": st.st_ctime_ns}


def write_seal(
    dir_fd: int, name: str, st: os.stat_result | None = None, *, durable: bool = False
) -> None:
    """Seal file ``name`` of directory ``dir_fd`` as it is now (``st``: its ``stat`` taken
    after the last write, else taken here), atomically and without following a link."""
    if st is None:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    data = json.dumps({"version": VERSION, **_fields(st)}).encode("utf-8").ljust(SEAL_BYTES)
    # Rewritten in place, one write of a fixed size (a rename costs a millisecond on some file
    # systems, and sessions seal at every append); a torn seal only makes the file doubted.
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(seal_name(name), flags, 0o600, dir_fd=dir_fd)
    try:
        if os.pwrite(fd, data, 0) != len(data):
            raise OSError(errno.EIO, "short write", seal_name(name))
        os.ftruncate(fd, len(data))
        if durable:
            os.fsync(fd)
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


def doubt(dir_fd: int, name: str) -> str | None:
    """Why file ``name`` of ``dir_fd`` cannot be taken as agent-tui wrote it, or None when
    its seal matches: what is wrong, in a few words (the caller says what follows and what to
    do). ``FileNotFoundError`` when the file does not exist."""
    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link (agent-tui writes a real file there)"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    directory = os.fstat(dir_fd)
    for what, of in (("its directory", directory), ("it", st)):
        why = others_can_write(of)
        if why is not None:
            return f"{what} {why}"
    try:
        seal = _read_seal(dir_fd, name)
    except FileNotFoundError:
        return (
            "has no seal: agent-tui did not write it (or a version older than seals did; "
            "it was shipped, copied or restored)"
        )
    except (OSError, ValueError):
        return "has a broken seal"
    if seal != _fields(st):
        return "was changed since agent-tui last wrote it (by another program, or copied)"
    return None


def matches(dir_fd: int, name: str, st: os.stat_result) -> bool:
    """Whether the seal of ``name`` in ``dir_fd`` is that of ``st`` (no seal: False)."""
    try:
        return _read_seal(dir_fd, name) == _fields(st)
    except (OSError, ValueError):
        return False


def _read_seal(dir_fd: int, name: str) -> dict[str, int]:
    fd = os.open(seal_name(name), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or others_can_write(os.fstat(fd)):
            raise ValueError("not a seal")
        raw = json.loads(fh.read(4096))
    if not isinstance(raw, dict) or raw.get("version") != VERSION:
        raise ValueError("not a seal")
    out = {key: raw.get(key) for key in ("inode", "size", "ctime_ns")}
    if not all(isinstance(v, int) for v in out.values()):
        raise ValueError("not a seal")
    return {k: int(v) for k, v in out.items() if v is not None}


def open_parent(path: Path, *, create: bool = False) -> int:
    """A descriptor of ``path``'s directory (made, mode 0700, when missing and ``create``).
    The directory is the one the user's data lives in: opened as named."""
    if create:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def doubt_file(path: Path) -> str | None:
    """``doubt`` for ``path``; None when it does not exist (nothing to load)."""
    try:
        fd = open_parent(path)
    except FileNotFoundError:
        return None
    try:
        return doubt(fd, path.name)
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)


def seal_file(path: Path, *, durable: bool = False) -> None:
    """Seal ``path`` as it is now (after the user accepted it as theirs, or after a write)."""
    fd = open_parent(path)
    try:
        write_seal(fd, path.name, durable=durable)
    finally:
        os.close(fd)


def remove_seal(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path.with_name(seal_name(path.name)))
