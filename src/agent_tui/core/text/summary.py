"""The one line a tool writes about its result (``ToolOutput.summary``): counted, short, and
the same wherever it is shown (a card live, after a resume, headless JSON)."""

from __future__ import annotations

MAX_SUMMARY = 80
"""Characters of a summary."""


def one_line(text: str, limit: int = MAX_SUMMARY) -> str:
    """``text`` folded onto one line and cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 1)] + "…"


def first_line(text: str, limit: int = MAX_SUMMARY) -> str:
    """The first non-blank line of ``text``, shortened."""
    for line in text.splitlines():
        if line.strip():
            return one_line(line, limit)
    return ""


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``3 files``, ``2 searches`` (``many`` when the plural is irregular)."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def diff_stats(diff: str) -> tuple[int, int]:
    """(added, removed) lines of a unified diff (the ``---``/``+++`` headers not counted)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def changed(added: int, removed: int, *, created: bool = False) -> str:
    """``+12 −3`` for a change, ``+9 · new file`` for a file created."""
    if created:
        return f"+{added} · new file"
    return f"+{added} −{removed}"


def withheld_note(withheld: int) -> str:
    """`` · 2 withheld`` when a read rule kept files out of the answer, else nothing."""
    return f" · {withheld} withheld" if withheld else ""


def default_summary(content: str) -> str:
    """The summary of a result whose tool wrote none (an MCP tool): its first line."""
    return first_line(content) or "(no output)"
