"""What a normal connection to an HTTP server uses of OAuth: never an interactive sign-in.

``connection_auth``: with saved tokens the SDK sends them (and refreshes them); without, or
when they are refused, the server fails with ``SIGN_IN`` (``sign_in_reason``) and the state
says ``auth_required``. A browserless grant (``grants``) obtains its token at connect time;
why it failed is in ``AuthWatch.grant_error``. ``AuthWatch`` is what the HTTP client saw (a
401, the status of the last HTTP error), and ``sign_in_failure`` whether a connection ended
for want of sign-in.
Tokens never appear in logs, errors or events: messages name the server and the file only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agent_tui.core.mcp.auth.dpop import with_dpop
from agent_tui.core.mcp.auth.grants import grant_provider, recorded
from agent_tui.core.mcp.auth.provider import CALLBACK_PATH, HOST, make_provider, storage_for
from agent_tui.core.mcp.config.spec import ServerSpec


def sign_in_hint(name: str) -> str:
    return f"press a in the MCP panel, or run `agent-tui mcp login {name}`"


def sign_in_reason(name: str) -> str:
    """The reason of a server that answered 401: what happened and what to do."""
    return f"this server needs sign-in: {sign_in_hint(name)}"


class SignInRequired(Exception):
    """A connection met a 401 it may not answer with an interactive sign-in."""


@dataclass
class AuthWatch:
    """What the HTTP client saw: a 401 (the server wants a token, or refused ours), whether
    the connection's OAuth gave up for want of an interactive sign-in (``refused``: also a 403
    ``insufficient_scope`` in the middle of a call, a scope step-up), and the status of the
    last answer that was an HTTP error (the SDK turns 401, 403 and 5xx alike into JSON-RPC
    error -32603; ``client.failures`` says which it was and what to do)."""

    unauthorized: bool = False
    refused: bool = False
    status: int | None = None
    """The last HTTP error status (>= 400) not yet taken (``take_status``)."""
    grant_error: str | None = None
    """Why a browserless grant (``grants``) got no token, in words; None: it did not fail."""

    def grant_failed(self, why: str) -> None:
        self.grant_error = why

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


def connection_auth(spec: ServerSpec, watch: AuthWatch | None = None) -> tuple[Any, AuthWatch]:
    """(the ``httpx2.Auth`` of a normal connection or None, the watch to give its client as
    a response hook). With saved tokens, the SDK sends and refreshes them; a 401 it cannot
    fix by refreshing ends in ``SignInRequired`` (never a browser)."""
    watch = watch if watch is not None else AuthWatch()
    if spec.oauth is None:
        return None, watch
    storage = storage_for(spec)
    if spec.oauth.browserless:  # the connection obtains its token itself
        watch.grant_error = None
        provider = with_dpop(grant_provider(spec, storage), spec, storage)
        return recorded(provider, spec, watch.grant_failed), watch
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
    return with_dpop(make_provider(spec, storage, redirect, refuse, never), spec, storage), watch


def sign_in_failure(error: BaseException, spec: ServerSpec, watch: AuthWatch | None) -> bool:
    """Whether a connection ended because the server wants sign-in (the hook of
    ``client.failures.describe_exception``)."""
    if spec.transport != "http" or spec.oauth is None:
        return False
    if watch is not None and (watch.unauthorized or watch.refused):
        return True
    return any(isinstance(leaf, SignInRequired) for leaf in exception_leaves(error))


def exception_leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in exception_leaves(inner)]
    chain = [exc]
    if exc.__cause__ is not None:
        chain.extend(exception_leaves(exc.__cause__))
    elif exc.__context__ is not None and not exc.__suppress_context__:
        chain.extend(exception_leaves(exc.__context__))
    return chain


__all__ = [
    "AuthWatch",
    "SignInRequired",
    "connection_auth",
    "exception_leaves",
    "sign_in_failure",
    "sign_in_hint",
    "sign_in_reason",
]
