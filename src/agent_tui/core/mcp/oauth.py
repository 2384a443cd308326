"""OAuth sign-in for HTTP MCP servers, on the SDK's ``OAuthClientProvider``.

The SDK does the protocol: protected resource metadata and authorization server metadata
discovery, dynamic client registration (unless a ``client_id`` is configured), PKCE, the
code exchange and, when the access token has expired, the refresh with the refresh token.
This module gives it what it leaves to the application:

- where tokens live (``token_store.FileTokenStorage``, per server, mode 0600);
- the redirect: a one-shot HTTP listener on ``127.0.0.1`` (a free port, path ``/callback``)
  that takes the authorization response whose ``state`` matches, answers the browser, and
  gives up after ``LOGIN_TIMEOUT`` seconds with a message saying so;
- ``login``: the sign-in the user asked for (``agent-tui mcp login NAME``, ``a`` in the MCP
  panel): the authorization URL is printed (``on_url``) and opened in the browser;
- ``connection_auth``: what a normal connection uses. It never starts an interactive sign-in:
  with saved tokens it sends them (and refreshes them); without, or when they are refused, the
  server fails with ``SIGN_IN`` (``sign_in_reason``) and the state says ``auth_required``.

Tokens never appear in logs, errors or events: messages name the server and the file only.
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
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agent_tui import __version__
from agent_tui.core.mcp.config import ServerSpec
from agent_tui.core.mcp.token_store import FileTokenStorage

log = logging.getLogger(__name__)
LOGIN_TIMEOUT = 300.0
"""Seconds to wait for the browser to come back to the loopback redirect."""
CALLBACK_PATH = "/callback"
HOST = "127.0.0.1"


def sign_in_hint(name: str) -> str:
    return f"press a in the MCP panel, or run `agent-tui mcp login {name}`"


def sign_in_reason(name: str) -> str:
    """The reason of a server that answered 401: what happened and what to do."""
    return f"this server needs sign-in: {sign_in_hint(name)}"


class SignInRequired(Exception):
    """A connection met a 401 it may not answer with an interactive sign-in."""


class LoginError(Exception):
    """A sign-in that did not complete; the message says why and what to do."""


# -- the redirect listener ----------------------------------------------------------------


@dataclass
class CallbackListener:
    """``await CallbackListener.start()``; ``redirect_uri``; ``await wait(state, timeout)``."""

    server: asyncio.Server
    port: int
    _result: asyncio.Future[tuple[str | None, str | None]] = field(init=False)
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
        """Accept only the response to this authorization request (its ``state``)."""
        states = parse_qs(urlsplit(authorization_url).query).get("state")
        self._state = states[0] if states else None

    async def wait(self, timeout: float) -> tuple[str, str | None]:
        """(code, state) of the authorization response; ``LoginError`` on a refusal or a
        timeout."""
        try:
            async with asyncio.timeout(timeout):
                code, state = await asyncio.shield(self._result)
        except TimeoutError:
            raise LoginError(
                f"no answer from the browser within {timeout:g} s (the sign-in page was not "
                "completed, or it could not reach the redirect on "
                f"{self.redirect_uri}); try again"
            ) from None
        assert code is not None
        return code, state

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
            self._result.set_result((query["code"], query.get("state")))


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


# -- the SDK provider ---------------------------------------------------------------------


def _provider(
    spec: ServerSpec,
    storage: FileTokenStorage,
    redirect_uri: str,
    redirect_handler: Callable[[str], Any],
    callback_handler: Callable[[], Any],
) -> Any:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    assert spec.oauth is not None
    scopes = " ".join(spec.oauth.scopes) or None
    secret = spec.oauth.client_secret

    class Provider(OAuthClientProvider):
        """The SDK's provider, plus what it leaves out: the saved token's expiry is restored
        (so a restart refreshes an expired token instead of asking for sign-in), a token
        counts as expired a little early (``_early``: a request must not reach the server
        with a token that expires on the way, as a 401 would mean sign-in), and configured
        scopes win over the ones the server advertises."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            context = self.context

            def update_token_expiry(token: Any) -> None:
                expires_in = token.expires_in
                at = time.time() + int(expires_in) if expires_in is not None else None
                context.token_expiry_time = _early(at, expires_in)

            context.update_token_expiry = update_token_expiry  # type: ignore[method-assign]

        async def _initialize(self) -> None:
            await super()._initialize()
            tokens = self.context.current_tokens
            if tokens is not None:
                self.context.token_expiry_time = _early(storage.expires_at, tokens.expires_in)

        async def _perform_authorization(self) -> Any:
            if scopes:
                self.context.client_metadata.scope = scopes
            else:  # what a connection was refused for (a scope step-up) is asked for too
                self.context.client_metadata.scope = _union(
                    self.context.client_metadata.scope, storage.wanted_scope
                )
            return await super()._perform_authorization()

        async def _exchange_token_authorization_code(self, *args: Any, **kwargs: Any) -> Any:
            self._secret_method()
            return await super()._exchange_token_authorization_code(*args, **kwargs)

        async def _refresh_token(self) -> Any:
            self._secret_method()
            return await super()._refresh_token()

        def _secret_method(self) -> None:
            """A pre-registered client sends its secret the way the authorization server
            says it takes it (``token_endpoint_auth_methods_supported``)."""
            info = self.context.client_info
            if secret and info is not None and spec.oauth and spec.oauth.client_id:
                info.token_endpoint_auth_method = _secret_method(self.context.oauth_metadata)

    metadata = OAuthClientMetadata(
        redirect_uris=[redirect_uri],  # type: ignore[list-item]
        client_name="agent-tui",
        software_id="agent-tui",
        software_version=__version__,
        scope=scopes,
        token_endpoint_auth_method="client_secret_post" if secret else "none",
        grant_types=["authorization_code", "refresh_token"],
    )
    return Provider(
        spec.url,
        metadata,
        storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=spec.oauth.client_metadata_url,
    )


def _secret_method(metadata: Any) -> str:
    """``client_secret_post`` when the authorization server takes it, else
    ``client_secret_basic`` (also when it lists no methods: RFC 8414's default)."""
    supported = getattr(metadata, "token_endpoint_auth_methods_supported", None) or []
    if "client_secret_post" in supported:
        return "client_secret_post"
    return "client_secret_basic"


def _union(first: str | None, second: str | None) -> str | None:
    """Two space-separated scope lists as one, in order, without repeats (None when empty)."""
    words = dict.fromkeys([*(first or "").split(), *(second or "").split()])
    return " ".join(words) or None


def _early(expires_at: float | None, expires_in: int | None) -> float | None:
    """``expires_at`` moved earlier by a tenth of the token's lifetime, at most 30 s."""
    if expires_at is None:
        return None
    return expires_at - min(30.0, (expires_in or 0) * 0.1)


@dataclass
class AuthWatch:
    """What the HTTP client saw: a 401 (the server wants a token, or refused ours), whether
    the connection's OAuth gave up for want of an interactive sign-in (``refused``: also a 403
    ``insufficient_scope`` in the middle of a call, a scope step-up), and the status of the
    last answer that was an HTTP error (the SDK turns 401, 403 and 5xx alike into JSON-RPC
    error -32603; ``failures`` says which it was and what to do)."""

    unauthorized: bool = False
    refused: bool = False
    status: int | None = None
    """The last HTTP error status (>= 400) not yet taken (``take_status``)."""

    async def on_response(self, response: Any) -> None:
        code = response.status_code
        if code == 401:
            self.unauthorized = True
        if code >= 400:
            self.status = code

    def take_status(self) -> int | None:
        """The last HTTP error status seen, forgotten once taken (None: there was none)."""
        status, self.status = self.status, None
        return status


def storage_for(spec: ServerSpec) -> FileTokenStorage:
    return FileTokenStorage(spec.name, spec.url, spec.oauth)


def connection_auth(spec: ServerSpec, watch: AuthWatch | None = None) -> tuple[Any, AuthWatch]:
    """(the ``httpx2.Auth`` of a normal connection or None, the watch to give its client as
    a response hook). With saved tokens, the SDK sends and refreshes them; a 401 it cannot
    fix by refreshing ends in ``SignInRequired`` (never a browser)."""
    watch = watch if watch is not None else AuthWatch()
    if spec.oauth is None:
        return None, watch
    storage = storage_for(spec)
    if not storage.signed_in:  # nothing to send: a 401 is reported, no registration is made
        return None, watch

    async def refuse(url: str) -> None:
        # the SDK chose the scope the server asked for (with a step-up, on top of the old
        # one): the sign-in the user will be asked for requests it
        wanted = parse_qs(urlsplit(url).query).get("scope")
        if wanted:
            storage.want_scope(wanted[0])
        watch.refused = True
        raise SignInRequired(sign_in_reason(spec.name))

    async def never() -> Any:
        watch.refused = True
        raise SignInRequired(sign_in_reason(spec.name))

    redirect = storage.registered_redirect_uri() or f"http://{HOST}:1{CALLBACK_PATH}"
    return _provider(spec, storage, redirect, refuse, never), watch


def sign_in_failure(error: BaseException, spec: ServerSpec, watch: AuthWatch | None) -> bool:
    """Whether a connection ended because the server wants sign-in (the hook of
    ``failures.describe_exception``)."""
    if spec.transport != "http" or spec.oauth is None:
        return False
    if watch is not None and (watch.unauthorized or watch.refused):
        return True
    return any(isinstance(leaf, SignInRequired) for leaf in _leaves(error))


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    chain = [exc]
    if exc.__cause__ is not None:
        chain.extend(_leaves(exc.__cause__))
    elif exc.__context__ is not None and not exc.__suppress_context__:
        chain.extend(_leaves(exc.__context__))
    return chain


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

    def describe(self) -> str:
        if not self.needed:
            return f"{self.server} did not ask for sign-in; nothing to do"
        count = f"{self.tools} tool{'s' if self.tools != 1 else ''}"
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

        code, state = await listener.wait(timeout)
        return AuthorizationCodeResult(code=code, state=state)

    provider = _provider(spec, storage, listener.redirect_uri, redirect, callback)
    try:
        tools = await _connect(spec, provider, timeout)
    except LoginError:
        raise
    except BaseException as exc:
        leaves = _leaves(exc)
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


__all__ = [
    "LoginError",
    "LoginResult",
    "SignInRequired",
    "connection_auth",
    "login",
    "logout",
    "sign_in_failure",
    "sign_in_hint",
    "sign_in_reason",
]
