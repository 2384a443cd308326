"""A bounded scan of the workspace (each file's mtime and size) and the difference of two.

What a tool that does not report its changes (``run_shell``) did to files is found by scanning
the workspace before and after it. The scan works on strings with ``os.scandir`` (one ``stat``
per file, none per directory), never follows a symlink, skips ``.git`` directories and the
directories in ``skip`` (the spill directory, the sessions), and stops after ``limit``
entries: what it did not reach is not compared (``Scan.truncated`` says so). With ``ignores``
it reads the ignore files as git does (``core.workspace.ignores``) and notes what they ignore
(``Scan.ignored``): still scanned, so a change there is seen, but not kept by a ``Shadow``.
Blocking: run it in a thread.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.checkpoints.records import ChangeKind, OutsideChange
from agent_tui.core.workspace import ignores as ignore_files

MAX_ENTRIES = 100_000
"""Directory entries a scan visits before it stops (about 0.5 s; this repository with its
virtualenv is ~15,000)."""
SKIPPED_DIRS = frozenset({".git"})
GIT_STATE = ("HEAD", "index", "packed-refs", "logs/HEAD", "refs/heads", "refs/tags")
"""What of ``.git`` a scan stamps: git moves the reflog ``logs/HEAD`` on every commit,
checkout, reset or merge, and renames a ref into its directory."""

Stamp = tuple[int, int, int, int]
"""(mtime in ns, size, mode, inode): a ``chmod`` or a file renamed over another is a change."""
IgnoreStack = tuple[tuple[ignore_files.IgnoreFile, int, str], ...]


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_mtime_ns, st.st_size, st.st_mode, st.st_ino)


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
    ignored: set[str] = field(default_factory=set)
    """The files and directories an ignore file ignores (with ``ignores``)."""
    git: tuple[Stamp | None, ...] = ()
    """The stamps of ``GIT_STATE`` in the root's ``.git`` (with ``ignores``): what a commit,
    checkout or reset changes there, which no rewind restores."""
    linked: set[str] = field(default_factory=set)
    """The files with other hard links (``st_nlink`` > 1): a write through another of their
    names changes them with no event in their directory (``Journal`` gives up on them)."""
    serial: int = field(default=0, compare=False)
    """Which scan of a ``Journal`` it is (0: not one)."""
    delta: tuple[int, frozenset[str]] | None = field(default=None, compare=False, repr=False)
    """(the ``serial`` of the scan it was made from, the paths whose entry in ``files`` may
    differ from that scan's): every other path is as it was there (``Journal``)."""

    def is_ignored(self, path: str) -> bool:
        """Whether ``path`` or a directory above it is ignored."""
        while path not in self.ignored:
            up = os.path.dirname(path)
            if up == path:
                return False
            path = up
        return True

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


def scan_workspace(
    root: str,
    *,
    limit: int = MAX_ENTRIES,
    skip: Collection[str] = (),
    ignores: bool = False,
    hooks: WalkHooks | None = None,
) -> Scan:
    """Every file under ``root`` with its stamp, up to ``limit`` entries (see the module).
    ``skip``: absolute paths of directories not to enter, spelled as under ``root``.
    ``hooks``: told of each directory before and after it is listed (``checkpoints.journal``)."""
    scan = Scan()
    start: IgnoreStack = ()
    if ignores:
        found = ignore_files.inherited(Path(root), Path(root))
        start = tuple((f, 0, prefix) for f, prefix in found)
        scan.git = git_state(root)
    scan.seen.add(root)
    walk(
        scan,
        [(root, start, False)],
        Walk(len(root.rstrip(os.sep)) + 1, set(skip), limit, ignores),
        hooks,
    )
    return scan


@dataclass(frozen=True)
class Walk:
    """How a walk goes: where relative paths start (``cut``), what it skips, its limit."""

    cut: int
    skipped: Collection[str]
    limit: int
    ignores: bool


class WalkHooks:
    """What a walk tells of each directory (nothing here)."""

    def before(self, directory: str) -> None:
        """About to list ``directory`` (raise to stop the walk)."""

    def listed(
        self, directory: str, rules: IgnoreStack, inside_ignored: bool, names: list[str]
    ) -> None:
        """``directory`` listed: its rules (its own files read), and the names in it."""


Pending = tuple[str, IgnoreStack, bool]
"""A directory to list: its path, the rules from above, whether inside an ignored one."""


def walk(scan: Scan, stack: list[Pending], how: Walk, hooks: WalkHooks | None = None) -> None:
    """List the directories of ``stack`` and those below them into ``scan`` (the module)."""
    while stack:
        directory, rules, inside_ignored = stack.pop()
        if hooks is not None:
            hooks.before(directory)
        try:
            listing = os.scandir(directory)
        except OSError:
            continue
        subdirs: list[Pending] = []
        with listing:
            entries = list(listing)
        if how.ignores and not inside_ignored:
            rules = _with_own_rules(directory, entries, rules, how.cut)
        if hooks is not None:
            hooks.listed(directory, rules, inside_ignored, [entry.name for entry in entries])
        for entry in entries:
            if scan.entries >= how.limit:
                scan.truncated = True
                return
            scan.entries += 1
            below = enter(scan, entry, rules, inside_ignored, how)
            if below is not None:
                subdirs.append(below)
        scan.complete.add(directory)
        stack.extend(subdirs)


def enter(
    scan: Scan, entry: os.DirEntry[str], rules: IgnoreStack, inside_ignored: bool, how: Walk
) -> Pending | None:
    """Note ``entry`` of a directory listed in ``scan``: a file's stamp, or the directory to
    list (returned)."""
    name = entry.name
    try:
        is_dir = entry.is_dir(follow_symlinks=False)
        if is_dir and (name in SKIPPED_DIRS or entry.path in how.skipped):
            return None
        if rules and not inside_ignored and _ignored(rules, entry.path[how.cut :], name, is_dir):
            scan.ignored.add(entry.path)
            if is_dir:
                scan.seen.add(entry.path)
                return (entry.path, rules, True)
        if is_dir:
            scan.seen.add(entry.path)
            return (entry.path, rules, inside_ignored)
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    scan.files[entry.path] = stamp_of(st)
    if st.st_nlink > 1 and not stat.S_ISDIR(st.st_mode):
        scan.linked.add(entry.path)
    return None


def git_state(root: str) -> tuple[Stamp | None, ...]:
    stamps: list[Stamp | None] = []
    for name in GIT_STATE:
        try:
            stamps.append(stamp_of(os.stat(os.path.join(root, ".git", name))))
        except OSError:
            stamps.append(None)
    return tuple(stamps)


def _with_own_rules(
    directory: str, entries: list[os.DirEntry[str]], rules: IgnoreStack, cut: int
) -> IgnoreStack:
    """``rules`` and the ignore files of ``directory`` (stronger)."""
    names = {entry.name for entry in entries}
    prefix = len(directory[cut:]) + 1 if len(directory) >= cut else 0
    for file_name in ignore_files.NAMES:
        if file_name in names:
            read = ignore_files.read(os.path.join(directory, file_name), file_name)
            if read is not None:
                rules = (*rules, (read, prefix, ""))
    return rules


def _ignored(rules: IgnoreStack, rel: str, name: str, is_dir: bool) -> bool:
    for ignore, cut, prepend in reversed(rules):
        verdict = ignore.verdict(prepend + rel[cut:], name, is_dir)
        if verdict is not None:
            return verdict
    return False


def delta_from(before: Scan, after: Scan) -> frozenset[str] | None:
    """The paths that may differ from ``before`` to ``after`` when a journal made ``after``
    from ``before`` (``Scan.delta``); None otherwise (compare all)."""
    if after is before:  # a journal that saw nothing since
        return frozenset()
    if after.delta is None or before.serial == 0 or after.delta[0] != before.serial:
        return None
    return after.delta[1]


def _items(files: dict[str, Stamp], paths: Collection[str]) -> list[tuple[str, Stamp]]:
    return [(path, files[path]) for path in paths if path in files]


def changes_between(
    before: Scan, after: Scan, *, ignore: dict[str, Stamp] | None = None
) -> list[OutsideChange]:
    """What changed from ``before`` to ``after``, sorted by path. ``ignore``: paths the agent
    wrote itself since ``before`` with the stamp it left (still that stamp: not a change)."""
    ignore = ignore or {}
    found: list[tuple[str, ChangeKind]] = []
    delta = delta_from(before, after)
    now = after.files.items() if delta is None else _items(after.files, delta)
    for path, stamp in now:
        old = before.files.get(path)
        if old == stamp or ignore.get(path) == stamp:
            continue
        if old is not None:
            found.append((path, "modified"))
        elif before.covers(path):
            found.append((path, "created"))
    gone = before.files.keys() - after.files.keys() if delta is None else delta - after.files.keys()
    for path in gone:
        if path in before.files and after.covers(path):
            found.append((path, "deleted"))
    found.sort()
    return [OutsideChange(path=path, change=change) for path, change in found]
