"""Keeping a file's current content in the blob store, and reading a file's current digest:
both through the file tools' safe open (no symlink followed on the way). Blocking."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.records import FileBefore, link_digest
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.safe_open import NotRegularFile, open_regular

MAX_SNAPSHOT_BYTES = 64 << 20
"""A file bigger than this is not kept (its ``FileBefore`` says so; it cannot be restored)."""
_ABSENT = (FileNotFoundError, NotADirectoryError)


def snapshot(
    path: Path,
    turn: str,
    blobs: BlobStore,
    *,
    limit: int = MAX_SNAPSHOT_BYTES,
    content: bytes | None = None,
) -> FileBefore:
    """``path`` as it is now, its content kept in ``blobs``; ``OSError`` when it cannot be
    read or kept (a symlink swapped in on the way raises the tools' ``path_changed``).
    ``content``: what the file holds as the tool saw it (an editor's unsaved buffer), kept
    instead of the bytes on disk (the file's mode is still the disk's)."""
    where = str(path)
    link = _link(path)
    if link is not None:
        return FileBefore(turn=turn, path=where, exists=True, link=link)
    try:
        fd = open_regular(path)
    except _ABSENT:
        return FileBefore(turn=turn, path=where, exists=False, new_dirs=_missing_parent(path))
    except NotRegularFile:  # a directory, FIFO or device: nothing a file tool would write
        return FileBefore(turn=turn, path=where, exists=True)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        mode = stat.S_IMODE(st.st_mode)
        size = st.st_size if content is None else len(content)
        if size > limit:
            return FileBefore(turn=turn, path=where, exists=True, mode=mode, size=size)
        data = fh.read() if content is None else content
    return FileBefore(
        turn=turn, path=where, exists=True, blob=blobs.put(data), mode=mode, size=len(data)
    )


def unkept_note(size: int, limit: int = MAX_SNAPSHOT_BYTES) -> str:
    """Why a change of a file of ``size`` bytes cannot be rewound."""
    return (
        f"this change cannot be rewound: the file held {_mb(size)}, more than the "
        f"{_mb(limit)} a checkpoint keeps of a file, so its old content was not kept"
    )


def unkept_size(path: Path, limit: int = MAX_SNAPSHOT_BYTES) -> int | None:
    """The size of the regular file ``path`` when a checkpoint would not keep it (over
    ``limit``), else None (no link followed: as the file tools write it)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) and st.st_size > limit else None


def _mb(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MB" if size % (1 << 20) else f"{size >> 20:,} MB"


def _missing_parent(path: Path) -> str | None:
    """The outermost parent of ``path`` that does not exist (None: its directory exists)."""
    missing = None
    for parent in path.parents:
        if os.path.lexists(parent):
            break
        missing = str(parent)
    return missing


def _link(path: Path) -> str | None:
    """Where ``path`` points if it is a symbolic link."""
    try:
        return os.readlink(path)
    except OSError:  # not a link, or gone
        return None


def current_mode(path: Path) -> int | None:
    """The permission bits of ``path`` (no link followed), None when absent."""
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        return None


def current_digest(path: Path) -> tuple[bool, str | None]:
    """(whether ``path`` exists, the digest of its content: None when absent or neither a
    regular file nor a symbolic link; ``link_digest`` of a link)."""
    link = _link(path)
    if link is not None:
        return True, link_digest(link)
    try:
        fd = open_regular(path)
    except _ABSENT:
        return False, None
    except (NotRegularFile, ToolFailure, OSError):  # a symlink there now: not what was left
        return True, None
    with os.fdopen(fd, "rb") as fh:
        return True, hashlib.file_digest(fh, "sha256").hexdigest()


def read_current(path: Path, limit: int) -> bytes | None:
    """The content of ``path`` if it is a regular file of at most ``limit`` bytes."""
    try:
        fd = open_regular(path)
    except (NotRegularFile, ToolFailure, OSError):
        return None
    with os.fdopen(fd, "rb") as fh:
        if os.fstat(fh.fileno()).st_size > limit:
            return None
        return fh.read()
