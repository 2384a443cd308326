"""What the UI and ``mcp list`` show about a server: an immutable snapshot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_tui.core.mcp.adapter import ToolInfo
from agent_tui.core.mcp.config import ServerSpec
from agent_tui.core.mcp.connection import Connection, Status


@dataclass(frozen=True)
class ServerState:
    """A snapshot of one server for lists and panels."""

    name: str
    transport: str
    target: str
    status: str
    """``connecting``, ``connected``, ``failed`` or ``disabled``."""
    reason: str | None = None
    stderr_tail: tuple[str, ...] = ()
    protocol_version: str | None = None
    server_info: str | None = None
    connect_seconds: float | None = None
    tools: tuple[ToolInfo, ...] = ()
    notes: tuple[str, ...] = ()
    source: str | None = None

    @property
    def tool_count(self) -> int:
        return len(self.tools)


def snapshot(
    spec: ServerSpec, conn: Connection | None, tools: Sequence[ToolInfo], *, disabled: bool
) -> ServerState:
    """The state of ``spec``: broken entry, not running (``disabled`` or ``stopped``), or the
    state of its current connection."""
    base = {
        "name": spec.name,
        "transport": spec.transport,
        "target": spec.describe(),
        "source": str(spec.source) if spec.source else None,
    }
    notes = tuple(spec.warnings)
    if spec.error:
        return ServerState(**base, status="failed", reason=spec.error, notes=notes)
    if conn is None or conn.status is Status.STOPPED:
        tail = tuple(conn.stderr_tail()) if conn is not None else ()
        status = "disabled" if disabled else "stopped"
        return ServerState(**base, status=status, notes=notes, stderr_tail=tail)
    return ServerState(
        **base,
        status=conn.status.value,
        reason=conn.reason,
        stderr_tail=tuple(conn.stderr_tail()),
        protocol_version=conn.protocol_version,
        server_info=conn.server_info,
        connect_seconds=conn.connect_seconds,
        tools=tuple(tools),
        notes=notes + tuple(conn.notes),
    )
