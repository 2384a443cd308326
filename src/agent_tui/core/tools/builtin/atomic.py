"""Atomic file replacement shared by ``write_file`` and ``edit_file``.

The new bytes go to a temporary file in the target's directory, are flushed to disk, then
``os.replace`` swaps them in: a reader (or a crash) sees the old file or the new one, never a
partial write. An existing file keeps its permission bits; a new file gets the ordinary
``0o666 & ~umask`` mode (the kernel applies the umask, unlike ``mkstemp``'s 0600). Writing
through a symlink replaces the file it points to, not the link.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path


def _temp_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")


def _open_temp(target: Path) -> tuple[Path, int]:
    for _ in range(100):
        temp = _temp_name(target)
        try:
            return temp, os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file next to {target}")


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable; not every platform or filesystem allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> bool:
    """Replace ``path``'s content with ``data`` atomically. Returns True if the file was created.

    Parent directories are created as needed. Blocking: call it from a worker thread.
    """
    target = Path(os.path.realpath(path))
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is None:
        target.parent.mkdir(parents=True, exist_ok=True)
    temp, fd = _open_temp(target)
    try:
        try:
            if existing is not None:
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_dir(target.parent)
    return existing is None
