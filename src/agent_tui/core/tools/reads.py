"""Which file contents a call may read: the one read-deny every tool obeys.

A ``ReadGuard`` answers, for a *resolved* path (``..`` and symlinks already followed), why its
content must not be returned, or None. The permission layer builds the agent's guard from the
``read_file(PATTERN)`` deny and ask rules; ``mcp serve`` adds the served directory as a bound.
Tools that return file content or names (``read_file``, ``grep``, ``glob``, ``list_dir``) ask it
for every file they would show, so a denied file is withheld from all of them alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from agent_tui.core.sandbox import Hidden


class ReadGuard(Protocol):
    def withheld(self, path: Path) -> str | None:
        """Why ``path`` is withheld — e.g. ``the rule read_file(.env)`` — or None. ``path`` is
        absolute: resolved, or as a call or a walk names it (a guard resolves it itself and
        judges the names it goes by: ``permissions.link_names``)."""
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


@runtime_checkable
class ScopedGuard(Protocol):
    """A guard that withholds by place (``permissions.outside``: what lies outside the
    workspace) and can let one call read below the path its permission decision judged."""

    def scoped(self, root: Path | None) -> ReadGuard: ...


def for_call(guard: ReadGuard, judged: Path | None) -> ReadGuard:
    """``guard`` for one call whose decision judged ``judged`` (the user or a rule let it read
    there: ``list_dir`` of an approved directory outside lists it)."""
    if judged is not None and isinstance(guard, ScopedGuard):
        return guard.scoped(judged)
    return guard
