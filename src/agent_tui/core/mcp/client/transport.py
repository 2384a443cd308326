"""The SDK transports for a server, wrapped to notice when the server hangs up.

``open_transport`` builds the SDK's stdio transport (the child's stderr goes to our log file,
never to the terminal) or its streamable HTTP transport (with the configured headers).

The SDK's dispatcher ends quietly when the server's stream ends (the process exited, the
HTTP stream closed): ``WatchedTransport`` sets an event at that moment so the connection can
fail its calls and change its status at once. It also closes the HTTP client it was given,
after the transport, and stamps ``resultType: "complete"`` on a result that lacks one
(``result_type``). An HTTP server that dies says nothing on a stream the SDK reads: its HTTP
client (``http_link.WatchedClient``) tells ``on_lost`` instead.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from agent_tui.core.mcp.auth.connection_auth import AuthWatch, connection_auth
from agent_tui.core.mcp.client.result_type import stamped
from agent_tui.core.mcp.client.stderr import StderrLog
from agent_tui.core.mcp.config.spec import ServerSpec

if TYPE_CHECKING:
    from agent_tui.core.mcp.client.http_link import Lost

MAX_PAGES = 100


def open_transport(
    spec: ServerSpec,
    cwd: Path,
    stderr: StderrLog | None,
    watch: AuthWatch | None = None,
    on_lost: Lost | None = None,
) -> tuple[Any, Any]:
    """(the SDK transport for ``spec``, an HTTP client to close after it, or None). An HTTP
    client sends the saved OAuth tokens, if any (``auth.connection_auth``), notes a 401 in
    ``watch``, and tells ``on_lost`` when the server is gone (``http_link``)."""
    import httpx2
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    if spec.transport == "http":
        from agent_tui.core.mcp.client.http_link import WatchedClient, tls_context

        timeout = httpx2.Timeout(30.0, read=max(300.0, spec.timeout + 10))
        auth, seen = connection_auth(spec, watch)
        http = WatchedClient(
            spec.url,
            on_lost or _ignore,
            headers=spec.headers or None,
            timeout=timeout,
            verify=tls_context(),
            auth=auth,
            event_hooks={"response": [seen.on_response]},
        )
        return streamable_http_client(spec.url, http_client=http), http
    assert stderr is not None, "a stdio server needs a stderr log"
    params = StdioServerParameters(
        command=spec.command,
        args=list(spec.args),
        env=dict(spec.env) or None,
        cwd=spec.cwd or str(cwd),
    )
    return stdio_client(params, errlog=stderr.file), None


def _ignore(error: BaseException | None, status: int | None) -> None:
    """No one to tell that the server is gone (the SDK's own errors say it)."""


async def list_tools(client: Any) -> list[Any]:
    """Every tool of the server, page by page (at most ``MAX_PAGES`` pages)."""
    return await _every(client.list_tools, "tools")


def has_prompts(client: Any) -> bool:
    """Whether the server declared the prompts capability."""
    capabilities = getattr(client, "server_capabilities", None)
    return getattr(capabilities, "prompts", None) is not None


async def list_prompts(client: Any) -> list[Any]:
    """Every prompt of the server, page by page (at most ``MAX_PAGES`` pages)."""
    return await _every(client.list_prompts, "prompts")


async def _every(list_page: Any, field: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await list_page(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return items


class _WatchedStream:
    """The transport's read stream; sets ``closed`` when it ends."""

    def __init__(self, inner: Any, closed: Any) -> None:
        self._inner = inner
        self._closed = closed

    def __getattr__(self, name: str) -> Any:  # last_context and anything else the SDK reads
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        try:
            return stamped(await self._inner.receive())
        except Exception:
            self._closed.set()
            raise

    def __aiter__(self) -> _WatchedStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return stamped(await self._inner.__anext__())
        except BaseException as exc:
            if not _is_cancel(exc):
                self._closed.set()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        suppressed: bool | None = await self._inner.__aexit__(exc_type, exc_val, exc_tb)
        return suppressed


def _is_cancel(exc: BaseException) -> bool:
    import anyio

    return isinstance(exc, anyio.get_cancelled_exc_class())


class WatchedTransport:
    """``async with WatchedTransport(transport, http, closed=event) as (read, write)``."""

    def __init__(self, inner: Any, owned: Any = None, *, closed: Any) -> None:
        self._inner = inner
        self._owned = owned
        self._closed = closed

    async def __aenter__(self) -> tuple[Any, Any]:
        try:
            read, write = await self._inner.__aenter__()
        except BaseException:
            await self._close_owned()
            raise
        return _WatchedStream(read, self._closed), write

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        try:
            suppressed: bool | None = await self._inner.__aexit__(exc_type, exc_val, exc_tb)
            return suppressed
        finally:
            await self._close_owned()

    async def _close_owned(self) -> None:
        if self._owned is not None:
            with contextlib.suppress(Exception):
                await self._owned.aclose()
