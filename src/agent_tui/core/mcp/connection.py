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
ends ``failed`` or ``stopped`` and never starts again by itself: a reconnect is a new
``Connection``. The SDK stops a stdio server by closing its stdin, then terminating and
killing its process group, with every wait bounded. ``mcp`` is imported only here, when a
connection starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from agent_tui import __version__
from agent_tui.core.mcp.adapter import progress_reporter
from agent_tui.core.mcp.config import ServerSpec
from agent_tui.core.mcp.failures import (
    FailureKind,
    call_failure,
    classify,
    connection_closed,
    unavailable,
)
from agent_tui.core.mcp.oauth import AuthWatch, sign_in_failure
from agent_tui.core.mcp.resources import ResourceSide
from agent_tui.core.mcp.stderr import StderrLog
from agent_tui.core.mcp.transport import WatchedTransport, list_tools, open_transport
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.errors import ToolFailure

log = logging.getLogger(__name__)
TRIM_EVERY = 2.0
BROKEN_WAIT = 5.0
"""Seconds a call whose connection closed under it waits for the connection to say why."""
CLIENT_NAME = "agent-tui"


class Status(StrEnum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    FAILED = "failed"
    STOPPED = "stopped"


@dataclass
class _Call:
    tool: str
    arguments: dict[str, Any]
    ctx: ToolContext | None
    timeout: float
    future: asyncio.Future[Any]
    scope: Any = None
    abandoned: bool = False
    prompt: bool = False
    """A ``prompts/get`` of the prompt ``tool`` (else a tool call)."""
    op: Callable[[Any], Awaitable[Any]] | None = None
    """Any other request: ``op(client)`` (``resources/read``, ``logging/setLevel``, ...)."""

    def abandon(self) -> None:
        self.abandoned = True
        if self.scope is not None:
            self.scope.cancel()


def _settle(
    future: asyncio.Future[Any], *, result: Any = None, error: BaseException | None = None
) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _import_sdk() -> None:
    """Import the SDK (starlette, uvicorn, cryptography, ...) ahead of its first use."""
    import importlib

    for name in ("httpx2", "mcp.client.stdio", "mcp.client.streamable_http"):
        importlib.import_module(name)


def _offending_line(error: Exception) -> str:
    """The line a parse error is about (pydantic keeps it as the input), shortened."""
    try:
        line = str(error.errors()[0]["input"])  # type: ignore[attr-defined]
    except Exception:
        line = (str(error).splitlines() or [type(error).__name__])[0]
    return repr(line if len(line) <= 60 else line[:57] + "...")


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
    """It failed because the server wants sign-in (HTTP 401; ``oauth``)."""
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
        self._calls: asyncio.Queue[_Call] = asyncio.Queue()
        self._wake: asyncio.Event = asyncio.Event()
        self._spawn: Callable[[_Call], None] | None = None
        """While the connection serves: starts a request's task in its task group at once
        (the queue is for requests made before that, and after)."""
        self._task: asyncio.Task[None] | None = None
        self._client: Any = None
        """The SDK client while the connection serves (``call`` uses it directly)."""
        self._changed = asyncio.Event()
        """Set when the status leaves ``connected`` (``_broken_under`` waits for it)."""
        self._gone: str | None = None
        self._refresh = asyncio.Event()
        self._refresh_prompts = asyncio.Event()
        self._notes: dict[str, str] = {}
        self._orphans: list[_Call] = []
        """Calls in flight when the connection broke: ``_finish`` answers them with why."""

    # -- public -----------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._main(), name=f"mcp server {self.spec.name}")

    def stderr_tail(self, lines: int = 20) -> list[str]:
        return self.stderr.tail(lines) if self.stderr is not None else []

    @property
    def done(self) -> bool:
        return self._task is not None and self._task.done()

    async def wait_settled(self) -> None:
        """Until the connection is no longer ``connecting``."""
        await self._settled.wait()

    async def stop(self) -> None:
        """Stop the server (and its process) and wait until it is gone. Idempotent."""
        self._stop = True
        self._gone = self._gone or f"the MCP server {self.spec.name!r} was stopped"
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
        until the connection says why, and answers with that."""
        client = self._client
        if client is not None and self.status is Status.CONNECTED and self._calls.empty():
            return await self._direct(client, tool, arguments, ctx)
        return await self._queued(tool, arguments, ctx)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """``prompts/get`` of ``name`` (a ``GetPromptResult``, or a ``ToolFailure``)."""
        return await self._queued(name, dict(arguments), None, prompt=True)

    async def request(self, label: str, op: Callable[[Any], Awaitable[Any]]) -> Any:
        """Run ``op(client)`` on the connection's task (``label`` names it in failures)."""
        return await self._queued(label, {}, None, op=op)

    async def _queued(
        self,
        name: str,
        arguments: dict[str, Any],
        ctx: ToolContext | None,
        *,
        prompt: bool = False,
        op: Callable[[Any], Awaitable[Any]] | None = None,
    ) -> Any:
        """Hand one request to the connection's task and wait for its answer (once the
        connection settled; ``ToolFailure`` when it is not connected). Cancelling the wait
        abandons the request."""
        if self.status is Status.CONNECTING:
            await self.wait_settled()
        if self.status is not Status.CONNECTED:
            raise self._unavailable()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        call = _Call(name, arguments, ctx, self.spec.timeout + 5, future, prompt=prompt, op=op)
        if not self._start(call):
            self._calls.put_nowait(call)
            self._wake.set()
        try:
            return await future
        except asyncio.CancelledError:
            call.abandon()
            raise

    def _unavailable(self) -> ToolFailure:
        name = self.spec.name
        if self.status is Status.STOPPED:
            why = "it was stopped"
        else:
            why = f"it failed: {self.reason}" if self.reason else "it is not connected"
        return unavailable(name, f"the MCP server {name!r} is not running: {why}", self._tail())

    def _tail(self) -> list[str]:
        return self.stderr_tail(5)

    # -- the task ---------------------------------------------------------------------------

    async def _main(self) -> None:
        error: BaseException | None = None
        try:
            await asyncio.to_thread(_import_sdk)  # ~0.5 s the first time: not on the loop
            await self._session()
        except asyncio.CancelledError:
            self._gone = self._gone or f"the MCP server {self.spec.name!r} was stopped"
            raise
        except BaseException as exc:
            error = exc
        finally:
            self._finish(error)

    def _fail(
        self, reason: str, kind: FailureKind = "other", http_status: int | None = None
    ) -> None:
        """Mark the server failed now (cleaning up may take a few more seconds)."""
        if self.status in (Status.FAILED, Status.STOPPED):
            return
        self.status, self.reason = Status.FAILED, reason
        self.failure_kind, self.http_status = kind, http_status
        self._settled.set()
        self._changed.set()
        self.on_change(self)

    def _finish(self, error: BaseException | None) -> None:
        if self._stop:
            self.status, self.reason = Status.STOPPED, None
            self.tools = []
        elif error is not None:
            self.auth_required = sign_in_failure(error, self.spec, self.auth_watch)
            connected = self.status is Status.CONNECTED
            failure = classify(error, self.spec, self.auth_watch, connected=connected)
            self._fail(failure.reason, failure.kind, failure.http_status)
        elif self.status is Status.CONNECTED:
            self._fail("the server exited (its connection closed)", "exited")
        else:
            self._fail("the server exited during start-up", "exited")
        name = self.spec.name
        for call in self._orphans:  # broken mid-call: say why, not "cancelled"
            why = self.reason or "its connection broke"
            reason = f"the MCP server {name!r} failed during the call to {call.tool}: {why}"
            _settle(call.future, error=unavailable(name, reason, self._tail()))
        self._orphans.clear()
        while not self._calls.empty():
            _settle(self._calls.get_nowait().future, error=self._unavailable())
        self._client = None
        self._settled.set()
        self._changed.set()
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
            closed = anyio.Event()
            transport = WatchedTransport(
                *open_transport(self.spec, self.cwd, self.stderr, self.auth_watch), closed=closed
            )
            client = Client(
                transport,
                read_timeout_seconds=min(self.spec.startup_timeout, 30.0),
                message_handler=self._on_message,
                **self.side.client_options(),
                elicitation_callback=self.elicitation,
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
                    inner.start_soon(self._serve, client, inner)
                    inner.start_soon(self._refresher, client)
                    inner.start_soon(self._prompt_refresher, client)
                    inner.start_soon(self.side.serve, client)
                    if self._wants_listen(client):
                        inner.start_soon(self._listen, client)
                    if self.stderr is not None:
                        inner.start_soon(self._trim)
                    await closed.wait()
                    self._gone = self._gone or (
                        f"the MCP server {self.spec.name!r} exited during the call "
                        "(its connection closed)"
                    )
                    self._fail("the server exited (its connection closed)", "exited")
                    inner.cancel_scope.cancel()

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
        self.status = Status.CONNECTED
        self.connect_seconds = round(time.monotonic() - self.started, 3)
        self._settled.set()
        self.on_change(self)

    # -- running ----------------------------------------------------------------------------

    def _start(self, call: _Call) -> bool:
        """Start ``call`` in the connection's task group now, when it serves: a step of the
        event loop less per request than the queue (which the serving task wakes up for)."""
        spawn = self._spawn
        if spawn is None or not self._calls.empty():  # queued requests keep their turn
            return False
        try:
            spawn(call)
        except RuntimeError:  # the group is closing: the queue answers it (``_finish``)
            self._spawn = None
            return False
        return True

    async def _serve(self, client: Any, group: Any) -> None:
        def spawn(call: _Call) -> None:
            group.start_soon(self._handle, client, call)

        self._client = client
        try:
            while True:
                while not self._calls.empty():
                    spawn(self._calls.get_nowait())
                self._spawn = spawn
                self._wake.clear()
                await self._wake.wait()
        finally:
            self._spawn = None
            self._client = None

    async def _direct(
        self, client: Any, tool: str, arguments: dict[str, Any], ctx: ToolContext
    ) -> Any:
        """``tools/call`` in the caller's task (``call``); failures raise ``ToolFailure``."""
        try:
            return await client.call_tool(
                tool,
                arguments,
                read_timeout_seconds=self.spec.timeout + 5,
                progress_callback=progress_reporter(ctx),
            )
        except Exception as exc:
            if connection_closed(exc):
                raise await self._broken_under(tool, exc) from None
            raise self._call_failure(tool, exc) from None

    async def _broken_under(self, tool: str, exc: Exception) -> ToolFailure:
        """Why a call in flight lost its connection (``exc``: the SDK's "connection
        closed"): once the connection has marked itself failed or stopped (bounded: what
        ``call_failure`` says of ``exc`` otherwise)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(BROKEN_WAIT):
                while self.status is Status.CONNECTED:
                    await self._changed.wait()
                    self._changed.clear()
        name = self.spec.name
        if self._gone is not None:
            return unavailable(name, self._gone, self._tail())
        if self.status is Status.FAILED and self.reason:
            reason = f"the MCP server {name!r} failed during the call to {tool}: {self.reason}"
            return unavailable(name, reason, self._tail())
        return self._call_failure(tool, exc)

    def _call_failure(self, tool: str, exc: Exception) -> ToolFailure:
        return call_failure(
            self.spec.name,
            tool,
            exc,
            self._tail(),
            spec=self.spec,
            http_status=self.auth_watch.take_status(),
        )

    async def _handle(self, client: Any, call: _Call) -> None:
        import anyio

        try:
            if call.abandoned:
                return
            with anyio.CancelScope() as scope:
                call.scope = scope
                try:
                    if call.op is not None:
                        with anyio.fail_after(call.timeout):
                            result = await call.op(client)
                        _settle(call.future, result=result)
                        return
                    if call.prompt:
                        with anyio.fail_after(call.timeout):
                            result = await client.get_prompt(call.tool, call.arguments)
                        _settle(call.future, result=result)
                        return
                    result = await client.call_tool(
                        call.tool,
                        call.arguments,
                        read_timeout_seconds=call.timeout,
                        progress_callback=progress_reporter(call.ctx) if call.ctx else None,
                    )
                except Exception as exc:
                    _settle(call.future, error=self._call_failure(call.tool, exc))
                else:
                    _settle(call.future, result=result)
        finally:
            if not call.future.done() and not call.abandoned and self._gone is None:
                self._orphans.append(call)  # the connection broke under it: ``_finish`` says why
            elif not call.future.done():
                reason = self._gone or f"the call to {self.spec.name!r} was cancelled"
                _settle(call.future, error=unavailable(self.spec.name, reason, self._tail()))

    # -- tool list changes ------------------------------------------------------------------

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that is not JSON-RPC
            self.garbage += 1
            self._note(
                "garbage",
                f"ignored {self.garbage} line(s) on stdout that are not JSON-RPC "
                f"(last: {_offending_line(message)})",
            )
            return
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed":
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

    def _note(self, key: str, text: str) -> None:
        self._notes[key] = text
        self.on_change(self)

    async def _refresher(self, client: Any) -> None:
        while True:
            await self._refresh.wait()
            self._refresh.clear()
            try:
                self.tools = await list_tools(client)
            except Exception as exc:
                self._note(
                    "refresh", f"refreshing the tool list failed: {type(exc).__name__}: {exc}"
                )
                continue
            self.on_change(self)

    @staticmethod
    def _has_prompts(client: Any) -> bool:
        capabilities = getattr(client, "server_capabilities", None)
        return getattr(capabilities, "prompts", None) is not None

    async def _list_prompts(self, client: Any) -> list[Any]:
        """Every prompt of a server with the prompts capability (page by page); a failure
        is a note, not a failed server (its tools still work)."""
        if not self._has_prompts(client):
            return []
        from agent_tui.core.mcp.transport import MAX_PAGES

        prompts: list[Any] = []
        cursor: str | None = None
        try:
            for _ in range(MAX_PAGES):
                page = await client.list_prompts(cursor=cursor)
                prompts.extend(page.prompts)
                cursor = page.next_cursor
                if not cursor:
                    break
        except Exception as exc:
            self._note("prompts", f"listing the prompts failed: {type(exc).__name__}: {exc}")
            return self.prompts
        self._notes.pop("prompts", None)
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
            self._note("listen", f"live tool list updates are off: {type(exc).__name__}: {exc}")

    async def _trim(self) -> None:
        import anyio

        assert self.stderr is not None
        while True:
            await anyio.sleep(TRIM_EVERY)
            self.stderr.trim()


__all__ = ["Connection", "Status"]
