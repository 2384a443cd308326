"""What went wrong with a server or a call, in words a model and a user can act on."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.mcp.config import ServerSpec
from agent_tui.core.mcp.oauth import AuthWatch, sign_in_failure, sign_in_reason
from agent_tui.core.tools.errors import ToolFailure

UNAVAILABLE = "mcp_server_unavailable"
SERVER_ERROR = "mcp_error"
BAD_RESULT = "mcp_bad_result"
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _code(exc: BaseException) -> int | None:
    error = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    return code if isinstance(code, int) else None


def describe_exception(exc: BaseException, spec: ServerSpec, watch: AuthWatch | None = None) -> str:
    """Why a connection ended, from whatever the SDK raised (often a nested group)."""
    if sign_in_failure(exc, spec, watch):  # a 401: what to do about it (``oauth``)
        return sign_in_reason(spec.name)
    leaves = _leaves(exc)
    for leaf in leaves:
        if isinstance(leaf, FileNotFoundError) and spec.transport == "stdio":
            return f"command not found: {spec.command!r} (check the command and PATH)"
        if isinstance(leaf, PermissionError) and spec.transport == "stdio":
            return f"cannot run {spec.command!r}: permission denied"
    for leaf in leaves:
        code = _code(leaf)
        if code == CONNECTION_CLOSED:
            continue
        if code is not None:
            return f"the server answered with an error: {leaf} (JSON-RPC error {code})"
    for leaf in leaves:
        if _code(leaf) == CONNECTION_CLOSED:
            return "the server exited during start-up"
    leaf = leaves[0] if leaves else exc
    text = str(leaf).strip() or type(leaf).__name__
    if spec.transport == "http":
        return f"cannot connect to {spec.url}: {type(leaf).__name__}: {text}"
    return f"{type(leaf).__name__}: {text}"


def _with_tail(details: list[str], tail: list[str]) -> list[str]:
    if tail:
        return [*details, "last lines of the server's stderr:", *(f"  {t}" for t in tail)]
    return details


def unavailable(server: str, reason: str, tail: list[str] | None = None) -> ToolFailure:
    return ToolFailure(
        UNAVAILABLE,
        f"{reason[0].upper()}{reason[1:]}." if reason else f"MCP server {server!r} is unavailable.",
        "Do not retry this tool now; use other tools, or ask the user to reconnect the "
        "server (MCP panel, or fix its configuration).",
        retryable=False,
        details=_with_tail([], tail or []),
    )


def call_failure(server: str, tool: str, exc: Exception, tail: list[str]) -> ToolFailure:
    """A call that raised: the server's JSON-RPC error, a hang-up, or a malformed result."""
    code = _code(exc)
    if code == CONNECTION_CLOSED:
        return unavailable(
            server,
            f"the MCP server {server!r} exited during the call (its connection closed)",
            tail,
        )
    if code == REQUEST_TIMEOUT:
        return ToolFailure(
            "timeout",
            f"{tool} on the MCP server {server!r} did not answer in time.",
            "Try again with a smaller request, or use another tool.",
            retryable=True,
        )
    if code is not None:
        data = getattr(getattr(exc, "error", None), "data", None)
        details = [json.dumps(data, ensure_ascii=False, default=str)[:2000]] if data else []
        return ToolFailure(
            SERVER_ERROR,
            f"The MCP server {server!r} rejected the call to {tool}: {exc} "
            f"(JSON-RPC error {code}).",
            "Fix the arguments as the message says, or use another tool.",
            retryable=code in (-32602,),
            details=details,
        )
    kind = type(exc).__name__
    first = (str(exc).strip().splitlines() or [kind])[0][:300]
    if kind in ("ValidationError", "RuntimeError"):
        return ToolFailure(
            BAD_RESULT,
            f"The MCP server {server!r} returned a malformed result for {tool}: {first}",
            "The server misbehaved; use another tool or report it to the user.",
            retryable=False,
        )
    return ToolFailure(
        UNAVAILABLE,
        f"The call to {tool} on the MCP server {server!r} failed: {kind}: {first}",
        "Use another tool, or ask the user to check the server.",
        retryable=False,
        details=_with_tail([], tail),
    )


def is_closed(exc: Any) -> bool:
    return _code(exc) == CONNECTION_CLOSED
