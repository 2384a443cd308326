"""Putting files back as a plan says (``plan``), keeping what each restore overwrites.

Before a file is touched, its current content is kept in the blob store under the rewind's
own id (``FileBefore``), and what the restore left is recorded after (``FileAfter``): the
rewind is then undone like a turn is, by rewinding to before it. A file someone else changed
since the agent last wrote it is left alone unless its path is in ``overwrite``, and so is a
file inside a ``.git`` directory. Writes are atomic and follow no symlink (the file tools' own
``atomic_write``); a symbolic link is put back as a link, a file's permission bits as they
were. Blocking.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.plan import FilePlan, FilePreview, preview_file
from agent_tui.core.checkpoints.records import FileAfter, link_digest
from agent_tui.core.checkpoints.snapshot import snapshot
from agent_tui.core.checkpoints.turn import Sink
from agent_tui.core.tools.builtin.atomic import atomic_write
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.file_state import content_digest
from agent_tui.core.tools.files.safe_open import open_dir

RESTORING = frozenset({"restore", "delete", "recreate"})


@dataclass
class RestoreReport:
    """What a code rewind did, file by file (paths as shown)."""

    restored: list[str] = field(default_factory=list)
    recreated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    kept_changed: list[str] = field(default_factory=list)
    """Changed by someone else since, not named in ``overwrite``: left as they are."""
    kept_git: list[str] = field(default_factory=list)
    """Inside a ``.git`` directory, not named in ``overwrite``: left as they are."""
    unavailable: list[str] = field(default_factory=list)
    """Their old content was not kept (too big)."""
    failed: list[tuple[str, str]] = field(default_factory=list)
    """(path, why)."""
    touched: list[str] = field(default_factory=list)
    """The absolute paths of the files written or deleted."""

    @property
    def changed(self) -> int:
        return len(self.restored) + len(self.recreated) + len(self.deleted)


def restore_files(
    plans: list[FilePlan],
    cwd: Path,
    blobs: BlobStore,
    rewind: str,
    sink: Sink,
    overwrite: Collection[str] = (),
) -> RestoreReport:
    """Do what ``preview_file`` says for each plan, now (see the module)."""
    report = RestoreReport()
    forced = set(overwrite)
    for plan in plans:
        preview = preview_file(plan, cwd, blobs)
        if preview.action == "unavailable":
            report.unavailable.append(preview.shown)
            continue
        if preview.action not in RESTORING:
            continue
        named = plan.path in forced or preview.shown in forced
        if preview.git and not named:
            report.kept_git.append(preview.shown)
            continue
        if preview.changed_since and not named:
            report.kept_changed.append(preview.shown)
            continue
        try:
            _restore(plan, preview, blobs, rewind, sink)
        except (OSError, ValueError, ToolFailure) as exc:
            report.failed.append((preview.shown, _why(exc)))
            continue
        {"restore": report.restored, "recreate": report.recreated, "delete": report.deleted}[
            preview.action
        ].append(preview.shown)
        report.touched.append(plan.path)
    return report


def _restore(
    plan: FilePlan, preview: FilePreview, blobs: BlobStore, rewind: str, sink: Sink
) -> None:
    path = Path(plan.path)
    target = plan.target
    data = blobs.get(target.blob) if target.blob is not None else None  # before touching it
    sink(snapshot(path, rewind, blobs))
    if target.link is not None:
        _unlink(path)
        fd = open_dir(path.parent, create=True)
        try:
            os.symlink(target.link, path.name, dir_fd=fd)
        finally:
            os.close(fd)
        sink(FileAfter(turn=rewind, path=plan.path, digest=link_digest(target.link)))
        return
    if data is None:
        _unlink(path)
        sink(FileAfter(turn=rewind, path=plan.path, digest=None))
        if target.new_dirs is not None:
            _remove_empty(path.parent, Path(target.new_dirs))
        return
    if os.path.islink(path):  # a link where the file was: replaced, not followed
        _unlink(path)
    atomic_write(path, data, resolved=True)
    if target.mode is not None:  # a new file gets the umask's bits; a restored one keeps its own
        with contextlib.suppress(OSError):
            os.chmod(path, target.mode)
    sink(FileAfter(turn=rewind, path=plan.path, digest=content_digest(data), mode=target.mode))


def _unlink(path: Path) -> None:
    """Remove the file ``path`` through a descriptor of its directory (no symlink followed)."""
    fd = open_dir(path.parent)
    try:
        os.unlink(path.name, dir_fd=fd)
    except FileNotFoundError:
        pass
    finally:
        os.close(fd)


def _remove_empty(directory: Path, outermost: Path) -> None:
    """Remove ``directory`` and its parents up to ``outermost`` while they are empty (the
    directories a turn made for a file it created; anything put in them since keeps them)."""
    if directory != outermost and outermost not in directory.parents:
        return
    while True:
        try:
            directory.rmdir()
        except OSError:  # not empty (or gone): what is left stays
            return
        if directory == outermost:
            return
        directory = directory.parent


def _why(exc: BaseException) -> str:
    if isinstance(exc, ToolFailure):
        return exc.info.message
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)
