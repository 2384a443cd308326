"""An MCP server whose authorization server takes only the grants that need no browser, and a
company identity provider beside it, for tests of ``core.mcp.auth.grants``.

    python grant_server.py --port PORT --public-key PEM [--token-seconds N] [--basic-only]
                           [--dpop] [--dpop-nonce]

Everything on 127.0.0.1:PORT: the MCP endpoint ``/mcp`` (protected; protected resource
metadata names the root as the authorization server), the authorization server's metadata and
``/token``, the identity provider's ``/idp/token`` (RFC 8693 token exchange). ``/token`` takes:

- ``client_credentials`` from ``svc`` with secret ``s3cret`` (HTTP Basic, or in the body
  unless ``--basic-only``), or with a ``private_key_jwt`` assertion signed by the key whose
  public half is ``--public-key`` (``iss`` = ``sub`` = ``svc-jwt``, ``aud`` = the issuer);
- the JWT bearer grant from ``workload`` with a workload JWT (HS256, key ``WORKLOAD_KEY``,
  ``aud`` = the issuer), or from ``ema`` (HTTP Basic, secret ``ema-secret``) with an ID-JAG
  that ``/idp/token`` issued (``typ`` ``oauth-id-jag+jwt``, ``resource`` = the MCP URL).

``/idp/token`` exchanges an ID token (HS256, key ``IDP_KEY``, ``aud`` ``corp-app``) for
an ID-JAG. Refusals are OAuth errors (``invalid_client``, ``invalid_grant``). Access tokens live
``--token-seconds``. ``GET /stats`` tells the grants issued (``issued``: grant/method), the
refusals, and every request body the token endpoints received (``bodies``). ``--dpop``: a
token request must carry a DPoP proof, its token is bound to the proof's key (``DPoP``), and
``/mcp`` takes it only with the ``DPoP`` scheme and a fresh proof (``dpop_gate``; its counts
in ``stats["dpop"]``); ``--dpop-nonce``: both ask for a nonce first.

Tools: ``whoami`` (the client id of the token used), ``add``.
"""

import argparse
import base64
import json
import secrets
import time
from typing import Any
from urllib.parse import unquote

import jwt
import uvicorn
from dpop_gate import NONCE, Dpop, Gate
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG_KEY = "id-jag-key-for-the-tests-0123456789"
WORKLOAD_KEY = "workload-key-for-the-tests-0123456789"
IDP_KEY = "idp-key-for-the-tests-0123456789abcdef"


class Tokens:
    def __init__(self, seconds: int) -> None:
        self.seconds = seconds
        self.access: dict[str, AccessToken] = {}

    async def verify_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    def issue(self, client_id: str) -> dict[str, Any]:
        token = secrets.token_urlsafe(24)
        expires = int(time.time()) + self.seconds
        self.access[token] = AccessToken(
            token=token, client_id=client_id, scopes=["mcp"], expires_at=expires
        )
        return {"access_token": token, "token_type": "Bearer", "expires_in": self.seconds,
                "scope": "mcp"}  # fmt: skip


def refuse(stats: dict[str, Any], error: str, why: str, status: int = 400) -> Response:
    stats["refused"].append(f"{error}: {why}")
    return JSONResponse({"error": error, "error_description": why}, status_code=status)


def basic(request: Request) -> tuple[str, str] | None:
    header = request.headers.get("authorization", "")
    if not header.startswith("Basic "):
        return None
    user, _, password = base64.b64decode(header[6:]).decode().partition(":")
    return unquote(user), unquote(password)


def build(
    port: int, public_key: str, seconds: int, basic_only: bool, dpop: Dpop | None
) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    tokens = Tokens(seconds)
    stats: dict[str, Any] = {"issued": [], "refused": [], "bodies": [], "exchanges": 0}
    if dpop is not None:
        stats["dpop"] = dpop.stats
    server = MCPServer(
        "grant-fixture",
        token_verifier=tokens,
        auth=AuthSettings(
            issuer_url=base, resource_server_url=f"{base}/mcp", required_scopes=["mcp"]
        ),
    )
    methods = ["client_secret_basic", "private_key_jwt", "none"]
    if not basic_only:
        methods.append("client_secret_post")

    @server.custom_route("/.well-known/oauth-authorization-server", methods=["GET"])
    async def metadata(request: Request) -> Response:
        return JSONResponse({
            "issuer": base, "token_endpoint": f"{base}/token",
            "authorization_endpoint": f"{base}/authorize", "response_types_supported": ["code"],
            "grant_types_supported": ["client_credentials", JWT_BEARER],
            "token_endpoint_auth_methods_supported": methods,
        })  # fmt: skip

    @server.custom_route("/token", methods=["POST"])
    async def token(request: Request) -> Response:
        form = {k: str(v) for k, v in (await request.form()).items()}
        stats["bodies"].append(form)
        if dpop is None:
            return await grant_token(request, form)
        why = dpop.check(request.headers.get("dpop"), "POST", f"{base}/token", None)
        if why == "use_dpop_nonce":
            body = {"error": "use_dpop_nonce", "error_description": "a nonce, please"}
            return JSONResponse(body, status_code=400, headers={"DPoP-Nonce": NONCE})
        if why is not None:
            return refuse(stats, "invalid_dpop_proof", why)
        dpop.stats["token_proofs"] += 1
        answer = await grant_token(request, form)
        issued = json.loads(bytes(answer.body))
        if answer.status_code == 200:
            issued["token_type"] = "DPoP"
            dpop.bound[issued["access_token"]] = dpop.last_jkt
        return JSONResponse(issued, status_code=answer.status_code)

    async def grant_token(request: Request, form: dict[str, str]) -> Response:
        grant, pair = form.get("grant_type"), basic(request)
        if grant == "client_credentials":
            if form.get("client_assertion"):
                try:
                    claims = jwt.decode(form["client_assertion"], public_key,
                                        algorithms=["ES256", "RS256"], audience=base)  # fmt: skip
                except jwt.PyJWTError as exc:
                    return refuse(stats, "invalid_client", f"bad client assertion: {exc}", 401)
                if claims.get("iss") != "svc-jwt" or claims.get("sub") != "svc-jwt":
                    return refuse(stats, "invalid_client", "unknown client", 401)
                stats["issued"].append("client_credentials/private_key_jwt")
                return JSONResponse(tokens.issue("svc-jwt"))
            how = "basic" if pair else "post"
            if pair is None and not basic_only:
                pair = (form.get("client_id", ""), form.get("client_secret", ""))
            if pair != ("svc", "s3cret"):
                return refuse(stats, "invalid_client", "Invalid client credentials", 401)
            stats["issued"].append(f"client_credentials/{how}")
            return JSONResponse(tokens.issue("svc"))
        if grant == JWT_BEARER:
            assertion = form.get("assertion", "")
            try:
                header = jwt.get_unverified_header(assertion)
            except jwt.PyJWTError:
                return refuse(stats, "invalid_grant", "the assertion is not a JWT")
            if header.get("typ") == "oauth-id-jag+jwt":
                if pair != ("ema", "ema-secret"):
                    return refuse(stats, "invalid_client", "Invalid client credentials", 401)
                try:
                    claims = jwt.decode(assertion, ID_JAG_KEY, algorithms=["HS256"], audience=base)
                except jwt.PyJWTError as exc:
                    return refuse(stats, "invalid_grant", f"bad ID-JAG: {exc}")
                if claims.get("resource") != f"{base}/mcp":
                    return refuse(stats, "invalid_grant", "ID-JAG for another resource")
                stats["issued"].append("jwt_bearer/id-jag")
                return JSONResponse(tokens.issue(str(claims["sub"])))
            if form.get("client_id") != "workload":
                return refuse(stats, "invalid_client", "unknown client", 401)
            try:
                jwt.decode(
                    assertion,
                    WORKLOAD_KEY,
                    algorithms=["HS256"],
                    audience=base,
                )
            except jwt.ExpiredSignatureError:
                return refuse(stats, "invalid_grant", "JWT assertion is expired")
            except jwt.PyJWTError as exc:
                return refuse(stats, "invalid_grant", f"bad assertion: {exc}")
            stats["issued"].append("jwt_bearer/workload")
            return JSONResponse(tokens.issue("workload"))
        return refuse(stats, "unsupported_grant_type", f"not {grant}")

    @server.custom_route("/idp/token", methods=["POST"])
    async def idp_token(request: Request) -> Response:
        form = {k: str(v) for k, v in (await request.form()).items()}
        stats["bodies"].append(form)
        stats["exchanges"] += 1
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange":
            return refuse(stats, "unsupported_grant_type", "token exchange only")
        try:
            claims = jwt.decode(form.get("subject_token", ""), IDP_KEY, algorithms=["HS256"],
                                audience="corp-app")  # fmt: skip
        except jwt.PyJWTError as exc:
            return refuse(stats, "invalid_grant", f"bad ID token: {exc}")
        grant = jwt.encode(
            {"iss": f"{base}/idp", "sub": claims["sub"], "aud": form.get("audience"),
             "resource": form.get("resource"), "client_id": "ema",
             "exp": int(time.time()) + 300},
            ID_JAG_KEY, algorithm="HS256", headers={"typ": "oauth-id-jag+jwt"},
        )  # fmt: skip
        return JSONResponse({
            "access_token": grant, "token_type": "N_A",
            "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
        })  # fmt: skip

    @server.tool()
    def whoami() -> str:
        """The client id of the access token this call came with."""
        found = get_access_token()
        return found.client_id if found is not None else "anonymous"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.custom_route("/stats", methods=["GET"])
    async def show(request: Request) -> Response:
        return JSONResponse(stats)

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--token-seconds", type=int, default=3600)
    parser.add_argument("--basic-only", action="store_true")
    parser.add_argument("--dpop", action="store_true")
    parser.add_argument("--dpop-nonce", action="store_true")
    args = parser.parse_args()
    with open(args.public_key, encoding="ascii") as handle:
        public_key = handle.read()
    dpop = Dpop(args.dpop_nonce) if args.dpop or args.dpop_nonce else None
    server = build(args.port, public_key, args.token_seconds, args.basic_only, dpop)
    app: Any = server.streamable_http_app()
    if dpop is not None:
        app = Gate(app, dpop, f"http://127.0.0.1:{args.port}/mcp")
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
