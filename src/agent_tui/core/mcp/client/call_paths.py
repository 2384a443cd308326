"""The call paths of one MCP connection: how a request reaches the server, and how it fails.

``CallPaths`` belongs to one ``Connection`` (``connection``, which owns the session's life:
connecting, serving, refreshing the lists, failing and stopping) and owns everything between
a caller and the SDK client. While the connection serves, a tool call is made on the client
from the caller's own task (``_direct``: the SDK's requests may come from any task; this is
the path of every model call, and it costs no task and no hand-off); other requests, and calls
made before it serves, are handed to child tasks of the connection's task group, at once when
it serves (``_start``) or through a queue that the serving task (``serve``) drains.

A tool call runs under its ``call_clock.CallClock``: the server's signs of life (progress for
the call; log messages and output, told by the connection through ``activity``) keep it alive
up to the entry's hard limit, and a call that waited too long fails with which limit ended it.

It also owns the words of a failed call: a call to a server that is not running
(``unavailable``; one being reconnected is tried again first, ``backoff``), a call whose
connection closed under it (``_broken_under`` asks an HTTP server whether it is still there,
then waits, bounded, for the connection to say why), a call the server answered with an error
(``failures.call_failure``), and the calls still in flight or queued when the connection ends
(``close``). It sees its connection through ``Session`` (the spec, the status and its reason,
the stderr tail, the HTTP status the auth saw), never the class itself. The SDK (``anyio``) is
imported only when a request runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from agent_tui.core.calls import WaitSign
from agent_tui.core.mcp.auth.connection_auth import AuthWatch
from agent_tui.core.mcp.client.backoff import Reconnect
from agent_tui.core.mcp.client.call_clock import CallClock
from agent_tui.core.mcp.client.failures import call_failure, connection_closed, unavailable
from agent_tui.core.mcp.client.state import Status
from agent_tui.core.mcp.client.stderr import StderrLog
from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.errors import ToolFailure

BROKEN_WAIT = 5.0
"""Seconds a call whose connection closed under it waits for the connection to say why."""


class Session(Protocol):
    """What the call paths use of their connection (``connection.Connection``)."""

    @property
    def spec(self) -> ServerSpec: ...
    @property
    def status(self) -> Status: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def auth_watch(self) -> AuthWatch: ...
    @property
    def stderr(self) -> StderrLog | None: ...
    @property
    def reconnect(self) -> Reconnect | None: ...
    def stderr_tail(self, lines: int = 20) -> list[str]: ...
    async def wait_settled(self) -> None: ...
    async def reconnect_now(self) -> None: ...
    async def check_link(self) -> bool: ...


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


class CallPaths:
    """The requests of one connection, from the caller to the SDK client and back."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn
        self._calls: asyncio.Queue[_Call] = asyncio.Queue()
        self._wake: asyncio.Event = asyncio.Event()
        self._spawn: Callable[[_Call], None] | None = None
        """While the connection serves: starts a request's task in its task group at once
        (the queue is for requests made before that, and after)."""
        self._client: Any = None
        """The SDK client while the connection serves (``call`` uses it directly)."""
        self._changed = asyncio.Event()
        """Set when the status leaves ``connected`` (``_broken_under`` waits for it)."""
        self._gone: str | None = None
        self._orphans: list[_Call] = []
        """Calls in flight when the connection broke: ``close`` answers them with why."""
        self._clocks: set[CallClock] = set()
        """The clocks of the tool calls in flight (``activity`` resets them)."""

    # -- told by the connection -------------------------------------------------------------

    def going(self, why: str) -> None:
        """The connection is going away (stopped, cancelled, closed): what a call cut short
        by it says, unless an earlier reason was given."""
        self._gone = self._gone or why

    def activity(self, sign: WaitSign, said: str | None) -> None:
        """The server showed a sign of life (a log message, output): every call in flight
        waits on."""
        for clock in self._clocks:
            clock.touch(sign, said)

    @contextlib.contextmanager
    def person_answers(self) -> Iterator[None]:
        """While a person answers the server (an elicitation): the calls' clocks stop."""
        clocks = list(self._clocks)
        for clock in clocks:
            clock.pause()
        try:
            yield
        finally:
            for clock in clocks:
                clock.resume()

    def reopen(self) -> None:
        """A new session starts (a reconnect): no reason to go, no call cut short yet."""
        self._gone = None
        self._changed.clear()
        self._orphans.clear()

    def left_connected(self) -> None:
        """The status left ``connected`` (failed, stopped, ended)."""
        self._changed.set()

    def close(self) -> None:
        """The connection ended: answer every call in flight with why it broke and every
        queued one as unavailable; no client from now on."""
        conn = self._conn
        name = conn.spec.name
        for call in self._orphans:  # broken mid-call: say why, not "cancelled"
            why = conn.reason or "its connection broke"
            reason = f"the MCP server {name!r} failed during the call to {call.tool}: {why}"
            _settle(call.future, error=unavailable(name, reason, self._tail()))
        self._orphans.clear()
        while not self._calls.empty():
            _settle(self._calls.get_nowait().future, error=self.unavailable())
        self._client = None

    # -- the callers' side ------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        """``Connection.call``: directly on the client while it serves, else queued."""
        client = self._client
        if client is not None and self._conn.status is Status.CONNECTED and self._calls.empty():
            return await self._direct(client, tool, arguments, ctx)
        return await self.queued(tool, arguments, ctx)

    async def queued(
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
        conn = self._conn
        if conn.status is Status.CONNECTING:
            await conn.wait_settled()
        elif conn.reconnect is not None:  # it may be back: try now rather than at its time
            await conn.reconnect_now()
        if conn.status is not Status.CONNECTED:
            raise self.unavailable()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        call = _Call(name, arguments, ctx, conn.spec.timeout + 5, future, prompt=prompt, op=op)
        if not self._start(call):
            self._calls.put_nowait(call)
            self._wake.set()
        try:
            return await future
        except asyncio.CancelledError:
            call.abandon()
            raise

    def unavailable(self) -> ToolFailure:
        """What a request to a connection that is not connected fails with."""
        conn = self._conn
        name = conn.spec.name
        if conn.status is Status.STOPPED:
            why = "it was stopped"
        else:
            why = f"it failed: {conn.reason}" if conn.reason else "it is not connected"
        again = conn.reconnect
        why = f"{why}; {again.describe()}" if again is not None else why
        reason = f"the MCP server {name!r} is not running: {why}"
        return unavailable(name, reason, self._tail(), reconnecting=again is not None)

    def _tail(self) -> list[str]:
        return self._conn.stderr_tail(5)

    # -- the connection's side --------------------------------------------------------------

    def _start(self, call: _Call) -> bool:
        """Start ``call`` in the connection's task group now, when it serves: a step of the
        event loop less per request than the queue (which the serving task wakes up for)."""
        spawn = self._spawn
        if spawn is None or not self._calls.empty():  # queued requests keep their turn
            return False
        try:
            spawn(call)
        except RuntimeError:  # the group is closing: the queue answers it (``close``)
            self._spawn = None
            return False
        return True

    async def serve(self, client: Any, group: Any) -> None:
        """While the connection serves (a task of its inner group): run queued requests."""

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
            return await self._timed(client, tool, arguments, ctx)
        except ToolFailure:
            raise
        except Exception as exc:
            if connection_closed(exc) or self._conn.status is not Status.CONNECTED:
                raise await self._broken_under(tool, exc) from None
            raise self._call_failure(tool, exc) from None

    async def _timed(
        self, client: Any, tool: str, arguments: dict[str, Any], ctx: ToolContext | None
    ) -> Any:
        """``tools/call`` under a ``CallClock``: ``ToolFailure`` when it waited too long."""
        conn = self._conn
        clock = CallClock(conn.spec, tool, ctx, conn.stderr)
        self._clocks.add(clock)
        try:
            with clock.running():
                return await client.call_tool(
                    tool,
                    arguments,
                    read_timeout_seconds=clock.sdk_timeout,
                    progress_callback=clock.progress_callback(),
                )
        except Exception:
            if clock.expired is None:
                raise
        finally:
            self._clocks.discard(clock)
        # Only the clock's scope ends the block without an answer (it was cancelled).
        raise clock.failure(self._tail())

    async def _broken_under(self, tool: str, exc: Exception) -> ToolFailure:
        """Why a call in flight lost its connection (``exc``: the SDK's "connection
        closed"): once the connection has marked itself failed or stopped (bounded: what
        ``call_failure`` says of ``exc`` otherwise)."""
        conn = self._conn
        alive = False
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(BROKEN_WAIT):
                if conn.status is Status.CONNECTED:  # an HTTP server that is gone fails now
                    alive = await conn.check_link()
                while not alive and conn.status is Status.CONNECTED:
                    await self._changed.wait()
                    self._changed.clear()
        name = conn.spec.name
        if alive and conn.status is Status.CONNECTED:
            why = f"the MCP server {name!r} ended the call to {tool} without an answer ({exc})"
            return unavailable(name, why, self._tail())
        if self._gone is not None:
            return unavailable(name, self._gone, self._tail())
        if conn.status is Status.FAILED and conn.reason:
            reason = f"the MCP server {name!r} failed during the call to {tool}: {conn.reason}"
            return unavailable(name, reason, self._tail())
        return self._call_failure(tool, exc)

    def _call_failure(self, tool: str, exc: Exception) -> ToolFailure:
        conn = self._conn
        return call_failure(
            conn.spec.name,
            tool,
            exc,
            self._tail(),
            spec=conn.spec,
            http_status=conn.auth_watch.take_status(),
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
                    result = await self._timed(client, call.tool, call.arguments, call.ctx)
                except ToolFailure as failure:
                    _settle(call.future, error=failure)
                except Exception as exc:
                    _settle(call.future, error=self._call_failure(call.tool, exc))
                else:
                    _settle(call.future, result=result)
        finally:
            if not call.future.done() and not call.abandoned and self._gone is None:
                self._orphans.append(call)  # the connection broke under it: ``close`` says why
            elif not call.future.done():
                name = self._conn.spec.name
                reason = self._gone or f"the call to {name!r} was cancelled"
                _settle(call.future, error=unavailable(name, reason, self._tail()))


__all__ = ["BROKEN_WAIT", "CallPaths", "Session"]
