"""The MCP logging levels (``logging/setLevel``, ``notifications/message``), in their order.

The protocol's levels are RFC 5424's syslog levels, least severe first; both sides use them: the
client ranks what a server logs (``client.server_log``) and cycles a server's level, the server
(``server.tool_server``) filters what it sends by the level a client set.
"""

from __future__ import annotations

from typing import Literal

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LEVELS: tuple[LogLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)


def rank(level: str) -> int:
    """The level's place in ``LEVELS`` (an unknown level counts as ``info``)."""
    return LEVELS.index(level) if level in LEVELS else 1


def at_least(level: str, floor: str) -> bool:
    return rank(level) >= rank(floor)


def next_level(level: str | None) -> LogLevel:
    """The level after ``level``, round the list (``None``: the first, ``debug``)."""
    if level not in LEVELS:
        return LEVELS[0]
    return LEVELS[(rank(level) + 1) % len(LEVELS)]


__all__ = ["LEVELS", "LogLevel", "at_least", "next_level", "rank"]
