"""Which file contents a call may read: the one read-deny every tool obeys.

A ``ReadGuard`` answers, for a *resolved* path (``..`` and symlinks already followed), why its
content must not be returned, or None. The permission layer builds the agent's guard from the
``read_file(PATTERN)`` deny and ask rules; ``mcp serve`` adds the served directory as a bound.
Tools that return file content or names (``read_file``, ``grep``, ``glob``, ``list_dir``) ask it
for every file they would show, so a denied file is withheld from all of them alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from agent_tui.core.sandbox import Hidden


class ReadGuard(Protocol):
    def withheld(self, path: Path) -> str | None:
        """Why ``path`` (resolved) is withheld — e.g. ``the rule read_file(.env)`` — or None."""
        ...

    def hidden(self) -> Hidden:
        """The existing files (and directories) it withholds, for the sandbox to hide."""
        ...


class OpenGuard:
    """The guard that withholds nothing (tools called outside any permission setup)."""

    def withheld(self, path: Path) -> str | None:
        return None

    def hidden(self) -> Hidden:
        return Hidden()


NO_GUARD: ReadGuard = OpenGuard()
