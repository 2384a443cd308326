"""What a server logs to the client (``notifications/message``): kept per server, bounded.

Each entry keeps the level, the logger and the data as sent (``data`` may be any JSON value;
``text`` renders it on one line). The ring keeps the last ``MAX_ENTRIES``; the levels are the
protocol's (``log_levels``: RFC 5424 syslog order), so ``at_least`` compares them without
parsing text.
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.mcp.log_levels import at_least

MAX_ENTRIES = 200
MAX_TEXT = 2_000
"""Characters of one entry's data kept (a server logging a megabyte keeps the app light)."""


@dataclass(frozen=True)
class LogEntry:
    server: str
    level: str
    logger: str | None
    data: Any
    at: float = field(default_factory=time.time)

    @property
    def text(self) -> str:
        """``data`` on one line: a string as it is, anything else as compact JSON."""
        raw = self.data if isinstance(self.data, str) else _json(self.data)
        line = " ".join(raw.split())
        return line if len(line) <= MAX_TEXT else line[: MAX_TEXT - 1] + "…"

    @property
    def severe(self) -> bool:
        """Error or worse: worth telling the user outside the panel."""
        return at_least(self.level, "error")


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


class ServerLog:
    """The last ``MAX_ENTRIES`` messages of one server, oldest first."""

    def __init__(self, server: str, limit: int = MAX_ENTRIES) -> None:
        self.server = server
        self._entries: deque[LogEntry] = deque(maxlen=limit)
        self.total = 0
        """Every message received, also those the ring has let go."""

    def add(self, level: str, logger: str | None, data: Any) -> LogEntry:
        entry = LogEntry(self.server, str(level), logger, data)
        self._entries.append(entry)
        self.total += 1
        return entry

    def entries(self) -> tuple[LogEntry, ...]:
        return tuple(self._entries)


__all__ = ["LogEntry", "ServerLog"]
