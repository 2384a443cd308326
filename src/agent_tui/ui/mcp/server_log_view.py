"""The Server log section: what the selected server logged (``notifications/message``, the
core's bounded ring), one line each — time, level in its colour, logger, data on one line —
newest at the bottom and followed while the highlight is on the last line. Under the list the
highlighted message's data in full (JSON indented when it is short). The heading says the level
asked for with ``logging/setLevel`` and that ``l`` sets the next one, or why ``l`` cannot
(the server declared no logging capability)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from textual.content import Content

from agent_tui.core.mcp.client.overview import ServerRow
from agent_tui.core.mcp.client.server_log import LogEntry
from agent_tui.core.mcp.log_levels import rank
from agent_tui.ui.common.format import plural
from agent_tui.ui.mcp.section_list import SectionList

LEVEL_STYLE = ("$foreground-muted", "$foreground", "$primary", "$warning")
"""debug, info, notice, warning; error and worse are ``$error`` (bold from critical)."""
MAX_DETAIL = 1_200
"""Characters of a message's data shown in full under the list."""


def level_style(level: str) -> str:
    place = rank(level)
    if place < len(LEVEL_STYLE):
        return LEVEL_STYLE[place]
    return "bold $error" if place > 4 else "$error"


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


def full_data(entry: LogEntry) -> str:
    """The data in full: a string as it is, a short JSON value indented, else one line."""
    if isinstance(entry.data, (dict, list)):
        try:
            pretty = json.dumps(entry.data, indent=2, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            pretty = entry.text
        if len(pretty) <= MAX_DETAIL and pretty.count("\n") <= 12:
            return pretty
    text = entry.data if isinstance(entry.data, str) else entry.text
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…"


class ServerLogView(SectionList):
    follow = True

    def items_of(self, server: ServerRow) -> Sequence[LogEntry]:
        return server.state.log

    def key(self, item: LogEntry) -> str:
        return f"{item.at}:{item.level}:{item.logger}:{item.text[:40]}"

    def line(self, item: LogEntry) -> Content:
        return Content.assemble(
            (_clock(item.at), "$foreground-muted"),
            " ",
            (f"{item.level:<9}", level_style(item.level)),
            (f"{item.logger}  " if item.logger else "", "$text-accent"),
            item.text[:400],
        )

    def detail(self, item: LogEntry) -> Content:
        head = f"{item.level} · {item.logger or 'no logger'} · {_clock(item.at)}"
        return Content.assemble((head, level_style(item.level)), "\n", full_data(item))

    def heading(self, server: ServerRow | None) -> Content | str:
        if server is None:
            return ""
        state = server.state
        if state.status != "connected":
            return ""
        count = plural(len(state.log), "message")
        if not state.can_log:
            return Content.assemble(
                f"{count} · ",
                ("l: no log level to set — the server did not declare logging", "$warning"),
            )
        level = state.log_level or "the server's default"
        return Content.assemble(
            f"{count} · level ",
            (level, f"bold {level_style(state.log_level or 'info')}"),
            ("  · l sets the next level (logging/setLevel)", "$foreground-muted"),
        )

    def empty_text(self, server: ServerRow | None) -> str:
        if server is None:
            return "No server selected."
        state = server.state
        if state.status != "connected" and not state.log:
            return f"No log: {state.name} is {state.status}."
        if not state.can_log:
            return (
                f"{state.name} has logged nothing. It declared no logging capability, "
                "so no log level can be set (l)."
            )
        level = state.log_level or "its default level"
        return f"{state.name} has logged nothing yet (at {level}; l sets the next level)."
