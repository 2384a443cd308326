"""What went wrong with a server or a call, in words a model and a user can act on."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.tools.errors import ToolFailure

if TYPE_CHECKING:  # the sign-in parts (``core.mcp.auth``): imported when a failure is judged
    from agent_tui.core.mcp.auth.connection_auth import AuthWatch

log = logging.getLogger(__name__)
UNAVAILABLE = "mcp_server_unavailable"
SERVER_ERROR = "mcp_error"
BAD_RESULT = "mcp_bad_result"
HTTP_ERROR = "mcp_http_error"
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
_HTTP_STAND_INS = (INVALID_REQUEST, METHOD_NOT_FOUND, INTERNAL_ERROR)
"""The JSON-RPC codes the SDK's HTTP transport puts in place of an HTTP error status."""

FailureKind = Literal[
    "sign_in",
    "forbidden",
    "not_found",
    "server_error",
    "http_error",
    "command_not_found",
    "permission_denied",
    "start_timeout",
    "exited",
    "unreachable",
    "rpc_error",
    "other",
]
"""What kind of failure a server's is (the UI picks words and actions by it, never by the
English of ``reason``): ``sign_in`` an HTTP 401 (sign in: ``a`` / ``mcp login``),
``forbidden`` 403, ``not_found`` 404 (a wrong URL), ``server_error`` 5xx, ``http_error``
another HTTP error status; ``command_not_found`` / ``permission_denied`` a stdio command
that cannot run; ``start_timeout``; ``exited`` (the process or the stream ended);
``unreachable`` (no connection to the URL); ``rpc_error`` (a JSON-RPC error during start-up);
``other``."""


@dataclass(frozen=True)
class Failure:
    """Why a server failed: the sentence for people and models, and typed fields."""

    reason: str
    kind: FailureKind = "other"
    http_status: int | None = None
    """The HTTP status the server answered with, when that is what failed."""


def _status_name(status: int) -> str:
    try:
        return f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def http_failure(status: int, spec: ServerSpec) -> Failure:
    """What an HTTP error status means for ``spec`` and what to do about it."""
    from agent_tui.core.mcp.auth.connection_auth import sign_in_reason

    head = _status_name(status)
    if status == 401:
        if spec.oauth is not None:
            return Failure(f"{head}: {sign_in_reason(spec.name)}", "sign_in", status)
        return Failure(
            f"{head}: the server refused the credentials (check the Authorization header "
            f"of {spec.name!r} in .mcp.json)",
            "sign_in",
            status,
        )
    if status == 403:
        return Failure(
            f"{head}: the server refuses this client (check the account's access, or the "
            f"headers of {spec.name!r} in .mcp.json)",
            "forbidden",
            status,
        )
    if status == 404:
        return Failure(
            f"{head}: nothing answers MCP at {spec.url} (check the url of {spec.name!r} in "
            ".mcp.json; it often ends in /mcp)",
            "not_found",
            status,
        )
    if status >= 500:
        return Failure(
            f"{head}: the server failed on its side (try again later, or look at the "
            "server's logs; reconnect from the MCP panel)",
            "server_error",
            status,
        )
    return Failure(
        f"{head}: the server refused the request (check the url and headers of "
        f"{spec.name!r} in .mcp.json)",
        "http_error",
        status,
    )


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _code(exc: BaseException) -> int | None:
    error = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    return code if isinstance(code, int) else None


def connection_closed(exc: BaseException) -> bool:
    """Whether ``exc`` is the SDK's answer to a request whose connection ended."""
    return _code(exc) == CONNECTION_CLOSED


def describe_exception(exc: BaseException, spec: ServerSpec, watch: AuthWatch | None = None) -> str:
    """Why a connection ended, from whatever the SDK raised (often a nested group)."""
    return classify(exc, spec, watch).reason


def classify(
    exc: BaseException, spec: ServerSpec, watch: AuthWatch | None = None, *, connected: bool = False
) -> Failure:
    """Why a connection ended (``describe_exception``), with its kind and HTTP status
    (``connected``: it had been connected, so an unreachable URL is a lost connection)."""
    from agent_tui.core.mcp.auth.connection_auth import sign_in_failure, sign_in_reason

    status = watch.take_status() if watch is not None else None
    if watch is not None and watch.grant_error:  # a browserless grant got no token: why
        return Failure(watch.grant_error, "sign_in", 401)
    if sign_in_failure(exc, spec, watch):  # a 401: what to do about it (``core.mcp.auth``)
        return Failure(sign_in_reason(spec.name), "sign_in", 401)
    leaves = _leaves(exc)
    for leaf in leaves:
        if isinstance(leaf, FileNotFoundError) and spec.transport == "stdio":
            return Failure(
                f"command not found: {spec.command!r} (check the command and PATH)",
                "command_not_found",
            )
        if isinstance(leaf, PermissionError) and spec.transport == "stdio":
            return Failure(f"cannot run {spec.command!r}: permission denied", "permission_denied")
    for leaf in leaves:
        code = _code(leaf)
        if code == CONNECTION_CLOSED:
            continue
        if code in _HTTP_STAND_INS and status is not None and spec.transport == "http":
            return http_failure(status, spec)
        if code is not None:
            return Failure(
                f"the server answered with an error: {leaf} (JSON-RPC error {code})", "rpc_error"
            )
    for leaf in leaves:
        if _code(leaf) == CONNECTION_CLOSED:
            return Failure("the server exited during start-up", "exited")
    if status is not None and spec.transport == "http":
        return http_failure(status, spec)
    leaf = leaves[0] if leaves else exc
    text = str(leaf).strip() or type(leaf).__name__
    if spec.transport == "http":
        return unreachable(leaf, spec, connected=connected)
    return Failure(f"{type(leaf).__name__}: {text}")


def _system_words(exc: BaseException) -> str | None:
    """The operating system's words for why a connection failed (``Connection refused``,
    ``Name or service not known``), from ``exc`` or its causes."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno:
            return os.strerror(current.errno) if current.errno > 0 else str(current.strerror)
        current = current.__cause__ or current.__context__
    return None


def unreachable(error: BaseException, spec: ServerSpec, *, connected: bool) -> Failure:
    """An HTTP server that cannot be reached (``connected``: it was, so the connection was
    lost), in the words of the system when it has some (``Connection refused``)."""
    text = _system_words(error) or str(error).strip() or type(error).__name__
    verb = "lost the connection to" if connected else "cannot connect to"
    return Failure(f"{verb} {spec.url}: {type(error).__name__}: {text}", "unreachable")


def link_failure(
    error: BaseException | None, status: int | None, spec: ServerSpec, *, connected: bool
) -> Failure:
    """Why an HTTP server is gone, from what its client saw (``http_link``): a connection
    that failed (``error``), a 404 to a request of its session, or a gateway's status."""
    if status == 404:
        return Failure(
            "the server no longer knows this session (HTTP 404 Not Found): it restarted or "
            "ended the session",
            "exited",
            404,
        )
    if status is not None:
        return http_failure(status, spec)
    if error is None:
        return Failure("the server is gone", "unreachable")
    return unreachable(error, spec, connected=connected)


_USER_STEP = (
    "Do not retry this tool now; tell the user what the server needs (the message says "
    "what to do), and use other tools meanwhile."
)


def _with_tail(details: list[str], tail: list[str]) -> list[str]:
    if tail:
        return [*details, "last lines of the server's stderr:", *(f"  {t}" for t in tail)]
    return details


def unavailable(
    server: str, reason: str, tail: list[str] | None = None, *, reconnecting: bool = False
) -> ToolFailure:
    """A server that cannot take the request (``reconnecting``: it reconnects by itself)."""
    return ToolFailure(
        UNAVAILABLE,
        f"{reason[0].upper()}{reason[1:].rstrip('.')}."
        if reason
        else f"MCP server {server!r} is unavailable.",
        "agent-tui reconnects it by itself: use other tools meanwhile, and call it again "
        "later (a call retries the connection at once)."
        if reconnecting
        else "Do not retry this tool now; use other tools, or ask the user to reconnect the "
        "server (MCP panel, or fix its configuration).",
        retryable=reconnecting,
        details=_with_tail([], tail or []),
    )


def call_failure(
    server: str,
    tool: str,
    exc: Exception,
    tail: list[str],
    *,
    spec: ServerSpec | None = None,
    http_status: int | None = None,
) -> ToolFailure:
    """A call that raised: the server's JSON-RPC error, a hang-up, or a malformed result.
    ``http_status``: the HTTP error status the HTTP transport answered the call with (the
    SDK's error then is a stand-in, -32603 for a 401 and a 500 alike)."""
    code = _code(exc)
    if code in _HTTP_STAND_INS and http_status is not None and spec is not None:
        failure = http_failure(http_status, spec)
        retry = failure.kind == "server_error"
        return ToolFailure(
            HTTP_ERROR,
            f"The MCP server {server!r} answered the call to {tool} with {failure.reason}.",
            "Try again later or use another tool." if retry else _USER_STEP,
            retryable=retry,
            details=[f"http_status: {http_status}", f"kind: {failure.kind}"],
        )
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


def offending_line(error: Exception) -> str:
    """The line a parse error is about (pydantic keeps it as the input), shortened."""
    try:
        line = str(error.errors()[0]["input"])  # type: ignore[attr-defined]
    except Exception:  # not a pydantic error: its first line says it
        log.debug("no input in %r: its message is shown", error, exc_info=True)
        line = (str(error).splitlines() or [type(error).__name__])[0]
    return repr(line if len(line) <= 60 else line[:57] + "...")


def is_closed(exc: Any) -> bool:
    return _code(exc) == CONNECTION_CLOSED
