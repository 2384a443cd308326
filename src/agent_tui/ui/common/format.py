"""Pure text helpers shared by the widgets: input summaries, outcomes, durations, labels.

Nothing here touches Textual, so the same wording can be tested (and reused) without an app.
The input summary (``summarize_input``, ``one_line``) lives in the core, which keeps it with
spilled outputs; it is re-exported here.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from agent_tui.core.call_summary import MAX_SUMMARY, one_line
from agent_tui.core.call_summary import summarize_input as summarize_input

_WROTE = re.compile(r"Wrote ([\d,]+) lines?")
"""How write_file reports the lines it wrote."""


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


def _counted(data: dict[str, Any]) -> str | None:
    """``12 files`` / ``3 matches`` / ``8 entries`` from the data of glob, grep, list_dir, with
    ``· 1 withheld`` when a read rule kept files out (so the card's one line says so)."""
    withheld = data.get("withheld")
    note = f" · {withheld} withheld" if isinstance(withheld, int) and withheld else ""
    if isinstance(matches := data.get("matches"), int):
        more = "+" if data.get("truncated") else ""
        return (plural(matches, "match", "matches") + more if matches else "no matches") + note
    if isinstance(count := data.get("count"), int):
        if "pattern" in data:
            return (plural(count, "file") if count else "no files") + note
        return (plural(count, "entry", "entries") if count else "empty") + note
    return None


def outcome_line(content: str, data: dict[str, Any], is_error: bool) -> str:
    """One line describing a finished call: a line range, files found, an exit code,
    ``+12 −3`` for an edit, or the first line of the output."""
    exit_code = data.get("exit_code", data.get("returncode"))
    if is_error and isinstance(exit_code, int):
        tail = first_line(content, 60)
        return f"exit {exit_code}" + (f" · {tail}" if tail else "")
    total = data.get("total_lines")
    if isinstance(total, int) and not is_error:
        first, last = data.get("first"), data.get("last")
        if total == 0:
            return "empty file"
        if isinstance(first, int) and isinstance(last, int):
            return f"lines {first}–{last} of {total:,}"
        return f"{total:,} lines"
    if isinstance(exit_code, int) and not is_error:
        return f"exit {exit_code}"
    if not is_error and isinstance(diff := data.get("diff"), str) and diff:
        added, removed = diff_stats(diff)
        note = " · new file" if data.get("created") else ""
        return f"+{added} −{removed}{note}"
    if not is_error and (counted := _counted(data)):
        return counted
    if not is_error and data.get("created") and (wrote := _WROTE.search(content)):
        return f"+{wrote.group(1)} · new file"
    if is_error and (structured := _structured_error(content)):
        return structured
    return first_line(content) or "(no output)"


def _structured_error(content: str) -> str | None:
    """``code: message`` from a structured tool error as the model saw it (JSON), if it is one."""
    if not content.lstrip().startswith("{"):
        return None
    try:
        payload = json.loads(content)
    except json.JSONDecodeError:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("error"), str):
        return None
    code = payload.get("code")
    return one_line(f"{code}: {payload['error']}" if isinstance(code, str) else payload["error"])


def format_elapsed(seconds: float, *, live: bool = False) -> str:
    """``12ms``, ``0.4s``, ``12s``, ``3m05s``: precise while short, calm when long.

    ``live`` (a ticking clock) never switches to milliseconds, which would flicker.
    """
    seconds = max(0.0, seconds)
    if seconds < 1 and not live:
        return f"{int(seconds * 1000)}ms"
    if seconds < 10:
        return f"{seconds:.1f}s"
    if seconds < 60:
        return f"{int(seconds)}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s"


def format_tokens(count: int) -> str:
    """``950``, ``12.3k``, ``1.2M``."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def shorten_home(path: Path | str, home: Path | None = None) -> str:
    """``path`` with the home directory written as ``~``."""
    text = str(path)
    home_text = str(home if home is not None else Path.home())
    if (
        home_text
        and home_text != os.sep
        and (text == home_text or text.startswith(home_text + os.sep))
    ):
        return "~" + text[len(home_text) :]
    return text


def model_label(name: str) -> str:
    """The model as shown to the user: a script path is cut to its file name."""
    kind, sep, rest = name.partition(":")
    if sep and kind == "script" and rest:
        return f"script:{Path(rest).name}"
    return name


# How a parallel batch is titled, by the kind of its members: "Read 4 files", "3 searches".
_GROUP_KINDS: dict[str, tuple[str, str, str]] = {
    "read_file": ("Read", "file", "files"),
    "glob": ("", "search", "searches"),
    "grep": ("", "search", "searches"),
    "search_tool": ("", "search", "searches"),
    "list_dir": ("", "listing", "listings"),
}


def group_title(names: list[str]) -> str:
    """``Read 4 files``, ``3 searches``, ``Read 2 files · 1 listing``, ``2 github calls``."""
    counts: dict[tuple[str, str, str], int] = {}
    for name in names:
        kind = _GROUP_KINDS.get(name)
        if kind is None:
            server, _, tool = name.removeprefix("mcp__").partition("__")
            label = server if name.startswith("mcp__") and tool else name
            kind = ("", f"{label} call", f"{label} calls")
        counts[kind] = counts.get(kind, 0) + 1
    parts = []
    for (verb, one, many), count in counts.items():
        text = plural(count, one, many)
        parts.append(f"{verb} {text}" if verb else text)
    title = " · ".join(parts)
    return title[:1].upper() + title[1:]


def mcp_parts(name: str) -> tuple[str, str] | None:
    """(server, tool) of an MCP tool name ``mcp__server__tool``; None for other tools."""
    if not name.startswith("mcp__"):
        return None
    server, sep, tool = name.removeprefix("mcp__").partition("__")
    return (server, tool) if sep and server and tool else None


def format_size(size: int) -> str:
    """``512 B``, ``2.1 KB``, ``3.4 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPINNER_STEP = 0.1


def spinner_frame(now: float) -> str:
    """The spinner glyph at clock time ``now`` (the same for every running card)."""
    return SPINNER[int(now / SPINNER_STEP) % len(SPINNER)]
