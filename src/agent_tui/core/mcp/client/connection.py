"""One connection to one MCP server: a long-lived task that owns the SDK client.

The SDK's ``Client`` must be entered and left in the same task, so each connection runs in
its own task. The task connects (bounded by ``startup_timeout``: a watchdog cancels a connect
that hangs), lists the tools, then serves, and refreshes the tool list when the server says
it changed (``notifications/tools/list_changed`` on handshake-era connections, a
``subscriptions/listen`` stream on 2026-07-28 ones). While it serves, a tool call is made on
the client from the caller's own task (the SDK's requests may come from any task; this is the
path of every model call, and it costs no task and no hand-off); other requests, and calls
made before it serves, go through a queue to child tasks of the connection's task group.

When the server exits, hangs up or the connection is stopped, every call in flight or still
queued fails with a message saying so (with the server's last stderr lines); the connection
ends ``failed`` or ``stopped``. An HTTP server that is gone is noticed by its HTTP client at
once (``http_link``: a connection refused, a stream reset, the session unknown), not when the
SDK gives up; one that went away (``backoff.retryable``) is connected again by this same
``Connection`` after a growing delay (``backoff``), its tools kept meanwhile; a call made
while it waits tries at once. Any other failure is final: a reconnect is then a new
``Connection``. The SDK stops a stdio server by closing its stdin, then terminating and
killing its process group, with every wait bounded. ``mcp`` is imported only here, when a
connection starts.

This module owns the session's life: connecting, serving, keeping the tool and prompt lists
current, the notes, failing and stopping. The requests themselves (the direct and queued
paths, and the words of a call that failed) are ``call_paths.CallPaths``, one a connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui import __version__
from agent_tui.core.mcp.auth.connection_auth import AuthWatch, sign_in_failure
from agent_tui.core.mcp.client.backoff import Backoff, Reconnect, retryable
from agent_tui.core.mcp.client.call_paths import CallPaths
from agent_tui.core.mcp.client.failures import (
    FailureKind,
    classify,
    link_failure,
    offending_line,
)
from agent_tui.core.mcp.client.resources import ResourceSide
from agent_tui.core.mcp.client.state import Status
from agent_tui.core.mcp.client.stderr import StderrLog
from agent_tui.core.mcp.client.transport import (
    WatchedTransport,
    has_prompts,
    list_prompts,
    list_tools,
    open_transport,
)
from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.tools.base import ToolContext

log = logging.getLogger(__name__)
TRIM_EVERY = 2.0
CLIENT_NAME = "agent-tui"
HURRY_WAIT = 10.0
"""Seconds a call waits at most for the reconnect it started (``reconnect_now``)."""


def _import_sdk(http: bool = False) -> None:
    """Import the SDK (starlette, uvicorn, cryptography, ...) ahead of its first use; for
    ``http``, also load the TLS settings (``http_link.tls_context``, ~50 ms once)."""
    import importlib

    for name in ("httpx2", "mcp.client.stdio", "mcp.client.streamable_http"):
        importlib.import_module(name)
    if http:
        importlib.import_module("agent_tui.core.mcp.client.http_link").tls_context()


def quiet_sdk_logging() -> None:
    """The SDK logs a traceback for every non-JSON line a server prints; with no handler
    configured that goes to stderr, over the TUI. The connection reports those lines."""
    sdk = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in sdk.handlers):
        sdk.addHandler(logging.NullHandler())


@dataclass(eq=False)
class Connection:
    spec: ServerSpec
    cwd: Path
    on_change: Callable[[Connection], None] = lambda _: None
    status: Status = Status.CONNECTING
    reason: str | None = None
    tools: list[Any] = field(default_factory=list)
    """The server's tools (``mcp.types.Tool``), in the server's order."""
    prompts: list[Any] = field(default_factory=list)
    """The server's prompts (``mcp.types.Prompt``) when it has the prompts capability."""
    protocol_version: str | None = None
    server_info: str | None = None
    connect_seconds: float | None = None
    auth_required: bool = False
    """It failed because the server wants sign-in (HTTP 401; ``core.mcp.auth``)."""
    failure_kind: FailureKind | None = None
    """What kind of failure ``reason`` is (``failures.FailureKind``), when it failed."""
    http_status: int | None = None
    """The HTTP error status it failed with, if that is what failed."""
    side: ResourceSide = field(default_factory=lambda: ResourceSide())
    """Resources, roots and logging of this server (``resources``); set by the manager."""
    elicitation: Any = None
    """The SDK's ``elicitation_callback`` (``elicitation.ElicitationBroker``); declares the
    capability (form and URL mode). Set by the manager."""

    def __post_init__(self) -> None:
        self.auth_watch = AuthWatch()
        self.side.bind(self)
        self.started = time.monotonic()
        self.stderr = StderrLog() if self.spec.transport == "stdio" else None
        self.garbage = 0
        self._settled = asyncio.Event()
        self._stop = False
        self._scope: Any = None
        self._task: asyncio.Task[None] | None = None
        self._refresh = asyncio.Event()
        self._refresh_prompts = asyncio.Event()
        self._notes: dict[str, str] = {}
        self.call_paths = CallPaths(self)
        """The requests to this server (direct and queued) and the words of a failed one."""
        self.backoff = Backoff()
        """When this connection tries again, after losing an HTTP server (``backoff``)."""
        self._fresh = False
        """A new attempt: its first failure replaces the last one's reason."""
        self._closed: Any = None
        self._http: Any = None
        """The session's HTTP client (``http_link.WatchedClient``), while it runs."""

    # -- public -----------------------------------------------------------------------------

    def start(self) -> None:
        quiet_sdk_logging()  # once, before the SDK can log anything of this server
        self._task = asyncio.create_task(self._main(), name=f"mcp server {self.spec.name}")

    def stderr_tail(self, lines: int = 20) -> list[str]:
        return self.stderr.tail(lines) if self.stderr is not None else []

    @property
    def done(self) -> bool:
        return self._task is not None and self._task.done()

    async def wait_settled(self) -> None:
        """Until the connection is no longer ``connecting``."""
        await self._settled.wait()

    @property
    def reconnect(self) -> Reconnect | None:
        """The reconnect scheduled or under way (None: none; ``backoff``)."""
        return self.backoff.info() if self.status is Status.FAILED else None

    async def reconnect_now(self) -> None:
        """A call wants the server while a reconnect waits: try now, and wait (at most
        ``HURRY_WAIT``) for that attempt to end. Nothing when no reconnect is scheduled."""
        if self.reconnect is not None and not self.done:
            await self.backoff.now(HURRY_WAIT)

    async def check_link(self) -> bool:
        """A request lost its answer: whether an HTTP server still answers (one that is gone
        is failed at once). False for stdio (its process says when it ends)."""
        http = self._http
        return bool(await http.check()) if http is not None else False

    async def stop(self) -> None:
        """Stop the server (and its process) and wait until it is gone. Idempotent."""
        self._stop = True
        self.call_paths.going(f"the MCP server {self.spec.name!r} was stopped")
        if self._scope is not None:
            self._scope.cancel()
        elif self._task is not None and not self._task.done():
            self._task.cancel()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._task)
        if self.stderr is not None:
            self.stderr.close()

    async def call(self, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        """Call ``tool`` on the server; a ``CallToolResult``, or a ``ToolFailure``.

        While the connection serves, the call is made from the caller's own task: no task to
        start, no answer to hand back (two event-loop steps a call). The SDK answers a call
        in flight when the connection ends with "connection closed"; ``_direct`` then waits
        until the connection says why, and answers with that (``call_paths``)."""
        return await self.call_paths.call(tool, arguments, ctx)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """``prompts/get`` of ``name`` (a ``GetPromptResult``, or a ``ToolFailure``)."""
        return await self.call_paths.queued(name, dict(arguments), None, prompt=True)

    async def request(self, label: str, op: Callable[[Any], Awaitable[Any]]) -> Any:
        """Run ``op(client)`` on the connection's task (``label`` names it in failures)."""
        return await self.call_paths.queued(label, {}, None, op=op)

    # -- the task ---------------------------------------------------------------------------

    async def _main(self) -> None:
        try:
            while True:
                self._finish(await self._attempt())
                if self._stop or not self.backoff.waiting:  # ``_fail`` schedules a retry
                    self.backoff.reset()
                    return
                await self.backoff.wait()
                self._again()
        except asyncio.CancelledError:
            self.call_paths.going(f"the MCP server {self.spec.name!r} was stopped")
            self._finish(None)
            raise

    async def _attempt(self) -> BaseException | None:
        """One session, from connecting to its end; what ended it, if anything did."""
        try:
            http = self.spec.transport == "http"
            await asyncio.to_thread(_import_sdk, http)  # ~0.5 s the first time: not on the loop
            await self._session()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            return exc
        finally:  # the session is over: a stop from now on cancels the task (``stop``)
            self._scope = self._closed = self._http = None
        return None

    def _again(self) -> None:
        """A new attempt starts (still ``failed`` until it connects)."""
        self.started = time.monotonic()
        self.auth_watch = AuthWatch()
        self.call_paths.reopen()
        self._fresh = True
        self.on_change(self)

    def _fail(
        self, reason: str, kind: FailureKind = "other", http_status: int | None = None
    ) -> None:
        """Mark the server failed now (cleaning up may take a few more seconds)."""
        if self.status is Status.STOPPED or (self.status is Status.FAILED and not self._fresh):
            return
        self._fresh = False
        self.status, self.reason = Status.FAILED, reason
        self.failure_kind, self.http_status = kind, http_status
        if not self._stop and retryable(self.spec, kind, http_status):
            delay = self.backoff.schedule()
            log.info("MCP server %s: %s; again in %.0f s", self.spec.name, reason, delay)
        else:
            self.backoff.reset()
        self._settled.set()
        self.call_paths.left_connected()
        self.on_change(self)

    def _finish(self, error: BaseException | None) -> None:
        if self._stop:
            self.status, self.reason = Status.STOPPED, None
            self.tools = []
        elif error is not None:
            self.auth_required = sign_in_failure(error, self.spec, self.auth_watch)
            connected = self._was_connected
            failure = classify(error, self.spec, self.auth_watch, connected=connected)
            self._fail(failure.reason, failure.kind, failure.http_status)
        elif self.status is Status.CONNECTED:
            self._fail("the server exited (its connection closed)", "exited")
        else:
            self._fail("the server exited during start-up", "exited")
        self.call_paths.close()
        self._settled.set()
        self.call_paths.left_connected()
        self.on_change(self)

    async def _session(self) -> None:
        import anyio
        from mcp import Client
        from mcp.types import Implementation

        async with anyio.create_task_group() as outer:
            self._scope = outer.cancel_scope
            if self._stop:
                outer.cancel_scope.cancel()
            connected = anyio.Event()
            outer.start_soon(self._watchdog, connected, outer.cancel_scope)
            self._closed = closed = anyio.Event()
            sdk_transport, self._http = open_transport(
                self.spec, self.cwd, self.stderr, self.auth_watch, self._link_lost
            )
            transport = WatchedTransport(sdk_transport, self._http, closed=closed)
            client = Client(
                transport,
                read_timeout_seconds=min(self.spec.startup_timeout, 30.0),
                message_handler=self._on_message,
                **self.side.client_options(),
                elicitation_callback=self._elicitation(),
                client_info=Implementation(name=CLIENT_NAME, version=__version__),
                cache=None,
            )
            async with client:
                tools = await list_tools(client)
                self.prompts = await self._list_prompts(client)
                await self.side.connected(client)
                self.protocol_version = client.protocol_version
                info = client.server_info
                self.server_info = f"{info.name} {info.version}".strip() if info else None
                self._connected(tools)
                connected.set()
                async with anyio.create_task_group() as inner:
                    inner.start_soon(self.call_paths.serve, client, inner)
                    inner.start_soon(self._refresher, client)
                    inner.start_soon(self._prompt_refresher, client)
                    inner.start_soon(self.side.serve, client)
                    if self._wants_listen(client):
                        inner.start_soon(self._listen, client)
                    if self.stderr is not None:
                        inner.start_soon(self._trim)
                    await closed.wait()
                    if self.status is Status.CONNECTED:  # else its HTTP client said why
                        self.call_paths.going(
                            f"the MCP server {self.spec.name!r} exited during the call "
                            "(its connection closed)"
                        )
                        self._fail("the server exited (its connection closed)", "exited")
                    inner.cancel_scope.cancel()

    def _elicitation(self) -> Any:
        """The elicitation callback, the calls' clocks stopped while a person answers."""
        ask = self.elicitation
        if ask is None:
            return None

        async def elicit(context: Any, params: Any) -> Any:
            with self.call_paths.person_answers():
                return await ask(context, params)

        return elicit

    @property
    def _was_connected(self) -> bool:
        """It is, or was before this reconnect: its server is lost, not unreachable."""
        return self.status is Status.CONNECTED or self.connect_seconds is not None

    def _link_lost(self, error: BaseException | None, status: int | None) -> None:
        """The HTTP client found the server gone (``http_link``): fail now, end the session."""
        if self.status is Status.STOPPED or (self.status is Status.FAILED and not self._fresh):
            return  # known already (a request of the session's end, such as its DELETE)
        connected = self.status is Status.CONNECTED
        failure = link_failure(error, status, self.spec, connected=self._was_connected)
        log.info("MCP server %s: %s", self.spec.name, failure.reason)
        self._fail(failure.reason, failure.kind, failure.http_status)
        if self._closed is not None:
            self._closed.set()
        if not connected and self._scope is not None:  # still starting: stop that too
            self._scope.cancel()

    async def _watchdog(self, connected: Any, scope: Any) -> None:
        import anyio

        with anyio.move_on_after(self.spec.startup_timeout):
            await connected.wait()
            return
        self._fail(
            f"did not finish starting within {self.spec.startup_timeout:g} s", "start_timeout"
        )
        scope.cancel()

    def _connected(self, tools: list[Any]) -> None:
        self.tools = tools
        self.status, self.reason = Status.CONNECTED, None
        self.failure_kind, self.http_status, self.auth_required = None, None, False
        self.connect_seconds = round(time.monotonic() - self.started, 3)
        self.auth_watch.take_status()  # an error status of the handshake is not a call's
        self.backoff.reset()
        self._fresh = False
        self.note("listen", None)  # the last session's stream; this one listens anew
        self._settled.set()
        self.on_change(self)

    # -- tool list changes ------------------------------------------------------------------

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that is not JSON-RPC
            self.garbage += 1
            self.call_paths.activity("output", offending_line(message))
            self.note(
                "garbage",
                f"ignored {self.garbage} line(s) on stdout that are not JSON-RPC "
                f"(last: {offending_line(message)})",
            )
            return
        method = getattr(message, "method", None)
        if method == "notifications/message":  # a log message: the server is working
            self.call_paths.activity("log", str(getattr(message.params, "data", "")))
        elif method == "notifications/tools/list_changed":
            self._request_refresh()
        elif method == "notifications/prompts/list_changed":
            self._refresh_prompts.set()
        elif method is not None and method.startswith("notifications/resources/"):
            self.side.notified(message)

    def _request_refresh(self) -> None:
        self._refresh.set()

    @property
    def notes(self) -> list[str]:
        """Things worth knowing that did not stop the server (ignored stdout lines, ...)."""
        return list(self._notes.values())

    def note(self, key: str, text: str | None) -> None:
        """Set the note ``key`` (a change), or drop it (``None``: quietly)."""
        if text is None:
            self._notes.pop(key, None)
            return
        self._notes[key] = text
        self.on_change(self)

    async def _refresher(self, client: Any) -> None:
        while True:
            await self._refresh.wait()
            self._refresh.clear()
            try:
                self.tools = await list_tools(client)
            except Exception as exc:
                log.warning(
                    "MCP server %s: refreshing the tool list failed", self.spec.name, exc_info=True
                )
                self.note(
                    "refresh", f"refreshing the tool list failed: {type(exc).__name__}: {exc}"
                )
                continue
            self.on_change(self)

    async def _list_prompts(self, client: Any) -> list[Any]:
        """Every prompt of a server with the prompts capability; a failure is a note, not a
        failed server (its tools still work)."""
        if not has_prompts(client):
            return []
        try:
            prompts = await list_prompts(client)
        except Exception as exc:
            log.warning("MCP server %s: listing the prompts failed", self.spec.name, exc_info=True)
            self.note("prompts", f"listing the prompts failed: {type(exc).__name__}: {exc}")
            return self.prompts
        self.note("prompts", None)
        return prompts

    async def _prompt_refresher(self, client: Any) -> None:
        while True:
            await self._refresh_prompts.wait()
            self._refresh_prompts.clear()
            self.prompts = await self._list_prompts(client)
            self.on_change(self)

    def _listen_filter(self, client: Any) -> dict[str, bool]:
        from mcp.types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return {}
        capabilities = client.server_capabilities
        tools, prompts = capabilities.tools, capabilities.prompts
        wanted = {
            "tools_list_changed": bool(tools and tools.list_changed),
            "prompts_list_changed": bool(prompts and prompts.list_changed),
            **self.side.listen_filter(client),
        }
        return wanted if any(wanted.values()) else {}

    def _wants_listen(self, client: Any) -> bool:
        return bool(self._listen_filter(client))

    async def _listen(self, client: Any) -> None:
        try:
            async with client.listen(**self._listen_filter(client)) as subscription:
                async for event in subscription:
                    if "Prompts" in type(event).__name__:
                        self._refresh_prompts.set()
                    elif "Resource" in type(event).__name__:
                        self.side.event(event)
                    else:
                        self._request_refresh()
        except Exception as exc:
            if self._http is not None and not await self.check_link():
                return  # the server is gone, which its failure says (a reconnect listens again)
            log.warning("MCP server %s: live list updates are off", self.spec.name, exc_info=True)
            self.note("listen", f"live tool list updates are off: {type(exc).__name__}: {exc}")

    async def _trim(self) -> None:
        import anyio

        assert self.stderr is not None
        while True:
            await anyio.sleep(TRIM_EVERY)
            self.stderr.trim()


__all__ = ["Connection", "quiet_sdk_logging"]
