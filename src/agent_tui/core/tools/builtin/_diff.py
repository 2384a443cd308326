"""Unified diffs of text files, as shown to the model and in the UI's edit cards."""

from __future__ import annotations

import difflib


def unified_diff(old: str, new: str, name: str, context: int = 3) -> str:
    """A ``diff -u`` style diff with ``a/`` and ``b/`` paths; line endings are not shown."""
    label = name.lstrip("/")
    lines = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile=f"a/{label}",
        tofile=f"b/{label}",
        n=context,
        lineterm="",
    )
    return "\n".join(lines)
