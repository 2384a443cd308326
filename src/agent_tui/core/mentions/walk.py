"""The workspace's entries for the mention index and for a mentioned directory's listing:
files and directories, breadth first (shallow entries first), skipping what the ignore files
ignore (``core.workspace.ignores``, read the way ``glob`` and ``grep`` read them) and the
directories no walk enters (``.git``, ``node_modules``, caches: ``SKIP_DIRS``).

A symlink is an entry but never entered: what it leads to is judged when it is mentioned.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.tools.files.walk import SKIP_DIRS
from agent_tui.core.workspace import ignores

Stack = tuple[tuple[ignores.IgnoreFile, int, str], ...]
"""Ignore files in force, weakest first: (file, characters to cut from a path relative to the
workspace, text to put before it) gives the path relative to the file's directory."""


@dataclass(frozen=True)
class Entry:
    rel: str
    """Posix path relative to the workspace, without a trailing ``/``."""
    is_dir: bool


def decide(stack: Stack, rel: str, name: str, is_dir: bool) -> bool:
    """Whether the ignore files of ``stack`` ignore ``rel`` (the deepest file that has a say
    decides; within one file, its last matching line)."""
    for ignore, cut, prepend in reversed(stack):
        verdict = ignore.verdict(prepend + rel[cut:], name, is_dir)
        if verdict is not None:
            return verdict
    return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


class Walker:
    """Walks (part of) one workspace; remembers the ignore files of the directories it read,
    so that the watcher can judge one new path without walking again."""

    def __init__(self, workspace: Path, readable: ignores.Readable | None = None) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.readable = readable

    def _own(self, directory: str, rel_dir: str, stack: Stack, names: set[str]) -> Stack:
        """``stack`` with the ignore files of ``directory`` itself added."""
        prefix = rel_dir + "/" if rel_dir else ""
        for file_name in ignores.NAMES:
            if file_name in names:
                read = ignores.read(os.path.join(directory, file_name), file_name, self.readable)
                if read is not None:
                    stack = (*stack, (read, len(prefix), ""))
        return stack

    def root_stack(self) -> Stack:
        found = ignores.inherited(self.workspace, self.workspace, self.readable)
        return tuple((f, 0, prefix) for f, prefix in found)

    def stack_of(self, rel_dir: str) -> Stack | None:
        """The ignore files in force inside the directory ``rel_dir`` ("" for the workspace),
        or None when it (or a directory above it) is ignored or skipped."""
        stack = self.root_stack()
        here = str(self.workspace)
        done = ""
        for name in [part for part in rel_dir.split("/") if part]:
            stack = self._own(here, done, stack, _names(here))
            done = f"{done}/{name}" if done else name
            if name in SKIP_DIRS or decide(stack, done, name, True):
                return None
            here = os.path.join(here, name)
        return self._own(here, done, stack, _names(here))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether the walk would leave ``rel`` out (an ignore file, a skipped directory)."""
        parent, _, name = rel.rpartition("/")
        stack = self.stack_of(parent)
        if stack is None:
            return True
        if is_dir and name in SKIP_DIRS:
            return True
        return decide(stack, rel, name, is_dir)

    def walk(
        self,
        start: str = "",
        stop: threading.Event | None = None,
        max_depth: int | None = None,
    ) -> Iterator[Entry]:
        """The entries below ``start`` (relative to the workspace; "" for all of it), breadth
        first, each directory's entries sorted by name. ``start`` itself is not yielded."""
        stack = self.stack_of(start)
        if stack is None:
            return
        root = os.path.join(self.workspace, start) if start else str(self.workspace)
        todo: deque[tuple[str, str, int, Stack]] = deque([(root, start, 0, stack)])
        while todo:
            if stop is not None and stop.is_set():
                return
            here, rel_dir, depth, stack = todo.popleft()
            try:
                with os.scandir(here) as listing:
                    items = sorted(listing, key=lambda e: e.name)
            except OSError:
                continue
            if depth:  # the start's own ignore files are in stack_of's answer
                stack = self._own(here, rel_dir, stack, {e.name for e in items})
            prefix = rel_dir + "/" if rel_dir else ""
            check = bool(stack)
            for item in items:
                name = item.name
                rel = prefix + name
                is_dir = _is_dir(item)
                if is_dir and name in SKIP_DIRS:
                    continue
                if check and decide(stack, rel, name, is_dir):
                    continue
                yield Entry(rel, is_dir)
                if is_dir and (max_depth is None or depth + 1 < max_depth):
                    todo.append((item.path, rel, depth + 1, stack))


def _names(directory: str) -> set[str]:
    """Which ignore files ``directory`` holds (a stat each, not a listing)."""
    return {n for n in ignores.NAMES if os.path.lexists(os.path.join(directory, n))}
