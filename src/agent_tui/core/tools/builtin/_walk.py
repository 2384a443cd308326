"""Directory walking and glob patterns shared by ``glob`` and ``grep``."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

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

_MAX_BRACE_EXPANSIONS = 64
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


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


def expand_braces(pattern: str) -> list[str]:
    """``*.{ts,tsx}`` -> ``["*.ts", "*.tsx"]`` (nested and repeated groups; bounded)."""
    out, todo = [], [pattern]
    while todo and len(out) + len(todo) <= _MAX_BRACE_EXPANSIONS:
        item = todo.pop()
        match = _BRACES.search(item)
        if match is None:
            out.append(item)
            continue
        for option in match.group(1).split(","):
            todo.append(item[: match.start()] + option + item[match.end() :])
    return sorted(set(out + todo))


def _translate(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex that fully matches posix relative paths selected by a glob pattern.

    ``*`` and ``?`` stay within one path segment, ``**`` spans any number of segments, ``[..]``
    is a character class and ``{a,b}`` alternatives.
    """
    alternatives = [_translate(p) for p in expand_braces(pattern)]
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.DOTALL)


def has_magic(segment: str) -> bool:
    return any(c in segment for c in "*?[{")
