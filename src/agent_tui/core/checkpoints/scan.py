"""A bounded scan of the workspace (each file's mtime and size) and the difference of two.

What a tool that does not report its changes (``run_shell``) did to files is found by scanning
the workspace before and after it. The scan works on strings with ``os.scandir`` (one ``stat``
per file, none per directory), never follows a symlink, skips ``.git`` directories and the
directories in ``skip`` (the spill directory, the sessions), and stops after ``limit``
entries: what it did not reach is not compared (``Scan.truncated`` says so). Blocking: run it
in a thread.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field

from agent_tui.core.checkpoints.records import ChangeKind, OutsideChange

MAX_ENTRIES = 100_000
"""Directory entries a scan visits before it stops (about 0.5 s; this repository with its
virtualenv is ~15,000)."""
SKIPPED_DIRS = frozenset({".git"})

Stamp = tuple[int, int]
"""(mtime in ns, size)."""


@dataclass
class Scan:
    files: dict[str, Stamp] = field(default_factory=dict)
    """Each file (and symlink) reached: its stamp."""
    complete: set[str] = field(default_factory=set)
    """The directories listed in full."""
    seen: set[str] = field(default_factory=set)
    """Every directory met (listed in full or not)."""
    truncated: bool = False
    entries: int = 0

    def covers(self, path: str) -> bool:
        """Whether the scan would have seen ``path`` had it existed: the directory holding it
        was listed in full, or did not exist and the nearest one that did was."""
        if not self.truncated:
            return True
        parent = os.path.dirname(path)
        while True:
            if parent in self.complete:
                return True
            if parent in self.seen:
                return False
            up = os.path.dirname(parent)
            if up == parent:
                return False
            parent = up


def scan_workspace(root: str, *, limit: int = MAX_ENTRIES, skip: Collection[str] = ()) -> Scan:
    """Every file under ``root`` with its stamp, up to ``limit`` entries (see the module).
    ``skip``: absolute paths of directories not to enter, spelled as under ``root``."""
    scan = Scan()
    skipped = set(skip)
    stack = [root]
    scan.seen.add(root)
    while stack:
        directory = stack.pop()
        try:
            listing = os.scandir(directory)
        except OSError:
            continue
        subdirs: list[str] = []
        with listing:
            for entry in listing:
                if scan.entries >= limit:
                    scan.truncated = True
                    return scan
                scan.entries += 1
                name = entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if name in SKIPPED_DIRS or entry.path in skipped:
                            continue
                        subdirs.append(entry.path)
                        scan.seen.add(entry.path)
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                scan.files[entry.path] = (st.st_mtime_ns, st.st_size)
        scan.complete.add(directory)
        stack.extend(subdirs)
    return scan


def changes_between(
    before: Scan, after: Scan, *, ignore: dict[str, Stamp] | None = None
) -> list[OutsideChange]:
    """What changed from ``before`` to ``after``, sorted by path. ``ignore``: paths the agent
    wrote itself since ``before`` with the stamp it left (still that stamp: not a change)."""
    ignore = ignore or {}
    found: list[tuple[str, ChangeKind]] = []
    for path, stamp in after.files.items():
        old = before.files.get(path)
        if old == stamp or ignore.get(path) == stamp:
            continue
        if old is not None:
            found.append((path, "modified"))
        elif before.covers(path):
            found.append((path, "created"))
    for path in before.files.keys() - after.files.keys():
        if after.covers(path):
            found.append((path, "deleted"))
    found.sort()
    return [OutsideChange(path=path, change=change) for path, change in found]
