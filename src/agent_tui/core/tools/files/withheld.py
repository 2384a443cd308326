"""The read guard as the explorers (grep, glob, list_dir) ask it: resolve, judge, count by reason.

``ctx.reads`` judges a *resolved* path, so every file is resolved first: a symlink inside the
tree that points at a denied file (or out of the served directory) is judged by where it
points, not by its own innocent name — and then by the name it was reached by, so a rule that
names a link (or a linked folder on the way) holds too. The tools report how many files were
withheld and why, so the model knows the results are incomplete and does not conclude that a
pattern is absent.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.paths import shown
from agent_tui.core.tools.reads import ReadGuard

MAX_REASONS = 3
"""How many distinct reasons a note names; the rest are summed up (a note stays one line)."""

NEXT_STEP = (
    "It is withheld on purpose: do not try to reach its content another way (other tools, "
    "shell commands, copies or links). Work without it, or ask the user for what you need."
)


def resolved(path: Path) -> Path:
    """Where ``path`` leads: absolute, ``..`` and every symlink followed."""
    return Path(os.path.realpath(path))


def _judged(guard: ReadGuard, path: Path, real: Path) -> str | None:
    """The guard's say on ``real`` (what is opened) and, when it differs, on ``path`` as the
    call or the walk names it: a rule naming a link, or a path through a linked folder, holds
    (the guard matches every name the path goes by)."""
    reason = guard.withheld(real)
    if reason is None and path != real:
        reason = guard.withheld(path if path.is_absolute() else Path(os.path.abspath(path)))
    return reason


def refuse_if_withheld(path: Path, ctx: ToolContext, consequence: str) -> None:
    """Fail with ``withheld`` when the path argument itself is withheld.

    ``consequence`` ends the message, e.g. "its content cannot be searched".
    """
    reason = _judged(ctx.reads, path, resolved(path))
    if reason is not None:
        raise ToolFailure(
            "withheld",
            f"{shown(path, ctx)} is withheld by {reason}: {consequence}.",
            NEXT_STEP,
        )


@dataclass
class Withheld:
    """The guard's verdicts over one call, counted by reason for the call's footer."""

    guard: ReadGuard
    counts: Counter[str] = field(default_factory=Counter)

    def reason(self, path: Path) -> str | None:
        """Why ``path`` (judged where it resolves to) is withheld, or None. Counts it."""
        return self._judge(path)[1]

    def open_path(self, path: Path) -> Path | None:
        """The resolved path to open instead of ``path``, or None when it is withheld.

        Opening the judged (resolved) path rather than the original keeps a symlink swapped
        after the verdict from redirecting the read.
        """
        real, reason = self._judge(path)
        return None if reason is not None else real

    def _judge(self, path: Path) -> tuple[Path, str | None]:
        real = resolved(path)
        reason = _judged(self.guard, path, real)
        if reason is not None:
            self.counts[reason] += 1
        return real, reason

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def note(self) -> str:
        """'' when nothing was withheld; else e.g. "2 file(s) withheld by the rule read_file(.env)".

        Several reasons are listed most frequent first, at most ``MAX_REASONS`` of them.
        """
        if not self.counts:
            return ""
        ranked = sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))
        if len(ranked) == 1:
            return f"{self.total} file(s) withheld by {ranked[0][0]}"
        parts = [f"{count} by {reason}" for reason, count in ranked[:MAX_REASONS]]
        rest = ranked[MAX_REASONS:]
        if rest:
            parts.append(f"{sum(c for _, c in rest)} by {len(rest)} other reason(s)")
        return f"{self.total} file(s) withheld: " + ", ".join(parts)
