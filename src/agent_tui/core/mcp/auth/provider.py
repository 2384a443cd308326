"""The SDK's ``OAuthClientProvider`` as agent-tui uses it, and where its tokens are kept.

The SDK does the protocol: protected resource metadata and authorization server metadata
discovery, dynamic client registration (unless a ``client_id`` is configured), PKCE, the
code exchange and, when the access token has expired, the refresh with the refresh token.
``make_provider`` gives it what it leaves to the application — the saved token's expiry, a token
counted as expired a little early, the configured scopes, how a pre-registered client sends its
secret — by extending four of its private methods (each listed, with its signature, in
``agent_tui.private_members``, whose test fails loudly when an SDK upgrade changes one).
Tokens live in ``token_store.FileTokenStorage`` (``storage_for``: per server, mode 0600).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from agent_tui import __version__
from agent_tui.core.mcp.auth.token_store import FileTokenStorage
from agent_tui.core.mcp.config.spec import ServerSpec

HOST = "127.0.0.1"
CALLBACK_PATH = "/callback"
"""The loopback redirect: ``http://HOST:PORT/callback``."""


def storage_for(spec: ServerSpec) -> FileTokenStorage:
    return FileTokenStorage(spec.name, spec.url, spec.oauth)


SDK_LOGGER = "mcp.client.auth"


class _ToOurLog(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        ours = logging.getLogger(__name__)
        if ours.isEnabledFor(record.levelno):
            ours.handle(record)


def keep_sdk_log() -> None:
    """The SDK logs a failed OAuth flow with its traceback (``mcp.client.auth``), a logger
    nothing handles: Python's last resort would print it on stderr, over the terminal UI or a
    command's own one-line message. It goes to agent-tui's log file instead."""
    sdk = logging.getLogger(SDK_LOGGER)
    if not any(isinstance(handler, _ToOurLog) for handler in sdk.handlers):
        sdk.addHandler(_ToOurLog())
        sdk.propagate = False


def make_provider(
    spec: ServerSpec,
    storage: FileTokenStorage,
    redirect_uri: str,
    redirect_handler: Callable[[str], Any],
    callback_handler: Callable[[], Any],
) -> Any:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    keep_sdk_log()
    assert spec.oauth is not None
    scopes = " ".join(spec.oauth.scopes) or None
    secret = spec.oauth.client_secret

    class Provider(OAuthClientProvider):
        """The SDK's provider, plus what it leaves out: the saved token's expiry is restored
        (so a restart refreshes an expired token instead of asking for sign-in), a token
        counts as expired a little early (``early_expiry``: a request must not reach the server
        with a token that expires on the way, as a 401 would mean sign-in), and configured
        scopes win over the ones the server advertises."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            context = self.context

            def update_token_expiry(token: Any) -> None:
                expires_in = token.expires_in
                at = time.time() + int(expires_in) if expires_in is not None else None
                context.token_expiry_time = early_expiry(at, expires_in)

            context.update_token_expiry = update_token_expiry  # type: ignore[method-assign]

        async def _initialize(self) -> None:
            await super()._initialize()
            tokens = self.context.current_tokens
            if tokens is not None:
                self.context.token_expiry_time = early_expiry(storage.expires_at, tokens.expires_in)

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
                info.token_endpoint_auth_method = secret_method(self.context.oauth_metadata)

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


def secret_method(metadata: Any) -> str:
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


def early_expiry(expires_at: float | None, expires_in: int | None) -> float | None:
    """``expires_at`` moved earlier by a tenth of the token's lifetime, at most 30 s."""
    if expires_at is None:
        return None
    return expires_at - min(30.0, (expires_in or 0) * 0.1)


__all__ = [
    "CALLBACK_PATH",
    "HOST",
    "early_expiry",
    "keep_sdk_log",
    "make_provider",
    "secret_method",
    "storage_for",
]
