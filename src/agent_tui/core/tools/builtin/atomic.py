"""Atomic file replacement shared by ``write_file``, ``edit_file`` and the settings writers.

The new bytes go to a temporary file in the target's directory, are flushed to disk, then
``os.replace`` swaps them in: a reader (or a crash) sees the old file or the new one, never a
partial write. An existing file keeps its permission bits; a new file gets the ordinary
``0o666 & ~umask`` mode (the kernel applies the umask, unlike ``mkstemp``'s 0600). Writing
through a symlink replaces the file it points to, not the link.

The work is done by ``safe_open.replace_file``: relative to a descriptor of the parent
directory, reached without following a symlink, so a symlink swapped in after the path was
resolved cannot redirect the write.

``recorded_write`` is the write of the file tools: the turn's checkpoint (``ToolContext.changes``)
keeps the old content before the write and learns what was written after it. With an editor's
``FileAccess`` (``ToolContext.files``) the editor is given the new text instead of the disk,
and the checkpoint keeps the text the tool read from it.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.tools.base import FileChanges
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.file_access import LOCAL_FILES, FileAccess
from agent_tui.core.tools.file_state import content_digest
from agent_tui.core.tools.files.safe_open import replace_file

CHECKPOINT_FAILED = "checkpoint_failed"


def atomic_write(path: Path, data: bytes, *, resolved: bool = False) -> bool:
    """Replace ``path``'s content with ``data`` atomically. Returns True if the file was created.

    Parent directories are created as needed. Symlinks in ``path`` are resolved first (the
    file a link points to is written), unless ``resolved``: then ``path`` is already the
    symlink-free path a permission decision judged, and is written exactly — a symlink found
    on it now was swapped in, and the write is refused (``path_changed``) instead of followed.
    Blocking: call it from a worker thread.
    """
    target = path if resolved else Path(os.path.realpath(path))
    return replace_file(target, data)


def recorded_write(
    path: Path,
    data: bytes,
    changes: FileChanges,
    where: str,
    files: FileAccess = LOCAL_FILES,
    before: bytes | None = None,
) -> tuple[bool, str | None]:
    """``atomic_write(path, data, resolved=True)`` between ``changes.before_change`` and
    ``changes.changed``: (whether the file was created, a note when the change cannot be
    rewound — the old content was too big to keep — for the result to say). If the old
    content could not be kept for another reason (an error), nothing is written
    (``checkpoint_failed``): a change that could not be undone is not made silently.

    With an editor's ``files``, ``data`` (UTF-8) goes to the editor instead, and ``before``
    (what the tool read from it) is what the checkpoint keeps; ``AccessFailed`` when the
    editor did not write it."""
    try:
        note = changes.before_change(path, before) if files.editor else changes.before_change(path)
    except OSError as exc:
        raise ToolFailure(
            CHECKPOINT_FAILED,
            f"Did not change {where}: its current content could not be saved for rewind "
            f"({exc.strerror or exc}).",
            "Tell the user: the session directory (checkpoints) may be full or not writable.",
        ) from exc
    if files.editor:
        created = not os.path.lexists(path)
        files.write_text(path, data.decode("utf-8", errors="surrogateescape"))
    else:
        created = atomic_write(path, data, resolved=True)
    changes.changed(path, content_digest(data))
    return created, note
