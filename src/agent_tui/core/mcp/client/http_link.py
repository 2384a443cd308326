"""The HTTP client of one MCP server, which notices at once when the server is gone.

The SDK's streamable HTTP transport hides a dead server for seconds: a response stream that
breaks is resumed after a second, twice, then its request is answered "connection closed";
the GET stream gives up without a word. ``WatchedClient`` (an ``httpx2.AsyncClient``; the SDK
sends every request through ``send``) reports what it sees of the server's own URL:

- a connection refused or unreachable (``httpx2.ConnectError``): the server is gone, now;
- a 404 to a request of a session (``Mcp-Session-Id``, not the closing DELETE): the server
  no longer knows the session (it restarted), which the spec says is the end of it;
- a request or response stream that breaks (reset, closed mid-body): it asks the server
  whether it is there (``probe``: an ``OPTIONS`` of the URL with the configured headers, on a
  client of its own so that no pooled connection of the dead server answers, without the
  sign-in). Refused, or a gateway's 502/503/504, and the server is gone; any other answer, or
  none within ``PROBE_TIMEOUT``, and the SDK's own resumption goes on.

"Gone" calls ``on_lost(error, status)`` once (``connection.Connection`` fails the server, its
calls in flight and reconnects by backoff). Timeouts are not suspicious (a slow tool is not a
dead server). Imported only when an HTTP server connects (``transport.open_transport``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

from agent_tui.core.mcp.client.backoff import GATEWAY_DOWN

log = logging.getLogger(__name__)
PROBE_TIMEOUT = 3.0
"""Seconds a probe waits for the server; no answer in that time proves nothing."""
PROBE_RESETS = (0.02, 0.05, 0.1, 0.2)
"""Pauses before asking again when the probe's connection was reset (then nothing proved)."""
SESSION_HEADER = "mcp-session-id"
Lost = Callable[[BaseException | None, int | None], None]
"""``on_lost(error, http_status)``: the server is gone (refused: the error; else the status)."""


class WatchedClient(httpx2.AsyncClient):
    """``httpx2.AsyncClient(**options)`` for the MCP endpoint ``url``; ``on_lost`` is told,
    once, when the server is gone."""

    def __init__(self, url: str, on_lost: Lost, **options: Any) -> None:
        super().__init__(**options)
        self.endpoint = httpx2.URL(url)
        self.lost = False
        """The server was found gone (``on_lost`` was called)."""
        self._on_lost = on_lost
        self._probe: asyncio.Task[bool | None] | None = None
        self._prober: httpx2.AsyncClient | None = None
        """The probe's own client (``probe``), made on the first probe."""

    def _ours(self, url: httpx2.URL) -> bool:
        mine = self.endpoint
        return (url.scheme, url.host, url.port) == (mine.scheme, mine.host, mine.port)

    async def send(
        self,
        request: httpx2.Request,
        *,
        stream: bool = False,
        auth: Any = httpx2.USE_CLIENT_DEFAULT,
        follow_redirects: Any = httpx2.USE_CLIENT_DEFAULT,
    ) -> httpx2.Response:
        ours = self._ours(request.url)
        try:
            response = await super().send(
                request, stream=stream, auth=auth, follow_redirects=follow_redirects
            )
        except httpx2.ConnectError as exc:
            if ours:
                self._lose(exc, None)
            raise
        except httpx2.TimeoutException:
            raise
        except httpx2.TransportError:
            if ours:
                self.suspect()
            raise
        if ours:
            ended = response.status_code == 404 and request.method != "DELETE"
            if ended and request.headers.get(SESSION_HEADER):
                self._lose(None, 404)
            elif stream:
                response.stream = _WatchedBody(response.stream, self)
        return response

    def suspect(self) -> None:
        """A stream of the server broke: probe it (once at a time)."""
        if self.lost or (self._probe is not None and not self._probe.done()):
            return
        self._probe = asyncio.get_running_loop().create_task(self.probe(), name="mcp probe")

    async def check(self) -> bool:
        """Whether the server answered a probe (this one, or the one under way); False when
        it is gone, or nothing was proved (no answer in time, the client closed)."""
        self.suspect()
        probe = self._probe
        if probe is None or self.lost:
            return False
        try:
            return await asyncio.shield(probe) is True
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if probe.cancelled() and (task is None or not task.cancelling()):
                return False  # the client closed under the probe, not our caller
            raise

    async def probe(self) -> bool | None:
        """Ask the server whether it is there: False when it is gone (and ``on_lost`` was
        told), True when it answered, None when nothing was proved (no answer in time). A
        connection that is reset is asked again, a little later (``PROBE_RESETS``): a server
        being killed may still take a connection while its process goes."""
        if self._prober is None:
            self._prober = httpx2.AsyncClient(
                headers=self.headers,
                timeout=PROBE_TIMEOUT,
                limits=httpx2.Limits(max_keepalive_connections=0),  # a new connection each
                verify=await asyncio.to_thread(tls_context),
            )
        for pause in (*PROBE_RESETS, None):
            try:
                async with self._prober.stream(
                    "OPTIONS", self.endpoint, follow_redirects=False
                ) as response:
                    status = response.status_code
                break
            except httpx2.ConnectError as exc:
                self._lose(exc, None)
                return False
            except (httpx2.NetworkError, httpx2.RemoteProtocolError) as exc:
                log.debug("probe of %s: reset (%r)", self.endpoint, exc)
                if pause is None:
                    return None
                await asyncio.sleep(pause)
            except httpx2.HTTPError as exc:
                log.debug("probe of %s proved nothing: %r", self.endpoint, exc)
                return None
        if status in GATEWAY_DOWN:
            self._lose(None, status)
            return False
        return True

    def _lose(self, error: BaseException | None, status: int | None) -> None:
        if self.lost:
            return
        self.lost = True
        try:
            self._on_lost(error, status)
        except Exception:  # the listener must not break the SDK's request
            log.exception("MCP connection: reporting a lost server failed")

    async def aclose(self) -> None:
        probe = self._probe
        if probe is not None and not probe.done():
            probe.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await probe
        if self._prober is not None:
            await self._prober.aclose()
        await super().aclose()


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS settings of every MCP HTTP client, made once: loading the CA bundle takes
    ~50 ms, which each client (each reconnect attempt, each probe) would otherwise spend."""
    return httpx2.create_ssl_context()


class _WatchedBody(httpx2.AsyncByteStream):
    """A response body that tells its client when it breaks."""

    def __init__(self, inner: Any, client: WatchedClient) -> None:
        self._inner = inner
        self._client = client

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                yield chunk
        except httpx2.TimeoutException:
            raise
        except httpx2.TransportError:
            self._client.suspect()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


__all__ = ["PROBE_TIMEOUT", "Lost", "WatchedClient", "tls_context"]
