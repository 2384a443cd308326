"""Where the agent writes its own files, reached without following a symlink planted on the way.

The agent writes files of its own in places a repository or a command can reach: the spill
directory (``.agent-spill``) and ``.agent-tui/settings.local.json`` in the workspace, the
session files and the trust store in the data directory (which is inside the workspace when the
workspace is the home directory). A symlink planted there — ``.agent-spill`` pointing at
``~/.bashrc.d``, ``settings.local.json`` at a file a login shell runs — would make the agent
itself write outside. So these writes start from an *anchor* (the workspace, the data
directory: opened as the user named it) and go down one component at a time with ``openat`` and
``O_NOFOLLOW``: a symlink met below the anchor is refused (``LinkRefused``), never followed, and
the files are created with ``O_EXCL | O_NOFOLLOW`` and renamed in relative to the directory's
descriptor, so a link swapped in later cannot redirect them either.

POSIX only (``openat``, ``mkdirat``, ``renameat``); nothing here imports the rest of the core.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

CLOEXEC = getattr(os, "O_CLOEXEC", 0)
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | CLOEXEC


class LinkRefused(OSError):
    """A symlink where the agent was to write (or read) its own file: not followed."""

    def __init__(self, link: Path, target: str) -> None:
        super().__init__(errno.ELOOP, f"is a symbolic link (to {target})", str(link))
        self.link = link
        """The path of the symlink."""
        self.target = target
        """What it points to (as ``readlink`` says)."""


class OutsideAnchor(ValueError):
    """A relative path that leads out of its anchor (``..``) or is absolute."""


def rel_parts(rel: str | Path) -> tuple[str, ...]:
    """The components of a relative path, ``.`` and empty ones dropped; ``OutsideAnchor``
    when it is absolute or has a ``..`` (it could lead anywhere)."""
    text = str(rel)
    if text.startswith(("/", "~")):
        raise OutsideAnchor(f"{text} is not a relative path")
    parts = tuple(p for p in text.replace("\\", "/").split("/") if p not in ("", "."))
    if ".." in parts:
        raise OutsideAnchor(f"{text} leads out of its directory ('..')")
    return parts


def split_below(path: Path, anchor: Path) -> tuple[Path, tuple[str, ...]]:
    """(anchor, components) to reach ``path`` (absolute) from ``anchor`` without following a
    link: ``anchor`` when ``path`` is lexically inside it, else ``path``'s own parent (a path
    outside the anchor is somebody's explicit choice: its parents are followed as named, its
    last component is not)."""
    absolute = Path(os.path.normpath(path))
    base = Path(os.path.normpath(anchor))
    if absolute == base:
        return base, ()
    if absolute.is_relative_to(base):
        return base, absolute.relative_to(base).parts
    return absolute.parent, (absolute.name,)


def _refuse(dir_fd: int, name: str, where: Path) -> None:
    """Raise the right error for ``name`` in ``dir_fd`` that could not be opened as a
    directory: ``LinkRefused`` for a symlink, ``NotADirectoryError`` for anything else."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(name, dir_fd=dir_fd)
        except OSError:
            target = "?"
        raise LinkRefused(where, target)
    if not stat.S_ISDIR(mode):
        raise NotADirectoryError(errno.ENOTDIR, "is not a directory", str(where))


def enter(dir_fd: int, name: str, where: Path, *, create: bool, mode: int = 0o777) -> int:
    """The descriptor of directory ``name`` in ``dir_fd`` (``where`` is its path, for the
    errors), made first when missing and ``create``. Never follows a symlink."""
    for attempt in range(2):
        try:
            return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError:
            if not create or attempt:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, mode, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                _refuse(dir_fd, name, where)
            raise
    raise AssertionError("unreachable")


def open_below(
    anchor: Path, parts: Sequence[str], *, create: bool = False, mode: int = 0o777
) -> int:
    """A descriptor of the directory ``anchor/parts…``: the anchor opened as named, each
    component below it entered without following a link (made when missing and ``create``,
    with ``mode``). The caller closes it."""
    fd = os.open(anchor, os.O_RDONLY | os.O_DIRECTORY | CLOEXEC)
    at = anchor
    try:
        for name in parts:
            at = at / name
            child = enter(fd, name, at, create=create, mode=mode)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_resolved(path: Path, flags: int = os.O_RDONLY) -> int:
    """``os.open(path, flags)`` for an absolute path that has no symlink on it: every component
    is opened with ``O_NOFOLLOW`` from ``/``, so a link anywhere on it is refused
    (``LinkRefused``) rather than followed. For reading a file whose path was checked."""
    if not path.is_absolute() or path == path.parent:
        raise ValueError(f"expected an absolute file path, got {path}")
    dir_fd = open_below(Path("/"), path.parent.parts[1:])
    try:
        return open_at(dir_fd, path.name, flags, path)
    finally:
        os.close(dir_fd)


def open_at(dir_fd: int, name: str, flags: int, where: Path, mode: int = 0o666) -> int:
    """``openat(dir_fd, name, flags | O_NOFOLLOW)``; a symlink there is ``LinkRefused``."""
    try:
        return os.open(name, flags | os.O_NOFOLLOW | CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            _refuse(dir_fd, name, where)
        raise


def create_at(dir_fd: int, name: str, mode: int = 0o600) -> int:
    """A new file ``name`` in ``dir_fd``, opened for writing; never an existing one, never
    through a link (``O_CREAT | O_EXCL | O_NOFOLLOW``)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | CLOEXEC
    return os.open(name, flags, mode, dir_fd=dir_fd)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def replace_at(
    dir_fd: int,
    name: str,
    data: bytes,
    *,
    mode: int = 0o600,
    keep_mode: bool = False,
    durable: bool = True,
    before_rename: Callable[[os.stat_result], None] | None = None,
) -> os.stat_result:
    """Replace ``name`` in ``dir_fd`` with ``data`` atomically (a new file renamed over it:
    a link there is replaced, not followed). ``mode`` for the new file (the umask applies);
    ``keep_mode``: an existing regular file's mode bits are kept; ``before_rename`` is called
    with the new file's ``stat`` once it is written (and synced), before it is put in place.
    Returns the new file's ``stat``, taken after the rename (its inode and change time are
    the ones now on disk)."""
    keep: int | None = None
    if keep_mode:
        with contextlib.suppress(FileNotFoundError):
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISREG(st.st_mode):
                keep = stat.S_IMODE(st.st_mode)
    for _ in range(100):
        temp = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = create_at(dir_fd, temp, mode)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, f"no free temporary name next to {name}")
    try:
        try:
            if keep is not None:
                os.fchmod(fd, keep)
            write_all(fd, data)
            if durable:
                os.fsync(fd)
            if before_rename is not None:
                before_rename(os.fstat(fd))
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)


def write_below(
    anchor: Path,
    rel: str | Path,
    data: bytes,
    *,
    mode: int = 0o600,
    keep_mode: bool = False,
    dir_mode: int = 0o777,
) -> os.stat_result:
    """Replace the file ``anchor/rel`` with ``data``, its directories made as needed, nothing
    below ``anchor`` followed (``LinkRefused``; ``OutsideAnchor`` for a ``..``)."""
    parts = rel_parts(rel)
    if not parts:
        raise OutsideAnchor(f"{rel} names no file")
    dir_fd = open_below(anchor, parts[:-1], create=True, mode=dir_mode)
    try:
        return replace_at(dir_fd, parts[-1], data, mode=mode, keep_mode=keep_mode)
    finally:
        os.close(dir_fd)


def read_below(anchor: Path, rel: str | Path, limit: int = 64 << 20) -> bytes:
    """The content of the regular file ``anchor/rel``, nothing below ``anchor`` followed
    (``LinkRefused``); ``FileNotFoundError`` when it is missing; ``OSError`` (EINVAL) for
    anything but a regular file."""
    parts = rel_parts(rel)
    if not parts:
        raise OutsideAnchor(f"{rel} names no file")
    dir_fd = open_below(anchor, parts[:-1])
    try:
        fd = open_at(dir_fd, parts[-1], os.O_RDONLY | os.O_NONBLOCK, anchor.joinpath(*parts))
    finally:
        os.close(dir_fd)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "is not a regular file", str(anchor.joinpath(*parts)))
        return fh.read(limit)


def find_link(anchor: Path, parts: Sequence[str]) -> LinkRefused | None:
    """The first symlink on ``anchor/parts…`` below the anchor (without creating anything),
    or None; a missing component ends the search (nothing below it exists)."""
    try:
        os.close(open_below(anchor, parts))
    except LinkRefused as link:
        return link
    except OSError:
        return None
    return None


def read_at(dir_fd: int, name: str, limit: int = 64 << 20) -> bytes:
    """The content of regular file ``name`` in ``dir_fd``, not through a link (``ELOOP``)."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | CLOEXEC, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "is not a regular file", name)
        return fh.read(limit)


def write_state(path: Path, base: Path, data: bytes, *, mode: int = 0o600) -> os.stat_result:
    """Replace ``path``, a file of the agent's own state below directory ``base`` (the data or
    cache directory, made 0700 when missing), without following a link below ``base``;
    directories on the way are made 0700. A ``path`` outside ``base`` is reached through its
    parents as named (a test's, or a user's explicit choice)."""
    anchor, parts = split_below(path, base)
    anchor.mkdir(mode=0o700, parents=True, exist_ok=True)
    return write_below(anchor, Path(*parts), data, mode=mode, dir_mode=0o700)
