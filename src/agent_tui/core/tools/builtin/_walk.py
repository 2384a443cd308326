"""Directory walking shared by ``glob`` and ``grep`` (glob patterns: ``core.globs``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

from agent_tui.core.globs import expand_braces, glob_regex, has_magic, translate

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


def walk_files(
    root: Path, stop: threading.Event, max_depth: int | None = None
) -> Iterator[tuple[Path, str]]:
    """Files under ``root`` in sorted order, as (path, posix path relative to root).

    Skips ``SKIP_DIRS`` below the root, does not follow symlinked directories, and stops early
    when ``stop`` is set. ``max_depth`` 0 lists only the root's own files.
    """
    for dirpath, dirnames, filenames in os.walk(root):
        if stop.is_set():
            return
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        depth = 0 if rel_dir == "." else rel_dir.count("/") + 1
        if max_depth is not None and depth >= max_depth:
            dirnames.clear()
        else:
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        prefix = "" if rel_dir == "." else rel_dir + "/"
        for name in sorted(filenames):
            yield here / name, prefix + name


__all__ = [
    "SKIPPED_TEXT",
    "SKIP_DIRS",
    "expand_braces",
    "glob_regex",
    "has_magic",
    "translate",
    "walk_files",
]
