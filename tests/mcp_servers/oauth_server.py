"""An MCP server behind OAuth, for tests: the SDK's own authorization-server routes (metadata,
dynamic client registration, /authorize, /token) and its bearer-token check, with an in-memory
provider that approves every authorization at once (no login page).

    python oauth_server.py --port PORT [--token-seconds N] [--no-registration]

Everything on 127.0.0.1:PORT: the MCP endpoint ``/mcp`` (protected, with protected resource
metadata), the authorization server at the root. A pre-registered public client
``agent-tui-test`` (any loopback redirect port, RFC 8252 §7.3) and a confidential one
``agent-tui-secret`` (secret ``s3cret``) always exist. Access tokens live ``--token-seconds``
(default 3600). ``GET /stats`` (no auth) tells what happened: registrations, codes, tokens
issued by code and by refresh, and the client ids seen.

Tools: ``whoami`` (the client id of the token used), ``add``.
"""

import argparse
import secrets
import time
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl
from starlette.requests import Request
from starlette.responses import JSONResponse, Response


class LoopbackClient(OAuthClientInformationFull):
    """A client whose loopback redirect URI may use any port (RFC 8252 §7.3)."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        if redirect_uri is not None and redirect_uri.host == "127.0.0.1":
            if redirect_uri.path == "/callback":
                return redirect_uri
            raise InvalidRedirectUriError(f"unexpected redirect path {redirect_uri.path}")
        return super().validate_redirect_uri(redirect_uri)


class Provider:
    """In-memory ``OAuthAuthorizationServerProvider`` that approves at once."""

    def __init__(self, token_seconds: int) -> None:
        self.token_seconds = token_seconds
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.stats: dict[str, Any] = {
            "registered": 0,
            "codes": 0,
            "by_code": 0,
            "by_refresh": 0,
            "clients": [],
        }
        for client_id, secret in (("agent-tui-test", None), ("agent-tui-secret", "s3cret")):
            self.clients[client_id] = LoopbackClient(
                client_id=client_id,
                client_secret=secret,
                redirect_uris=[AnyUrl("http://127.0.0.1/callback")],
                token_endpoint_auth_method="client_secret_post" if secret else "none",
                scope="mcp",
            )

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.stats["registered"] += 1

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.stats["codes"] += 1
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        code = self.codes.get(authorization_code)
        return code if code is not None and code.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.stats["by_code"] += 1
        return self._issue(client, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        token = self.refresh.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self.stats["by_refresh"] += 1
        return self._issue(client, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(
        self, client: OAuthClientInformationFull, scopes: list[str], resource: str | None
    ) -> OAuthToken:
        assert client.client_id is not None
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires = int(time.time()) + self.token_seconds
        self.access[access] = AccessToken(
            token=access,
            client_id=client.client_id,
            scopes=scopes,
            expires_at=expires,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client.client_id, scopes=scopes, resource=resource
        )
        if client.client_id not in self.stats["clients"]:
            self.stats["clients"].append(client.client_id)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.token_seconds,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )


def build(port: int, token_seconds: int, registration: bool) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    provider = Provider(token_seconds)
    server = MCPServer(
        "oauth-fixture",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            validate_token_resource=False,
            required_scopes=["mcp"],
            client_registration_options=ClientRegistrationOptions(
                enabled=registration, valid_scopes=["mcp"], default_scopes=["mcp"]
            ),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """The client id of the access token this call came with."""
        token = get_access_token()
        return token.client_id if token is not None else "anonymous"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.custom_route("/stats", methods=["GET"])
    async def stats(request: Request) -> Response:
        return JSONResponse(provider.stats)

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token-seconds", type=int, default=3600)
    parser.add_argument("--no-registration", action="store_true")
    args = parser.parse_args()
    server = build(args.port, args.token_seconds, not args.no_registration)
    server.run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
