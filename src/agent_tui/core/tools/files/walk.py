"""Directory walking shared by ``glob`` and ``grep`` (glob patterns: ``core.workspace.globs``;
ignore files: ``core.workspace.ignores``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.tools.base import ToolContext
from agent_tui.core.workspace.globs import expand_braces, glob_regex, has_magic, translate

if TYPE_CHECKING:
    from agent_tui.core.workspace import ignores

    _Stack = tuple[tuple[ignores.IgnoreFile, int, str], ...]
    """Ignore files in force, weakest first: (file, characters to cut from a path relative to
    the walk's root, text to put before it) gives the path relative to the file's directory."""

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)
"""Directories never descended into (VCS data, dependencies, caches). The search root itself
is searched even if it has one of these names, so they can still be searched explicitly."""

SKIPPED_TEXT = ", ".join(sorted(SKIP_DIRS))

IGNORE_TEXT = (
    "Skips .git, node_modules, .venv, caches and (counted) ignored files (.gitignore, .ignore); "
    "include_ignored=true includes them."
)
"""What grep and glob skip (``SKIP_DIRS`` in short: the whole list would cost tokens in every
request, and ignored files as ripgrep skips them)."""

MAX_COUNTED = 100_000
"""Entries of ignored directories listed to count what they hold; beyond, the count is a
lower bound ("100,000+")."""


@dataclass
class Ignored:
    """Ignore files honoured by one walk, and what they made it skip.

    ``wanted`` says which skipped files (posix path relative to the walk's root) count: those
    that the call would have shown (a glob's matches, grep's filter). The files inside an
    ignored directory are counted too, by listing it (``MAX_COUNTED`` entries at most); its
    ignore files are not read and none of its files is opened.
    """

    workspace: Path | None = None
    readable: ignores.Readable | None = None
    """The read guard's say on each ignore file (a withheld one is not honoured)."""
    wanted: Callable[[str], bool] | None = None
    files: int = 0
    capped: bool = False
    kinds: set[str] = field(default_factory=set)
    listed: int = 0

    def note(self, action: str, noun: str = "file") -> str:
        """'' or e.g. ``1,204 ignored files skipped (.gitignore); include_ignored=true
        searches them`` (``action``: "searches" or "lists")."""
        if not self.files:
            return ""
        count = f"{self.files:,}+" if self.capped else f"{self.files:,}"
        many = "" if self.files == 1 and not self.capped else "s"
        kinds = ", ".join(sorted(self.kinds, key=_KIND_ORDER.index))
        return f"{count} ignored {noun}{many} skipped ({kinds}); include_ignored=true {action} them"

    def _count(self, rel: str) -> None:
        if self.wanted is None or self.wanted(rel):
            self.files += 1

    def _count_tree(
        self, path: str, rel: str, depth: int, max_depth: int | None, stop: threading.Event
    ) -> None:
        """Count the files below an ignored directory (``depth``: its own depth)."""
        todo = [(path, rel, depth)]
        while todo and not stop.is_set():
            here, rel_here, level = todo.pop()
            if max_depth is not None and level > max_depth:
                continue
            try:
                with os.scandir(here) as entries:
                    items = list(entries)
            except OSError:
                continue
            for entry in items:
                self.listed += 1
                if self.listed > MAX_COUNTED:
                    self.capped = True
                    return
                sub = f"{rel_here}/{entry.name}"
                if _is_dir(entry):
                    if not entry.is_symlink() and entry.name not in SKIP_DIRS:
                        todo.append((entry.path, sub, level + 1))
                else:
                    self._count(sub)


_KIND_ORDER = [".gitignore", ".ignore", ".git/info/exclude"]


def guarded(ctx: ToolContext) -> ignores.Readable:
    """The read guard of ``ctx`` as ``Ignored.readable`` (given real paths)."""
    return lambda real: ctx.reads.withheld(Path(real)) is None


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _decide(stack: _Stack, rel: str, name: str, is_dir: bool) -> str | None:
    """The kind of ignore file that ignores ``rel``, or None (not ignored)."""
    for ignore, cut, prepend in reversed(stack):
        verdict = ignore.verdict(prepend + rel[cut:], name, is_dir)
        if verdict is not None:
            return ignore.kind if verdict else None
    return None


def walk_files(
    root: Path,
    stop: threading.Event,
    max_depth: int | None = None,
    ignored: Ignored | None = None,
) -> Iterator[tuple[Path, str]]:
    """Files under ``root`` in sorted order, as (path, posix path relative to root).

    Skips ``SKIP_DIRS`` below the root, does not follow symlinked directories, and stops early
    when ``stop`` is set. ``max_depth`` 0 lists only the root's own files. With ``ignored``,
    what the ignore files say is ignored is skipped and counted there (``root`` itself is
    searched even if it is ignored: it was asked for by name).
    """
    stack: _Stack = ()
    if ignored is not None:
        from agent_tui.core.workspace import ignores  # here: ~1 ms of start-up otherwise

        found = ignores.inherited(root, ignored.workspace, ignored.readable)
        stack = tuple((f, 0, prefix) for f, prefix in found)
    # Depth first, each directory's files before its subdirectories (as os.walk yields them).
    todo: list[tuple[str, str, int, _Stack]] = [(str(root), "", 0, stack)]
    while todo:
        if stop.is_set():
            return
        here, rel_dir, depth, stack = todo.pop()
        try:
            with os.scandir(here) as entries:
                items = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        prefix = rel_dir + "/" if rel_dir else ""
        if ignored is not None:
            names = {e.name for e in items}
            for file_name in ignores.NAMES:
                if file_name in names:
                    path = os.path.join(here, file_name)
                    read = ignores.read(path, file_name, ignored.readable)
                    if read is not None:
                        stack = (*stack, (read, len(prefix), ""))
        dirs: list[tuple[str, str]] = []
        here_path = Path(here)
        check = ignored is not None and bool(stack)
        for entry in items:
            name = entry.name
            rel = prefix + name
            is_dir = _is_dir(entry)
            if is_dir and (name in SKIP_DIRS or entry.is_symlink()):
                continue
            if check:
                assert ignored is not None
                kind = _decide(stack, rel, name, is_dir)
                if kind is not None:
                    ignored.kinds.add(kind)
                    if is_dir:
                        ignored._count_tree(entry.path, rel, depth + 1, max_depth, stop)
                    else:
                        ignored._count(rel)
                    continue
            if is_dir:
                dirs.append((entry.path, rel))
            else:
                yield here_path / name, rel
        if max_depth is None or depth + 1 <= max_depth:
            todo.extend((path, rel, depth + 1, stack) for path, rel in reversed(dirs))


__all__ = [
    "IGNORE_TEXT",
    "SKIPPED_TEXT",
    "SKIP_DIRS",
    "Ignored",
    "expand_braces",
    "glob_regex",
    "guarded",
    "has_magic",
    "translate",
    "walk_files",
]
