"""Opening and replacing files without a check-then-use gap.

The permission layer judges a call on the path its argument resolves to (``realpath``). If the
tool then opened the argument by name again, a symlink swapped in between the decision and the
open would send the read or the write elsewhere: ``write_file`` would overwrite a file outside
the workspace, ``read_file`` would return a denied file. So a file tool:

1. resolves its argument once and, when a decision judged the call, insists it still resolves
   to the judged path (``resolve_target``); that path is then THE path it works on;
2. opens that path one component at a time from ``/`` with ``O_NOFOLLOW`` and ``dir_fd`` (the
   walk never follows a symlink: one met on the way was swapped in, and the call is refused
   with ``path_changed``) — ``open_dir``, ``open_file``, ``open_regular``;
3. writes through a descriptor of the parent directory (``replace_file``), so the temporary
   file and the rename land in the directory that was walked, whatever happens to its name.

POSIX only (``openat``, ``mkdirat``, ``renameat``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from agent_tui.core.state import own_writes
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.paths import shown

PATH_CHANGED = "path_changed"
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
"""How a directory on the way is opened. ``O_PATH`` (Linux) needs only search permission on
it, like an ordinary path walk; elsewhere the walk needs read permission on each directory."""
_TEMP_ATTEMPTS = 100


class NotRegularFile(Exception):
    """The path names a directory, device, socket or pipe where a regular file was wanted."""


class ReadOnlyFile(PermissionError):
    """The file to replace is read-only (``read_only``): it is left as it is, as editors
    leave it, even where the directory would allow replacing it."""

    def __init__(self, path: Path, mode: int) -> None:
        super().__init__(errno.EACCES, f"read-only (mode {mode:04o})", str(path))
        self.mode = mode


def read_only(st: os.stat_result) -> bool:
    """Whether the mode bits of ``st`` give this process no write permission.

    The bits of the class the process falls in count (owner, group, others), as for any
    user; for root, who may write anything, a file with no write bit at all is read-only —
    ``os.access`` would say yes to root, and the rename of an atomic write needs no write
    permission on the file at all, only on its directory.
    """
    mode = st.st_mode
    euid = os.geteuid()
    if euid == 0:
        return not mode & 0o222
    if st.st_uid == euid:
        return not mode & stat.S_IWUSR
    if st.st_gid == os.getegid() or st.st_gid in os.getgroups():
        return not mode & stat.S_IWGRP
    return not mode & stat.S_IWOTH


def swapped(path: Path, what: str) -> ToolFailure:
    """The ``path_changed`` refusal: ``what`` says what was found changed on the way to
    ``path`` (shown absolute: the helpers below know no session cwd)."""
    return ToolFailure(
        PATH_CHANGED,
        f"{path} changed after it was resolved and judged: {what} (a symlink or directory "
        "was swapped in), so the call was refused instead of following it.",
        "Check the path (list_dir its directory) and call again.",
    )


def resolve_target(arg: str, ctx: ToolContext) -> Path:
    """The one path a call works on: ``arg`` resolved, or the judged path if a decision judged it.

    When the permission decision judged this call (``ctx.judged_path``) and ``arg`` resolves
    elsewhere now, a symlink or directory on the way was swapped since: the call is refused
    rather than run on a path nobody judged.
    """
    try:
        resolved = Path(os.path.realpath(ctx.resolve(arg)))
    except OSError as exc:
        # realpath saw a symlink, then readlink found none (EINVAL) or nothing (ENOENT):
        # the name was swapped while it was being resolved.
        if exc.errno not in (errno.EINVAL, errno.ENOENT):
            raise
        raise ToolFailure(
            PATH_CHANGED,
            f"{arg} changed while it was being resolved: a symlink on it was swapped.",
            "Check the path (list_dir its directory) and call again.",
        ) from exc
    judged = ctx.judged_path
    if judged is None:
        return resolved
    if resolved != judged:
        raise ToolFailure(
            PATH_CHANGED,
            f"{arg} now resolves to {shown(resolved, ctx)} but the permission check judged "
            f"{shown(judged, ctx)}: a symlink or directory was swapped after the check.",
            "Check the path (list_dir its directory) and call again.",
        )
    return judged


def _require_resolved(path: Path) -> None:
    """The walk below is only sound on an absolute path without ``.``, ``..`` or ``//``."""
    if not path.is_absolute() or os.path.normpath(path) != str(path):
        raise ValueError(f"expected a resolved absolute path, got {path}")


def _link_found(target: Path, at: Path) -> str:
    if at == target:
        return "it is now a symbolic link"
    return f"its directory {at} is now a symbolic link"


def _not_a_directory(dir_fd: int, name: str) -> bool:
    """Whether ``name`` is an entry that genuinely is no directory (a file where a parent
    directory was expected) rather than a symlink, or something changed again since."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return False
    return not stat.S_ISLNK(mode) and not stat.S_ISDIR(mode)


def _open_at(dir_fd: int, name: str, flags: int, target: Path, at: Path, mode: int = 0o666) -> int:
    """``openat`` of component ``at`` on the way to ``target``; a symlink there becomes
    ``path_changed``, any other error is raised as it is.

    With ``O_NOFOLLOW`` a symlink shows as ELOOP, or as ENOTDIR with ``O_DIRECTORY`` (where a
    plain file on the way gives ENOTDIR too: that one stays NotADirectoryError).
    """
    try:
        return os.open(name, flags | os.O_NOFOLLOW | _CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (
            exc.errno == errno.ENOTDIR and not _not_a_directory(dir_fd, name)
        ):
            raise swapped(target, _link_found(target, at)) from exc
        raise


def _enter(dir_fd: int, name: str, target: Path, at: Path, create: bool) -> int:
    """The descriptor of directory ``name`` inside ``dir_fd``, made first if ``create``."""
    try:
        return _open_at(dir_fd, name, _DIR_FLAGS, target, at)
    except FileNotFoundError:
        if not create:
            raise
    with contextlib.suppress(FileExistsError):  # another writer may make it first
        os.mkdir(name, 0o777, dir_fd=dir_fd)
    return _open_at(dir_fd, name, _DIR_FLAGS, target, at)


def _walk(directory: Path, target: Path, create: bool) -> int:
    fd = os.open("/", _DIR_FLAGS & ~os.O_NOFOLLOW)  # the root is never a symlink
    at = Path("/")
    try:
        for name in directory.parts[1:]:
            at = at / name
            child = _enter(fd, name, target, at, create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_dir(path: Path, *, create: bool = False) -> int:
    """A descriptor of directory ``path`` (resolved), reached without following any symlink.

    With ``create``, missing directories are made one by one (each then opened with
    ``O_NOFOLLOW``, so one swapped for a symlink right after ``mkdir`` is still caught).
    The caller closes the descriptor.
    """
    _require_resolved(path)
    return _walk(path, path, create)


def open_file(path: Path, flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
    """``os.open(path, flags)`` that follows no symlink on the way, the last component included.

    ``path`` must be resolved (``resolve_target``); a symlink found on it was swapped in and
    the open is refused with ``path_changed``. The caller closes the descriptor.
    """
    _require_resolved(path)
    if path == path.parent:  # "/"
        return os.open("/", flags | _CLOEXEC)
    dir_fd = _walk(path.parent, path, create=False)
    try:
        return _open_at(dir_fd, path.name, flags, path, path, mode)
    finally:
        os.close(dir_fd)


def open_regular(path: Path) -> int:
    """Open the regular file ``path`` for reading, following no symlink (see ``open_file``).

    Anything but a regular file raises ``NotRegularFile`` before it is opened (a FIFO would
    block the open, a device may act on it), and again if one was swapped in before the open.
    """
    _require_resolved(path)
    if path == path.parent:
        raise NotRegularFile(path)
    dir_fd = _walk(path.parent, path, create=False)
    try:
        st = os.stat(path.name, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            raise swapped(path, _link_found(path, path))
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path)
        fd = _open_at(dir_fd, path.name, os.O_RDONLY | os.O_NONBLOCK, path, path)
    finally:
        os.close(dir_fd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegularFile(path)
    os.set_blocking(fd, True)
    return fd


def read_bytes(path: Path) -> bytes:
    """The content of the regular file ``path`` (``open_regular``), read through one open."""
    with os.fdopen(open_regular(path), "rb") as f:
        return f.read()


def same_file(fd: int, other: int) -> bool:
    """Whether two descriptors refer to the same file (device and inode)."""
    a, b = os.fstat(fd), os.fstat(other)
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _create_temp(dir_fd: int, name: str) -> tuple[str, int]:
    """A new temporary file next to ``name``: ``0o666 & ~umask``, like any new file."""
    for _ in range(_TEMP_ATTEMPTS):
        temp = f".{name}.{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
        try:
            return temp, os.open(temp, flags, 0o666, dir_fd=dir_fd)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"could not create a temporary file next to {name}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def replace_file(path: Path, data: bytes) -> bool:
    """Replace the file at ``path`` (resolved) with ``data`` atomically; True if it was created.

    Everything happens relative to a descriptor of the parent directory, reached without
    following a symlink and made if missing: the temporary file, the ``renameat`` over the
    final name, the directory ``fsync``. An existing file keeps its permission bits; a
    read-only one is not replaced (``ReadOnlyFile``). A symlink now at the final name is
    refused (the resolved path had none there). The temporary file is removed on any failure,
    which leaves the file as it was. Blocking: call it from a worker thread.
    """
    _require_resolved(path)
    name = path.name
    if not name:
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    dir_fd = _walk(path.parent, path, create=True)
    try:
        try:
            existing: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            existing = None
        if existing is not None and stat.S_ISLNK(existing.st_mode):
            raise swapped(path, _link_found(path, path))
        if existing is not None and stat.S_ISREG(existing.st_mode) and read_only(existing):
            raise ReadOnlyFile(path, stat.S_IMODE(existing.st_mode))
        temp, fd = _create_temp(dir_fd, name)
        try:
            try:
                if existing is not None and stat.S_ISREG(existing.st_mode):
                    os.fchmod(fd, stat.S_IMODE(existing.st_mode))
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
        with contextlib.suppress(OSError):  # the agent's own (``core.state.own_writes``)
            own_writes.note(str(path), os.stat(name, dir_fd=dir_fd, follow_symlinks=False))
        _fsync_dir(dir_fd)
    finally:
        os.close(dir_fd)
    return existing is None


def _fsync_dir(dir_fd: int) -> None:
    """Make the rename durable; not every platform or filesystem allows it (best effort)."""
    try:
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
