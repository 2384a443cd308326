"""OAuth sign-in for HTTP MCP servers: the one the user asks for, and signing out.

``login`` is the sign-in the user asked for (``agent-tui mcp login NAME``, ``a`` in the MCP
panel): the saved tokens are dropped, the authorization URL printed (``on_url``) and opened in
the browser, the code taken at the redirect, the tokens saved, the server's tool list fetched
as proof. The redirect is a one-shot HTTP listener on ``127.0.0.1`` (``CallbackListener``: a
free port, path ``/callback``) that takes the authorization response whose ``state`` matches,
answers the browser, and gives up after ``LOGIN_TIMEOUT`` seconds with a message saying so.
``logout`` forgets the tokens. The SDK's provider is ``provider.make_provider``; what a
normal connection uses is ``connection_auth``. A server whose ``oauth.grant`` needs no browser
(``grants``) gets a fresh token from its grant instead, and the result says which grant.
Tokens never appear in logs, errors or events.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import time
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlsplit

from agent_tui import __version__
from agent_tui.core.mcp.auth.connection_auth import exception_leaves
from agent_tui.core.mcp.auth.dpop import with_dpop
from agent_tui.core.mcp.auth.grants import describe_grant, grant_failure, grant_provider
from agent_tui.core.mcp.auth.provider import CALLBACK_PATH, HOST, make_provider, storage_for
from agent_tui.core.mcp.auth.token_store import FileTokenStorage
from agent_tui.core.mcp.config.spec import ServerSpec

log = logging.getLogger(__name__)
LOGIN_TIMEOUT = 300.0
"""Seconds to wait for the browser to come back to the loopback redirect."""


class LoginError(Exception):
    """A sign-in that did not complete; the message says why and what to do."""


# -- the redirect listener ----------------------------------------------------------------


class Answer(NamedTuple):
    """An authorization response: the code, its ``state``, and the issuer the authorization
    server named (``iss``, RFC 9207), when it did."""

    code: str
    state: str | None
    iss: str | None = None


@dataclass
class CallbackListener:
    """``await CallbackListener.start()``; ``redirect_uri``; ``await wait(state, timeout)``."""

    server: asyncio.Server
    port: int
    _result: asyncio.Future[Answer] = field(init=False)
    _state: str | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._result = asyncio.get_running_loop().create_future()

    @classmethod
    async def start(cls, port: int = 0) -> CallbackListener:
        holder: list[CallbackListener] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await holder[0]._handle(reader, writer)

        server = await asyncio.start_server(handle, HOST, port)
        bound = int(server.sockets[0].getsockname()[1])
        listener = cls(server, bound)
        holder.append(listener)
        return listener

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self.port}{CALLBACK_PATH}"

    def expect(self, authorization_url: str) -> None:
        """Accept only the response to this authorization request (its ``state``). A second
        request in one sign-in (the server moved to another authorization server, or asked
        again with more scopes) waits for its own response, never the first one's."""
        states = parse_qs(urlsplit(authorization_url).query).get("state")
        self._state = states[0] if states else None
        if self._result.done():
            self._result = asyncio.get_running_loop().create_future()

    async def wait(self, timeout: float) -> Answer:
        """The authorization response to the request last ``expect``ed; ``LoginError`` on a
        refusal or a timeout."""
        try:
            async with asyncio.timeout(timeout):
                answer = await asyncio.shield(self._result)
        except TimeoutError:
            raise LoginError(
                f"no answer from the browser within {timeout:g} s (the sign-in page was not "
                "completed, or it could not reach the redirect on "
                f"{self.redirect_uri}); try again"
            ) from None
        return answer

    async def close(self) -> None:
        self.server.close()
        with contextlib.suppress(Exception):
            await self.server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            writer.close()
            return
        parts = head.split(b"\r\n", 1)[0].decode("latin-1").split()
        target = urlsplit(parts[1]) if len(parts) >= 2 and parts[0] == "GET" else None
        if target is None or target.path != CALLBACK_PATH:
            await _answer(writer, 404, "Not found", "This is agent-tui's sign-in redirect.")
            return
        query = {k: v[0] for k, v in parse_qs(target.query).items()}
        if self._state is None or query.get("state") != self._state:
            await _answer(writer, 400, "Unexpected sign-in response", "Its state does not match.")
            return
        if "error" in query:
            why = query.get("error_description") or query["error"]
            await _answer(writer, 400, "Sign-in refused", f"The server said: {why}")
            if not self._result.done():
                self._result.set_exception(
                    LoginError(f"the authorization server refused the sign-in: {why}")
                )
            return
        if not query.get("code"):
            await _answer(writer, 400, "No authorization code", "The response had no code.")
            return
        await _answer(writer, 200, "Signed in", "You can close this tab and go back to agent-tui.")
        if not self._result.done():
            self._result.set_result(Answer(query["code"], query.get("state"), query.get("iss")))


async def _answer(writer: asyncio.StreamWriter, status: int, title: str, text: str) -> None:
    body = (
        f"<!doctype html><title>agent-tui: {html.escape(title)}</title>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
    ).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(Exception):
        await writer.drain()
    writer.close()


# -- the sign-in --------------------------------------------------------------------------


@dataclass(frozen=True)
class LoginResult:
    server: str
    path: str
    """The file the tokens are in."""
    tools: int
    """How many tools the server listed (its first page)."""
    needed: bool = True
    """False when the server let us in without asking (nothing was saved)."""
    grant: str | None = None
    """How a browserless grant got the token (``grants.describe_grant``); None: a browser."""

    def describe(self) -> str:
        if not self.needed:
            return f"{self.server} did not ask for sign-in; nothing to do"
        count = f"{self.tools} tool{'s' if self.tools != 1 else ''}"
        if self.grant is not None:
            return (
                f"obtained a token for {self.server} with {self.grant}, no browser needed "
                f"({count}); it is in {self.path}, and connections renew it themselves"
            )
        return f"signed in to {self.server} ({count}); the tokens are in {self.path}"


def open_browser(url: str) -> bool:
    try:
        return bool(webbrowser.open(url))
    except Exception:  # no browser, no display: the printed URL is the way
        log.warning("opening a browser for %s failed", url, exc_info=True)
        return False


async def login(
    spec: ServerSpec,
    *,
    on_url: Callable[[str], None],
    open_browser: Callable[[str], bool] | None = open_browser,
    timeout: float = LOGIN_TIMEOUT,
) -> LoginResult:
    """Sign in to ``spec`` now: the saved tokens are dropped, the browser opened at the
    authorization URL (also given to ``on_url``, for a terminal without one), the code taken
    at the loopback redirect, the tokens saved. Proves it by listing the server's tools.
    ``LoginError`` says what went wrong."""
    if spec.transport != "http":
        raise LoginError(f"{spec.name} is a stdio server: sign-in is for HTTP servers")
    if spec.error:
        raise LoginError(f"{spec.name} cannot be used: {spec.error}")
    if spec.oauth is None:
        raise LoginError(
            f"sign-in is off for {spec.name} (its entry has an Authorization header or "
            '"oauth": false)'
        )
    if spec.untrusted:
        raise LoginError(
            f"{spec.name} comes with the project's {spec.source} and is not trusted yet: "
            "trust it first (d in the MCP panel, or `agent-tui trust`), then sign in"
        )
    key = (spec.name, spec.url)
    if key in _UNDER_WAY:
        raise LoginError(
            f"a sign-in to {spec.name} is already under way: finish it in the browser, or "
            "wait until it times out"
        )
    _UNDER_WAY.add(key)
    try:
        if spec.oauth.browserless:
            return await _login_browserless(spec, timeout)
        return await _login(spec, on_url, open_browser, timeout)
    finally:
        _UNDER_WAY.discard(key)


_UNDER_WAY: set[tuple[str, str]] = set()
"""The sign-ins running in this process (one per server at a time)."""


async def _login(
    spec: ServerSpec,
    on_url: Callable[[str], None],
    open_browser: Callable[[str], bool] | None,
    timeout: float,
) -> LoginResult:
    storage = storage_for(spec)
    storage.forget_tokens()
    listener = await _listen(spec, storage)
    storage.redirect_uri = listener.redirect_uri
    asked: list[str] = []

    async def redirect(url: str) -> None:
        asked.append(url)
        listener.expect(url)
        on_url(url)
        if open_browser is not None:
            await asyncio.to_thread(open_browser, url)

    async def callback() -> Any:
        from mcp.shared.auth import AuthorizationCodeResult

        answer = await listener.wait(timeout)
        # iss (RFC 9207) too: the SDK checks it against the issuer, and refuses a response
        # without it from an authorization server that says it sends one
        return AuthorizationCodeResult(code=answer.code, state=answer.state, iss=answer.iss)

    provider = make_provider(spec, storage, listener.redirect_uri, redirect, callback)
    provider = with_dpop(provider, spec, storage)
    try:
        tools = await _connect(spec, provider, timeout)
    except LoginError:
        raise
    except BaseException as exc:
        leaves = exception_leaves(exc)
        for leaf in leaves:
            if isinstance(leaf, LoginError):
                raise leaf from None
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise LoginError(_why(spec, leaves)) from None
    finally:
        await listener.close()
    if not asked:
        return LoginResult(spec.name, str(storage.path), tools, needed=False)
    if not storage.signed_in:
        raise LoginError(f"{spec.name} gave no tokens (nothing was saved); try again")
    return LoginResult(spec.name, str(storage.path), tools)


async def _login_browserless(spec: ServerSpec, timeout: float) -> LoginResult:
    """A grant that needs no browser (``grants``): a fresh token now, saved, the tools listed."""
    storage = storage_for(spec)
    storage.forget_tokens()
    provider = with_dpop(grant_provider(spec, storage), spec, storage)
    try:
        tools = await _connect(spec, provider, timeout)
    except BaseException as exc:
        leaves = exception_leaves(exc)
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise LoginError(_why(spec, leaves)) from None
    if not storage.signed_in:
        return LoginResult(spec.name, str(storage.path), tools, needed=False)
    return LoginResult(spec.name, str(storage.path), tools, grant=describe_grant(spec))


async def _listen(spec: ServerSpec, storage: FileTokenStorage) -> CallbackListener:
    """The redirect listener: on the configured port, else on the port a registered client
    was registered with (registering again when it is taken), else on a free one."""
    assert spec.oauth is not None
    if spec.oauth.callback_port is not None:
        try:
            return await CallbackListener.start(spec.oauth.callback_port)
        except OSError as exc:
            raise LoginError(
                f"cannot listen on {HOST}:{spec.oauth.callback_port} for the sign-in redirect "
                f"({exc.strerror or exc}); free that port or change oauth.callback_port"
            ) from None
    registered = storage.registered_redirect_uri() if spec.oauth.client_id is None else None
    port = urlsplit(registered).port if registered else None
    if port:
        try:
            return await CallbackListener.start(port)
        except OSError:
            storage.forget_client()  # its redirect URI cannot be served: register again
    return await CallbackListener.start(0)


async def _connect(spec: ServerSpec, provider: Any, timeout: float) -> int:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import Implementation

    http = httpx2.AsyncClient(
        headers=spec.headers or None,
        timeout=httpx2.Timeout(30.0, read=max(60.0, timeout + 10)),
        auth=provider,
    )
    async with http:
        client = Client(
            streamable_http_client(spec.url, http_client=http),
            read_timeout_seconds=timeout + 30,
            client_info=Implementation(name="agent-tui", version=__version__),
            cache=None,
        )
        started = time.monotonic()
        async with client:
            tools = (await client.list_tools()).tools  # the first page: proof enough
        log.debug("signed in to %s in %.2f s", spec.name, time.monotonic() - started)
    return len(tools)


def _why(spec: ServerSpec, leaves: list[BaseException]) -> str:
    from mcp.client.auth import OAuthFlowError

    if spec.oauth is not None and spec.oauth.browserless:
        for leaf in leaves:
            if (why := grant_failure(spec, leaf)) is not None:
                return why
    for leaf in leaves:
        if isinstance(leaf, OAuthFlowError):
            return f"the sign-in to {spec.name} failed: {_safe(leaf)}"
    leaf = leaves[0]
    return f"the sign-in to {spec.name} failed: {type(leaf).__name__}: {_safe(leaf)}"


def _safe(exc: BaseException) -> str:
    """An SDK message, first line, shortened (the SDK's messages carry no tokens; a token
    endpoint's error body is cut short)."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return text if len(text) <= 300 else text[:297] + "..."


def logout(spec: ServerSpec) -> bool:
    """Forget the tokens and client of ``spec``; whether there was anything."""
    return storage_for(spec).remove()


__all__ = ["LOGIN_TIMEOUT", "CallbackListener", "LoginError", "LoginResult", "login", "logout"]
