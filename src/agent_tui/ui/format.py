"""Pure text helpers shared by the widgets: input summaries, outcomes, durations, labels.

Nothing here touches Textual, so the same wording can be tested (and reused) without an app.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# The input keys that best describe a call, most telling first.
_SUMMARY_KEYS = ("path", "file_path", "command", "query", "url", "glob", "name")
MAX_SUMMARY = 80


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


def summarize_input(input: dict[str, Any] | None, raw_arguments: str = "") -> str:
    """A one-line summary of a call's input: its path, command or pattern when it has one."""
    if input is None:
        return one_line(raw_arguments or "(invalid arguments)")
    pattern = input.get("pattern")
    if isinstance(pattern, str) and pattern:
        where = input.get("path")
        return one_line(f"{pattern} in {where}" if isinstance(where, str) and where else pattern)
    for key in _SUMMARY_KEYS:
        value = input.get(key)
        if isinstance(value, str) and value:
            return one_line(value)
    if not input:
        return ""
    return one_line(json.dumps(input, ensure_ascii=False, separators=(", ", ": ")))


def outcome_line(content: str, data: dict[str, Any], is_error: bool) -> str:
    """One line describing a finished call: a line range, an exit code, or the first line."""
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
