"""The four states of one MCP connection (``connection.Connection.status``).

Its own module because both halves of a connection read it at run time: the session's life
(``connection``) sets it, the call paths (``call_paths``) decide by it how a request goes and
what a refused one says.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    FAILED = "failed"
    STOPPED = "stopped"


__all__ = ["Status"]
