"""Pure text helpers shared by the widgets: input summaries, outcomes, durations, labels.

Nothing here touches Textual, so the same wording can be tested (and reused) without an app.
The input summary (``summarize_input``, ``one_line``) lives in the core, which keeps it with
spilled outputs; it is re-exported here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from agent_tui.core.text.call_summary import summarize_input as summarize_input
from agent_tui.core.text.summary import MAX_SUMMARY as MAX_SUMMARY
from agent_tui.core.text.summary import first_line as first_line
from agent_tui.core.text.summary import one_line as one_line
from agent_tui.core.text.summary import plural as plural


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


def format_window(count: int) -> str:
    """A context window as vendors write it: ``200k``, ``128k`` (131,072), ``32k`` (32,768),
    ``1M``, ``1.5M``."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}".removesuffix(".0") + "M"
    if count >= 1000:
        return f"{count // 1024 if count % 1024 == 0 else round(count / 1000)}k"
    return str(count)


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


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line_path(path: str) -> str:
    """``path`` on one line, whole: a control character in it (a directory may be named with
    a newline) written as an escape (``\\n``, ``\\t``, ``\\x1b``), so a one-line widget shows
    all of it, not its text up to the newline."""
    return _CONTROL.sub(lambda m: _ESCAPES.get(m[0], f"\\x{ord(m[0]):02x}"), path)


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


NAMES_SHOWN = 400
"""Characters of a batch's member inputs drawn on one line: the line never wraps (it ends in
an ellipsis), so a batch of a thousand calls costs what one of a screen's width does."""


def member_names(names: Iterable[str]) -> str:
    """``a.py, b.py, …``: the names (taken lazily) as far as one line can show them."""
    shown: list[str] = []
    length = 0
    for name in names:
        if length > NAMES_SHOWN:
            shown.append("…")
            break
        shown.append(name)
        length += len(name) + 2
    return ", ".join(shown)


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
