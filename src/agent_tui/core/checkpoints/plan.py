"""What a rewind would do, read from the checkpoint log and the disk.

Rewinding the code to before a record (a turn's ``TurnStarted``, a rewind's ``Rewound``) puts
every file that any record from there on changed back as it was before the first of them: the
first ``FileBefore`` of each path, chronologically, whatever turn it belongs to (a turn whose
conversation was rewound away still changed files). What the agent last left in a file is the
latest of its records (a ``FileAfter``, or a ``FileBefore`` not followed by one: the write did
not happen); a file that holds something else now was changed by someone else since, and is
only overwritten when asked for by name. What a watched tool (``run_shell``) changed has the
same records (``core.checkpoints.shadow``), but for what the workspace's shadow could not keep:
that is listed as not restorable, with why. A file inside a ``.git`` directory is restored only
when asked for by name (``FilePreview.git``).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.records import (
    LINK_PREFIX,
    ChangeKind,
    CheckpointEntry,
    FileAfter,
    FileBefore,
    Rewound,
    ShellChanges,
    TurnStarted,
    link_digest,
)
from agent_tui.core.checkpoints.snapshot import current_digest, current_mode, read_current
from agent_tui.core.text.summary import diff_stats
from agent_tui.core.tools.files.diff import unified_diff
from agent_tui.core.tools.files.paths import SAMPLE_BYTES, looks_binary

FileAction = Literal["restore", "delete", "recreate", "unchanged", "unavailable"]
"""``restore``: put the old content back; ``delete``: the file did not exist (a turn created
it); ``recreate``: it existed and is gone now; ``unchanged``: it already holds the old
content; ``unavailable``: the old content was not kept (too big)."""
DIFF_LIMIT = 1 << 20
"""Files bigger than this get no +/− count in a preview."""


def shown_path(path: str, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when inside it, else as it is."""
    root = str(cwd)
    if path.startswith(root.rstrip(os.sep) + os.sep):
        return path[len(root.rstrip(os.sep)) + 1 :]
    return path


def start_of(entries: Sequence[CheckpointEntry], turn: str) -> int | None:
    """The position of the record that began ``turn`` (a turn or a rewind)."""
    for seq, entry in enumerate(entries):
        if isinstance(entry, (TurnStarted, Rewound)) and entry.turn == turn:
            return seq
    return None


@dataclass(frozen=True)
class FilePlan:
    path: str
    target: FileBefore
    """How it was before: what a rewind puts back."""
    left: str | None
    """The digest of what the agent last left there; None: it left no file."""
    left_known: bool
    """False when that is not known (the content was too big to keep)."""
    shell_first: bool
    """A watched tool changed it after ``start`` but before the agent first kept it: the
    content put back is the one after that change."""


def plan_files(entries: Sequence[CheckpointEntry], start: int) -> list[FilePlan]:
    """Each file changed from record ``start`` on, in the order first changed."""
    first: dict[str, FileBefore] = {}
    shell_first: set[str] = set()
    shell_seen: set[str] = set()
    for entry in entries[start:]:
        if isinstance(entry, FileBefore) and entry.path not in first:
            first[entry.path] = entry
            if entry.path in shell_seen:
                shell_first.add(entry.path)
        elif isinstance(entry, ShellChanges):
            shell_seen.update(change.path for change in entry.changes)
    left: dict[str, tuple[str | None, bool]] = {}
    for entry in entries:
        if entry_path(entry) not in first:
            continue
        if isinstance(entry, FileAfter):
            left[entry.path] = (entry.digest, True)
        elif isinstance(entry, FileBefore):
            left[entry.path] = (
                kept_digest(entry),
                kept_digest(entry) is not None or not entry.exists,
            )
    plans = []
    for path, target in first.items():
        digest, known = left.get(path, (None, False))
        plans.append(FilePlan(path, target, digest, known, path in shell_first))
    return plans


def kept_digest(before: FileBefore) -> str | None:
    """The digest of what ``before`` kept (``link_digest`` for a link)."""
    return link_digest(before.link) if before.link is not None else before.blob


def in_git(path: str) -> bool:
    """Whether ``path`` is inside a ``.git`` directory (git's own data)."""
    return f"{os.sep}.git{os.sep}" in path


def entry_path(entry: CheckpointEntry) -> str | None:
    return entry.path if isinstance(entry, (FileBefore, FileAfter)) else None


def changed_by(entries: Sequence[CheckpointEntry], turn: str) -> list[str]:
    """The files ``turn`` changed (kept and then written), in order."""
    kept: dict[str, FileBefore] = {}
    final: dict[str, FileAfter] = {}
    for entry in entries:
        if isinstance(entry, FileBefore) and entry.turn == turn:
            kept.setdefault(entry.path, entry)
        elif isinstance(entry, FileAfter) and entry.turn == turn:
            final[entry.path] = entry
    return [
        path
        for path, before in kept.items()
        if path in final
        and (
            final[path].digest != kept_digest(before)
            or before.exists != (final[path].digest is not None)
            or (final[path].mode is not None and final[path].mode != before.mode)
        )
    ]


@dataclass(frozen=True)
class NotRestorable:
    """A path a watched tool changed: a rewind leaves it as it is."""

    path: str
    shown: str
    change: ChangeKind
    tool: str
    why: str = ""
    """``OutsideChange.why``: ``ignored``, ``big``, ``budget``, ``unread``, ``gitobject``,
    ``git``, ``outside`` (empty: an older session's record, from before commands' changes
    were kept)."""


@dataclass(frozen=True)
class Outside:
    changes: list[NotRestorable] = field(default_factory=list)
    more: int = 0
    truncated: bool = False


def outside_changes(
    entries: Sequence[CheckpointEntry], start: int, cwd: Path, covered: Collection[str] = ()
) -> Outside:
    """What watched tools changed from ``start`` on, but for the ``covered`` paths (the agent
    kept them before, so a rewind restores them): newest kind of change per path."""
    found: dict[str, NotRestorable] = {}
    more = 0
    truncated = False
    for entry in entries[start:]:
        if not isinstance(entry, ShellChanges):
            continue
        more += entry.more
        truncated = truncated or entry.truncated
        for change in entry.changes:
            if change.path in covered:
                continue
            found[change.path] = NotRestorable(
                change.path, shown_path(change.path, cwd), change.change, entry.tool, change.why
            )
    return Outside(sorted(found.values(), key=lambda n: n.path), more, truncated)


@dataclass(frozen=True)
class FilePreview:
    """One file a code rewind would touch."""

    path: str
    shown: str
    action: FileAction
    added: int = 0
    removed: int = 0
    """Lines the rewind puts in and takes out (compared with the file as it is now)."""
    changed_since: bool = False
    """It holds something other than what the agent left: someone else changed it since.
    A rewind overwrites it only when asked to by name."""
    partial: bool = False
    """A watched tool changed it before the agent kept it (``FilePlan.shell_first``)."""
    binary: bool = False
    sized: bool = True
    """False when it is too big for a line count."""
    git: bool = False
    """It is inside a ``.git`` directory: git's own data, restored only when asked for by
    name."""
    mode: tuple[int, int] | None = None
    """(its permission bits now, those a restore puts back) when they differ."""


def preview_file(plan: FilePlan, cwd: Path, blobs: BlobStore) -> FilePreview:
    """Read the file as it is now and say what a rewind would do to it. Blocking."""
    target = plan.target
    path = Path(plan.path)
    shown = shown_path(plan.path, cwd)
    exists, digest = current_digest(path)
    if exists and digest is None:  # a directory, FIFO or device where the file was
        changed_since = True
    else:
        changed_since = not plan.left_known or digest != plan.left
    wanted = kept_digest(target)
    regular_now = digest is not None and not digest.startswith(LINK_PREFIX)
    mode_now = current_mode(path) if regular_now and target.link is None else None
    same_mode = target.mode is None or mode_now is None or mode_now == target.mode
    if (exists and digest == wanted and wanted is not None and same_mode) or (
        not exists and not target.exists
    ):
        return FilePreview(plan.path, shown, "unchanged", partial=plan.shell_first)
    preview = FilePreview(
        plan.path,
        shown,
        "restore",
        changed_since=changed_since,
        partial=plan.shell_first,
        git=in_git(plan.path),
        mode=None
        if same_mode or mode_now is None or target.mode is None
        else (mode_now, target.mode),
    )
    if target.exists and wanted is None:
        return replace(preview, action="unavailable", sized=False)
    now = read_current(path, DIFF_LIMIT) if exists else None
    if not target.exists:
        if now is None:
            return replace(preview, action="delete", sized=False)
        added, removed, binary = line_counts(now, b"")
        return replace(preview, action="delete", removed=removed, binary=binary)
    action: FileAction = "restore" if exists else "recreate"
    if target.link is not None or target.size > DIFF_LIMIT or (exists and now is None):
        return replace(preview, action=action, sized=False)
    try:
        old = blobs.get(target.blob or "")
    except (OSError, ValueError):
        return replace(preview, action="unavailable", sized=False)
    added, removed, binary = line_counts(now, old)
    return replace(preview, action=action, added=added, removed=removed, binary=binary)


def _binary(data: bytes) -> bool:
    return bool(looks_binary(data[:SAMPLE_BYTES]))


def line_counts(now: bytes | None, then: bytes) -> tuple[int, int, bool]:
    """(added, removed, binary) going from ``now`` (None: no file) to ``then``."""
    if _binary(then) or (now is not None and _binary(now)):
        return 0, 0, True
    before = now.decode("utf-8", errors="replace") if now is not None else ""
    after = then.decode("utf-8", errors="replace")
    added, removed = diff_stats(unified_diff(before, after, "file"))
    return added, removed, False
