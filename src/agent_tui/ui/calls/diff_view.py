"""Unified diffs for people: coloured lines, and the diff a pending edit or write would make.

The permission prompt shows the change a call *will* make (computed here from the file on disk
and the call's input, never written); a finished edit's card shows the diff the tool returned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.content import Content

MAX_PREVIEW_BYTES = 2 * 1024 * 1024
"""Files larger than this are not read to preview a change."""
MAX_DIFF_LINES = 400


def unified_diff(old: str, new: str, name: str) -> str:
    """The same diff write_file returns (imported when first needed: the tools package is
    not part of the UI's start-up); a byte of ``old`` that is not valid UTF-8 is shown as
    ``\\xNN``."""
    from agent_tui.core.text.utf8 import escape_bytes
    from agent_tui.core.tools.files.diff import unified_diff as diff

    return escape_bytes(diff(old, new, name))[0]


def diff_content(diff: str, limit: int = MAX_DIFF_LINES) -> Content:
    """A unified diff with added lines green, removed red, hunk headers accented."""
    lines = diff.splitlines()
    rows: list[Content] = []
    for line in lines[:limit]:
        if line.startswith(("+++", "---")):
            rows.append(Content.styled(line, "bold $foreground-muted"))
        elif line.startswith("@@"):
            rows.append(Content.styled(line, "$accent"))
        elif line.startswith("+"):
            rows.append(Content.styled(line, "$success"))
        elif line.startswith("-"):
            rows.append(Content.styled(line, "$error"))
        else:
            rows.append(Content(line))
    if len(lines) > limit:
        more = len(lines) - limit
        rows.append(Content.styled(f"… {more:,} more diff lines", "dim"))
    return Content("\n").join(rows)


def _read(path: Path) -> str | None:
    """The text of ``path`` for a preview, decoded as the file tools decode it (a byte that is
    not valid UTF-8 kept as U+DC80–U+DCFF), or None (missing, too big, binary)."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_PREVIEW_BYTES:
            return None
        raw = path.read_bytes()
    except OSError:
        return None
    from agent_tui.core.tools.files.paths import SAMPLE_BYTES, looks_binary

    if looks_binary(raw[:SAMPLE_BYTES]):
        return None
    return raw.decode("utf-8", "surrogateescape")


def _target(cwd: Path, input: dict[str, Any]) -> tuple[Path, str] | None:
    raw = input.get("path")
    if not isinstance(raw, str) or not raw:
        return None
    path = Path(raw).expanduser()
    return (path if path.is_absolute() else cwd / path), raw


def proposed_edit(cwd: Path, input: dict[str, Any]) -> str | None:
    """The diff ``edit_file`` would make with ``input`` (matched as the tool matches, CRLF
    files included; with ``more_edits``, all its edits together), or None when it cannot be
    previewed (the file is missing or large, or an ``old_string`` does not match as the tool
    requires)."""
    target = _target(cwd, input)
    old, new = input.get("old_string"), input.get("new_string")
    if target is None or not isinstance(old, str) or not isinstance(new, str) or not old:
        return None
    text = _read(target[0])
    if text is None:
        return None
    from agent_tui.core.tools.builtin.edit_file import preview_diff

    more: list[tuple[str, str, bool]] = []
    for step in input.get("more_edits") or []:
        edit = (step.get("old_string"), step.get("new_string")) if isinstance(step, dict) else ()
        if len(edit) != 2 or not isinstance(edit[0], str) or not isinstance(edit[1], str):
            return None
        more.append((edit[0], edit[1], bool(step.get("replace_all"))))
    return preview_diff(text, old, new, bool(input.get("replace_all")), target[1], more)


def proposed_write(cwd: Path, input: dict[str, Any]) -> tuple[int | None, str | None]:
    """(size in bytes of the file a write replaces — None when it is new, the diff of the
    replacement — None when new, large or not text)."""
    target = _target(cwd, input)
    content = input.get("content")
    if target is None or not isinstance(content, str):
        return None, None
    path = target[0]
    try:
        size = path.stat().st_size if path.is_file() else None
    except OSError:
        size = None
    if size is None:
        return None, None
    text = _read(path)
    return size, (unified_diff(text, content, target[1]) or None) if text is not None else None
