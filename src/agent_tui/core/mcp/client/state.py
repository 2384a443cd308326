"""The state of an MCP server: its connection's ``Status``, and the ``ServerState`` snapshot.

``Status`` is one of the four states of a connection (``connection.Connection.status``): the
session's life (``connection``) sets it, the call paths (``call_paths``) decide by it how a
request goes and what a refused one says. ``ServerState`` is what the UI and ``mcp list`` show
about a server, an immutable snapshot (``snapshot``) whose ``status`` adds the states of a
server that is not running (``disabled``, ``lazy``, a broken entry). ``start_failure`` and
``failure_info`` (and ``not_running``) are what a server that is not running says, in a
warning and to a call.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from agent_tui.core.mcp.client.adapter import ToolInfo
from agent_tui.core.mcp.client.backoff import Reconnect
from agent_tui.core.mcp.client.disabled import DisabledBy
from agent_tui.core.mcp.client.failures import FailureKind, unavailable
from agent_tui.core.mcp.client.resources import ResourceInfo, ResourceSide
from agent_tui.core.mcp.client.server_log import LogEntry
from agent_tui.core.mcp.config.spec import PROJECT_FILE, ServerSpec
from agent_tui.core.tools.errors import ToolErrorInfo, ToolFailure


class Status(StrEnum):
    """The four states of one connection."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    FAILED = "failed"
    STOPPED = "stopped"


class LiveServer(Protocol):
    """What a snapshot reads of a server's connection (``connection.Connection``)."""

    @property
    def status(self) -> Status: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def protocol_version(self) -> str | None: ...
    @property
    def server_info(self) -> str | None: ...
    @property
    def connect_seconds(self) -> float | None: ...
    @property
    def auth_required(self) -> bool: ...
    @property
    def failure_kind(self) -> FailureKind | None: ...
    @property
    def http_status(self) -> int | None: ...
    @property
    def notes(self) -> list[str]: ...
    @property
    def side(self) -> ResourceSide: ...
    @property
    def reconnect(self) -> Reconnect | None: ...
    def stderr_tail(self, lines: int = 20) -> list[str]: ...


@dataclass(frozen=True)
class ServerState:
    """A snapshot of one server for lists and panels."""

    name: str
    transport: str
    target: str
    status: str
    """``connecting``, ``connected``, ``failed``, ``disabled``, ``stopped``, or ``lazy``: not
    started, its tools (``tools``) from its cached list; it starts on the first call of one."""
    reason: str | None = None
    """Why it failed, or why it is disabled."""
    stderr_tail: tuple[str, ...] = ()
    protocol_version: str | None = None
    server_info: str | None = None
    connect_seconds: float | None = None
    tools: tuple[ToolInfo, ...] = ()
    notes: tuple[str, ...] = ()
    source: str | None = None
    disabled_by: DisabledBy | None = None
    """Set when the status is ``disabled``."""
    disabled_in_file: bool = False
    """Its entry says ``"disabled": true`` (even when it was enabled for this session)."""
    can_sign_in: bool = False
    """An HTTP server with OAuth sign-in on (``a`` in the panel, ``mcp login``)."""
    grant: str | None = None
    """The OAuth grant its entry names when it needs no browser (``client_credentials``,
    ``jwt_bearer``, ``enterprise_managed``): sign-in gets a new token without one."""
    auth_required: bool = False
    """It failed because it needs sign-in (HTTP 401)."""
    failure_kind: FailureKind | None = None
    """What kind of failure ``reason`` is when the status is ``failed`` (``sign_in``,
    ``forbidden``, ``not_found``, ``server_error``, ...: ``failures.FailureKind``); the UI
    chooses its words and actions by it."""
    http_status: int | None = None
    """The HTTP status it failed with (401, 403, 404, 5xx, ...), when that is what failed."""
    resources: tuple[ResourceInfo, ...] = ()
    """Its resources, then its resource templates (``template=True``)."""
    log: tuple[LogEntry, ...] = ()
    """The last messages it logged (``notifications/message``), oldest first."""
    log_level: str | None = None
    """The level set with ``logging/setLevel`` (None: the server's own default)."""
    can_log: bool = False
    """It has the logging capability (``logging/setLevel`` works)."""
    reconnect: Reconnect | None = None
    """A ``failed`` HTTP server that reconnects by itself: the next attempt and when
    (``backoff``; ``reconnect.describe()``: ``reconnecting in 4 s (attempt 3)``)."""

    @property
    def tool_count(self) -> int:
        return len(self.tools)


def snapshot(
    spec: ServerSpec,
    conn: LiveServer | None,
    tools: Sequence[ToolInfo],
    *,
    disabled: tuple[DisabledBy, str] | None,
    lazy: bool = False,
    notes: Sequence[str] = (),
) -> ServerState:
    """The state of ``spec``: broken entry, not running (``disabled``, with why, ``lazy``
    with its cached ``tools``, or ``stopped``), or the state of its current connection.
    ``notes``: more notes (the manager's, e.g. a tool cache that was ignored)."""
    base: dict[str, Any] = {
        "name": spec.name,
        "transport": spec.transport,
        "target": spec.describe(),
        "source": str(spec.source) if spec.source else None,
        "disabled_in_file": spec.disabled,
        "can_sign_in": spec.transport == "http" and spec.oauth is not None,
        "grant": spec.oauth.grant if spec.oauth is not None and spec.oauth.browserless else None,
    }
    notes = tuple(spec.warnings) + tuple(notes)
    if lazy and conn is None and disabled is None and not spec.error:
        return ServerState(**base, status="lazy", tools=tuple(tools), notes=notes)
    if conn is None or conn.status is Status.STOPPED:
        tail = tuple(conn.stderr_tail()) if conn is not None else ()
        if disabled is not None:  # turned off wins over a broken entry (still a problem)
            by, why = disabled
            return ServerState(
                **base, status="disabled", reason=why, disabled_by=by, notes=notes, stderr_tail=tail
            )
        if spec.error:
            return ServerState(**base, status="failed", reason=spec.error, notes=notes)
        return ServerState(**base, status="stopped", notes=notes, stderr_tail=tail)
    return ServerState(
        **base,
        status=conn.status.value,
        reason=conn.reason,
        stderr_tail=tuple(conn.stderr_tail()),
        protocol_version=conn.protocol_version,
        server_info=conn.server_info,
        connect_seconds=conn.connect_seconds,
        auth_required=conn.auth_required and conn.status is Status.FAILED,
        failure_kind=conn.failure_kind if conn.status is Status.FAILED else None,
        http_status=conn.http_status if conn.status is Status.FAILED else None,
        tools=tuple(tools),
        notes=notes + tuple(conn.notes),
        resources=conn.side.listed(),
        log=conn.side.log.entries(),
        log_level=conn.side.level,
        can_log=conn.side.can_log,
        reconnect=conn.reconnect,
    )


def config_file(state: ServerState) -> str:
    """The file that configures ``state``'s server, as a user finds it: ``.mcp.json`` for
    the project's, the user's ``mcp.json`` with the home directory written ``~``."""
    if state.source is None:
        return PROJECT_FILE
    path = Path(state.source)
    if path.name == PROJECT_FILE:
        return PROJECT_FILE
    home = Path(os.path.expanduser("~"))
    if home != Path("/") and path.is_relative_to(home):
        return f"~/{path.relative_to(home).as_posix()}"
    return str(path)


def start_failure(state: ServerState) -> str:
    """The sentence that reports a server that failed to start (headless warnings): it names
    the file that configures the server (the project's ``.mcp.json``, or the user's own
    ``mcp.json`` in the config dir)."""
    return (
        f"MCP server {state.name} failed to start: {state.reason or 'no reason given'}; "
        f"check {config_file(state)} / run `agent-tui mcp list`"
    )


def not_running(server: str, state: ServerState | None) -> ToolFailure:
    """What a request to ``server`` fails with when it has no connection (``state``: None
    when it is not configured)."""
    if state is None:
        why = "it is not configured"
    elif state.status == "failed":
        why = f"it failed: {state.reason}{_again(state)}"
    else:
        why = f"it is {state.status}"
    reconnecting = state is not None and state.reconnect is not None
    reason = f"the MCP server {server!r} is not running: {why}"
    return unavailable(server, reason, reconnecting=reconnecting)


def _again(state: ServerState) -> str:
    """``; reconnecting in 4 s (attempt 3)`` for a server that reconnects by itself."""
    return f"; {state.reconnect.describe()}" if state.reconnect is not None else ""


def failure_info(state: ServerState) -> ToolErrorInfo | None:
    """What a call to a tool of ``state``'s server says when the server is not connected."""
    name = state.name
    tail = list(state.stderr_tail[-5:])
    if state.status == "connected":
        return None
    if state.status == "lazy":
        text = (
            f"the MCP server {name!r} is not started yet (it starts on the first call of one of "
            "its tools) and its cached tool list has no such tool; find its tools with "
            "search_tool"
        )
    elif state.status == "failed" and state.connect_seconds is None:
        text = start_failure(state) + _again(state)
    elif state.status == "failed":
        text = f"the MCP server {name!r} is not running: it failed: {state.reason}{_again(state)}"
    elif state.status == "connecting":
        text = (
            f"the MCP server {name!r} is still starting: its tools join the next request once "
            "it has connected"
        )
    elif state.status == "disabled":
        text = f"the MCP server {name!r} is turned off: {state.reason}"
    else:
        text = f"the MCP server {name!r} is not running ({state.status})"
    return unavailable(name, text, tail, reconnecting=state.reconnect is not None).info


__all__ = [
    "LiveServer",
    "ServerState",
    "Status",
    "config_file",
    "failure_info",
    "not_running",
    "snapshot",
    "start_failure",
]
