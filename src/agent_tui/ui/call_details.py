"""How a call's input reads to a person: the path, the command, the edit, the content.

Used by the permission prompt and by an expanded tool card.
"""

from __future__ import annotations

import json
from typing import Any

from textual.content import Content

PREVIEW_LINES = 12
VALUE_CHARS = 300

_OLD_KEYS = ("old_string", "old_str", "old_text", "old")
_NEW_KEYS = ("new_string", "new_str", "new_text", "new")


def _first(input: dict[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    for key in keys:
        if key in input:
            return key, input[key]
    return None, None


def _preview(text: str, limit: int = PREVIEW_LINES) -> tuple[list[str], int]:
    lines = text.splitlines() or [""]
    return lines[:limit], max(0, len(lines) - limit)


def _lines(text: str, prefix: str, style: str) -> list[Content]:
    shown, more = _preview(text)
    out = [Content.styled(f"{prefix}{line}", style) for line in shown]
    if more:
        out.append(Content.styled(f"  … {more} more line{'s' if more != 1 else ''}", "dim"))
    return out


def _field(key: str, value: Any) -> Content:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > VALUE_CHARS:
        text = text[: VALUE_CHARS - 1] + "…"
    return Content.assemble((f"{key}: ", "bold $foreground-muted"), text)


def describe_call(name: str, input: dict[str, Any]) -> Content:
    """A few lines that let the user judge the call without reading JSON."""
    rows: list[Content] = []
    used: set[str] = set()
    if isinstance(command := input.get("command"), str):
        rows.append(Content.assemble(("$ ", "bold $accent"), (command, "bold")))
        used.add("command")
    if isinstance(path := input.get("path"), str):
        rows.append(Content.assemble(("path: ", "bold $foreground-muted"), (path, "bold")))
        used.add("path")
    old_key, old = _first(input, _OLD_KEYS)
    new_key, new = _first(input, _NEW_KEYS)
    if isinstance(old, str) and isinstance(new, str) and old_key and new_key:
        rows += _lines(old, "- ", "$error")
        rows += _lines(new, "+ ", "$success")
        used |= {old_key, new_key}
    if isinstance(content := input.get("content"), str):
        count = len(content.splitlines())
        rows.append(_field("content", f"{count} line{'s' if count != 1 else ''}"))
        rows += _lines(content, "  ", "$foreground 80%")
        used.add("content")
    for key, value in input.items():
        if key not in used and value not in (None, False, "", [], {}):
            rows.append(_field(key, value))
    if not rows:
        rows.append(Content.styled(f"{name} takes no arguments", "dim"))
    return Content("\n").join(rows)
