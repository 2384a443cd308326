"""The grants that need no browser: the connection obtains its token itself.

``grant_provider`` gives the ``httpx2.Auth`` of a server whose ``oauth`` entry names one of
``config.oauth_entry.BROWSERLESS``; the SDK's providers do the protocol (discovery on a 401,
the token request, the retry), agent-tui gives them the configuration and the files:

- ``client_credentials`` with ``client_secret``: the SDK's ``ClientCredentialsOAuthProvider``
  (the secret sent as the authorization server's metadata asks: HTTP Basic or in the body);
  with ``private_key_file``: its ``PrivateKeyJWTOAuthProvider``, with a JWT signed by the key
  (``iss`` = ``sub`` = the client_id, ``aud`` = the authorization server's issuer);
- ``jwt_bearer``: ``JwtBearerProvider`` (here: the SDK has none for a workload's own JWT),
  RFC 7523's grant with the JWT of ``assertion_file`` as the assertion;
- ``enterprise_managed``: the SDK's ``IdentityAssertionOAuthProvider`` against the configured
  ``issuer``, with the ID-JAG that ``assertions.exchange_id_token`` gets from the identity
  provider for the ID token of ``id_token_file``.

Each saves its tokens in the server's ``FileTokenStorage`` (a restart reuses a token that is
still valid) and asks the configured scopes. ``recorded`` wraps one so that why a grant failed
reaches the connection's ``AuthWatch`` (``grant_failure``: the authorization server's OAuth
error, and which key to check); never a secret or a token.
"""

from __future__ import annotations

import functools
import json
import re
import warnings
from collections.abc import AsyncGenerator, Callable
from typing import Any, Literal

from agent_tui.core.mcp.auth.assertions import (
    GrantError,
    exchange_id_token,
    oauth_error,
    read_jwt_file,
    signing_key,
)
from agent_tui.core.mcp.auth.provider import early_expiry, keep_sdk_log, secret_method
from agent_tui.core.mcp.auth.token_store import FileTokenStorage
from agent_tui.core.mcp.config.spec import ServerSpec

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_HINTS = {
    "client_credentials": "check oauth.client_id and oauth.client_secret (or private_key_file)",
    "jwt_bearer": "check oauth.assertion_file (the platform's token may have expired) and "
    "oauth.client_id",
    "enterprise_managed": "check oauth.client_id and oauth.client_secret, or sign in to the "
    "identity provider again for a fresh ID token",
}
_TOKEN_FAILED = re.compile(r"\((\d{3})\)[^:]*:\s*(.*)$", re.DOTALL)


def describe_grant(spec: ServerSpec) -> str:
    """``the client_credentials grant (private_key_jwt)``: what ``login`` says it used."""
    assert spec.oauth is not None
    oauth = spec.oauth
    how = ""
    if oauth.grant == "client_credentials":
        how = " (private_key_jwt)" if oauth.private_key_file else " (client secret)"
    elif oauth.grant == "enterprise_managed":
        how = " (ID token exchanged at the identity provider)"
    return f"the {oauth.grant} grant{how}"


def grant_failure(spec: ServerSpec, exc: BaseException) -> str | None:
    """Why a browserless grant failed, for people (None: ``exc`` is not a grant's failure)."""
    from mcp.client.auth import OAuthFlowError, OAuthTokenError

    assert spec.oauth is not None
    grant = spec.oauth.grant
    if isinstance(exc, GrantError):
        return str(exc)
    if isinstance(exc, OAuthTokenError):
        match = _TOKEN_FAILED.search(str(exc))
        if match is not None:
            try:
                body = json.loads(match.group(2))
            except ValueError:
                body = {}
            said = oauth_error(body if isinstance(body, dict) else {})
            return (
                f"the authorization server refused the {grant} grant for {spec.name} "
                f"(HTTP {match.group(1)}{said}): {_HINTS[grant]}"
            )
    if isinstance(exc, OAuthFlowError):
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        return f"the {grant} grant for {spec.name} failed: {text}"
    return None


def recorded(inner: Any, spec: ServerSpec, on_failure: Callable[[str], None]) -> Any:
    """An ``httpx2.Auth`` around a grant's provider: a failure of the grant goes to
    ``on_failure`` (in words, ``grant_failure``) before it ends the request."""
    return _recorded_class()(inner, spec, on_failure)


@functools.cache
def _recorded_class() -> type[Any]:
    import httpx2

    class Recorded(httpx2.Auth):
        requires_response_body = True

        def __init__(self, inner: Any, spec: ServerSpec, on_failure: Callable[[str], None]) -> None:
            self.inner = inner
            self.spec = spec
            self.on_failure = on_failure

        async def async_auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
            flow = self.inner.async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            except Exception as exc:
                why = grant_failure(self.spec, exc)
                if why is not None:
                    self.on_failure(why)
                raise
            finally:
                await flow.aclose()

    return Recorded


def grant_provider(spec: ServerSpec, storage: FileTokenStorage) -> Any:
    """The SDK provider (an ``httpx2.Auth``) of ``spec``'s browserless grant."""
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    keep_sdk_log()
    oauth = spec.oauth
    assert oauth is not None
    assert oauth.browserless
    scope = " ".join(oauth.scopes) or None
    if oauth.grant == "enterprise_managed":
        assert oauth.client_id
        assert oauth.client_secret
        assert oauth.issuer

        async def id_jag(audience: str, resource: str) -> str:
            assert oauth.id_token_file
            assert oauth.idp_token_endpoint
            id_token = read_jwt_file(oauth.id_token_file, "id_token_file", spec.name)
            return await exchange_id_token(
                server=spec.name,
                endpoint=oauth.idp_token_endpoint,
                id_token=id_token,
                audience=audience,
                resource=resource,
                scope=scope,
                client_id=oauth.idp_client_id,
                client_secret=oauth.idp_client_secret,
            )

        return IdentityAssertionOAuthProvider(
            spec.url,
            storage,
            client_id=oauth.client_id,
            client_secret=oauth.client_secret,
            issuer=oauth.issuer,
            assertion_provider=id_jag,
            scope=scope,
            token_endpoint_auth_method="client_secret_basic",
        )
    assert oauth.client_id is not None
    with warnings.catch_warnings():  # no issuer: the user chose to follow the server's choice
        warnings.simplefilter("ignore")
        if oauth.grant == "jwt_bearer":
            return _jwt_bearer(spec, storage, scope)
        if oauth.client_secret is not None:
            return _saved(ClientCredentialsOAuthProvider, storage, scope)(
                spec.url,
                storage,
                client_id=oauth.client_id,
                client_secret=oauth.client_secret,
                scope=scope,
                issuer=oauth.issuer,
            )
        assert oauth.private_key_file is not None
        key_file, algorithm = oauth.private_key_file, oauth.signing_algorithm
        client_id = oauth.client_id

        async def signed(audience: str) -> str:
            pem, alg = signing_key(key_file, algorithm, spec.name)
            parameters = SignedJWTParameters(
                issuer=client_id, subject=client_id, signing_key=pem, signing_algorithm=alg
            )
            return await parameters.create_assertion_provider()(audience)

        return _saved(PrivateKeyJWTOAuthProvider, storage, scope)(
            spec.url,
            storage,
            client_id=oauth.client_id,
            assertion_provider=signed,
            scope=scope,
            issuer=oauth.issuer,
        )


def _saved(base: type[Any], storage: FileTokenStorage, scope: str | None) -> type[Any]:
    """``base`` (an SDK provider) that restores the saved token's expiry (taken a little early,
    as the browser sign-in's), asks the configured scopes over the ones the server advertises,
    and sends a client secret the way the authorization server takes it."""

    class Saved(base):  # type: ignore[misc]
        async def _initialize(self) -> None:
            await super()._initialize()
            tokens = self.context.current_tokens
            if tokens is not None:
                self.context.token_expiry_time = early_expiry(storage.expires_at, tokens.expires_in)

        def prepare(self) -> None:
            if scope:
                self.context.client_metadata.scope = scope
            info = self.context.client_info
            if info is not None and info.client_secret:
                info.token_endpoint_auth_method = secret_method(self.context.oauth_metadata)

        async def _perform_authorization(self) -> Any:
            self.prepare()
            return await super()._perform_authorization()

    return Saved


def _jwt_bearer(spec: ServerSpec, storage: FileTokenStorage, scope: str | None) -> Any:
    import httpx2
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

    oauth = spec.oauth
    assert oauth is not None
    assert oauth.assertion_file
    assert oauth.client_id
    assertion_file, issuer = oauth.assertion_file, oauth.issuer
    method: Literal["client_secret_basic", "none"] = (
        "client_secret_basic" if oauth.client_secret else "none"
    )
    client = OAuthClientInformationFull(
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        redirect_uris=None,
        grant_types=[JWT_BEARER],
        token_endpoint_auth_method=method,
        scope=scope,
    )

    class JwtBearerProvider(_saved(OAuthClientProvider, storage, scope)):  # type: ignore[misc]
        """RFC 7523 §2.1: the workload's JWT is the grant (no browser, no registration)."""

        async def _initialize(self) -> None:
            await super()._initialize()
            self.context.client_info = client

        async def _perform_authorization(self) -> Any:
            self.prepare()
            metadata = self.context.oauth_metadata
            if metadata is None:
                raise GrantError(
                    f"the authorization server of {spec.name} publishes no metadata: "
                    "its token endpoint is unknown"
                )
            if issuer is not None and str(metadata.issuer).rstrip("/") != issuer.rstrip("/"):
                raise GrantError(
                    f"{spec.name} sent agent-tui to the authorization server {metadata.issuer}, "
                    f"not oauth.issuer ({issuer}): the assertion was not sent"
                )
            data: dict[str, str] = {
                "grant_type": JWT_BEARER,
                "assertion": read_jwt_file(assertion_file, "assertion_file", spec.name),
            }
            headers = {"Content-Type": "application/x-www-form-urlencoded"}
            data, headers = self.context.prepare_token_auth(data, headers)
            if method == "none":
                data["client_id"] = client.client_id or ""
            if self.context.should_include_resource_param(self.context.protocol_version):
                data["resource"] = self.context.get_resource_url()
            if self.context.client_metadata.scope:
                data["scope"] = self.context.client_metadata.scope
            endpoint = str(metadata.token_endpoint)
            return httpx2.Request("POST", endpoint, data=data, headers=headers)

    metadata = OAuthClientMetadata(
        redirect_uris=None,
        grant_types=[JWT_BEARER],
        token_endpoint_auth_method=method,
        scope=scope,
    )
    return JwtBearerProvider(spec.url, metadata, storage, None, None)


__all__ = ["JWT_BEARER", "describe_grant", "grant_failure", "grant_provider", "recorded"]
