"""How a call's input reads to a person: the command, the edit as a diff, the write's path and
size, an MCP tool's server, tool and arguments.

Used by the permission prompt (with ``cwd``: the change is previewed against the file on disk)
and by an expanded tool card.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.content import Content

from agent_tui.ui.calls.diff_view import diff_content, proposed_edit, proposed_write
from agent_tui.ui.common.format import format_size, mcp_parts, plural

PREVIEW_LINES = 12
VALUE_CHARS = 300
COMMAND_LINES = 40

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


def _lines(text: str, prefix: str, style: str, limit: int = PREVIEW_LINES) -> list[Content]:
    shown, more = _preview(text, limit)
    out = [Content.styled(f"{prefix}{line}", style) for line in shown]
    if more:
        out.append(Content.styled(f"  … {more} more line{'s' if more != 1 else ''}", "dim"))
    return out


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _field(key: str, value: Any, style: str = "") -> Content:
    return Content.assemble((f"{key}: ", "bold $foreground-muted"), (_value(value), style))


def _mcp(server: str, tool: str, input: dict[str, Any]) -> Content:
    rows = [
        Content.assemble(("MCP server: ", "bold $foreground-muted"), (server, "bold")),
        Content.assemble(("tool: ", "bold $foreground-muted"), (tool, "bold")),
    ]
    if input:
        rows.append(Content.styled("arguments:", "bold $foreground-muted"))
        for key, value in input.items():
            if isinstance(value, str) and "\n" in value:
                rows.append(Content.styled(f"  {key}:", "bold $foreground-muted"))
                rows += _lines(value, "    ", "$foreground")
            else:
                rows.append(Content.assemble("  ", _field(key, value)))
    else:
        rows.append(Content.styled("no arguments", "dim"))
    return Content("\n").join(rows)


def _write(input: dict[str, Any], content: str, cwd: Path | None) -> list[Content]:
    size = len(content.encode("utf-8"))
    lines = len(content.splitlines())
    rows = [_field("size", f"{plural(lines, 'line')} · {format_size(size)}")]
    replaced, diff = proposed_write(cwd, input) if cwd is not None else (None, None)
    if cwd is not None and replaced is None:
        rows.append(Content.styled("a new file", "$success"))
    elif replaced is not None:
        rows.append(Content.styled(f"replaces the current {format_size(replaced)}", "$warning"))
    if diff:
        rows.append(diff_content(diff))
    else:
        rows += _lines(content, "  ", "$foreground 80%")
    return rows


def describe_call(name: str, input: dict[str, Any], *, cwd: Path | None = None) -> Content:
    """A few lines that let the user judge the call without reading JSON. With ``cwd`` the
    change an edit or a write would make is shown as a diff against the file on disk."""
    if (parts := mcp_parts(name)) is not None:
        return _mcp(*parts, input)
    rows: list[Content] = []
    used: set[str] = set()
    if isinstance(command := input.get("command"), str):
        shown, more = _preview(command, COMMAND_LINES)
        rows.append(Content.assemble(("$ ", "bold $accent"), (shown[0], "bold")))
        rows += [Content.styled(f"  {line}", "bold") for line in shown[1:]]
        if more:
            rows.append(Content.styled(f"  … {more} more lines", "dim"))
        used.add("command")
    if isinstance(path := input.get("path"), str):
        rows.append(Content.assemble(("path: ", "bold $foreground-muted"), (path, "bold")))
        used.add("path")
    old_key, old = _first(input, _OLD_KEYS)
    new_key, new = _first(input, _NEW_KEYS)
    if isinstance(old, str) and isinstance(new, str) and old_key and new_key:
        diff = proposed_edit(cwd, input) if cwd is not None else None
        if diff:
            rows.append(diff_content(diff))
            used.add("more_edits")  # a MultiEdit's further edits: in the diff
        else:
            if cwd is not None:
                rows.append(Content.styled("(no preview: the text is not found as given)", "dim"))
            rows += _lines(old, "- ", "$error")
            rows += _lines(new, "+ ", "$success")
        used |= {old_key, new_key}
    if isinstance(content := input.get("content"), str):
        rows += _write(input, content, cwd)
        used.add("content")
    for key, value in input.items():
        if key not in used and value not in (None, False, "", [], {}):
            rows.append(_field(key, value))
    if not rows:
        rows.append(Content.styled(f"{name} takes no arguments", "dim"))
    return Content("\n").join(rows)
