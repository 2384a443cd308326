"""DPoP (RFC 9449) as a server checks it, for ``grant_server.py --dpop``: the proof of a token
request, and the ``DPoP`` scheme with a proof on every request to ``/mcp`` (an ASGI gate in
front of the MCP app, which then sees the token as ``Bearer``). With a nonce required, a
proof without the server's nonce is answered ``use_dpop_nonce`` with a ``DPoP-Nonce``."""

import base64
import hashlib
import json
import time
from typing import Any

import jwt

NONCE = "token-endpoint-nonce-1"
RESOURCE_NONCE = "mcp-server-nonce-1"
"""The nonces of the token endpoint and of ``/mcp`` (same origin here; servers of their own
elsewhere): each asks for its own."""


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638's SHA-256 thumbprint of an EC public key."""
    members = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"),
                         sort_keys=True)  # fmt: skip
    digest = hashlib.sha256(members.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class Dpop:
    """What the server saw (``stats``), and the tokens bound to a key (``bound``)."""

    def __init__(self, require_nonce: bool) -> None:
        self.require_nonce = require_nonce
        self.bound: dict[str, str] = {}
        self.jtis: set[str] = set()
        self.stats: dict[str, Any] = {
            "token_proofs": 0, "requests": 0, "bearer_for_bound": 0, "bad": [],
            "nonce_challenges": 0, "replays": 0,
        }  # fmt: skip

    def check(
        self, proof: str | None, method: str, url: str, token: str | None, nonce: str = NONCE
    ) -> str | None:
        """None when ``proof`` is a valid proof for this request, else why not;
        ``"use_dpop_nonce"`` when only the nonce is missing."""
        if not proof:
            return "no DPoP proof"
        try:
            header = jwt.get_unverified_header(proof)
            jwk = header["jwk"]
            key = jwt.PyJWK(jwk, algorithm="ES256").key
            claims = jwt.decode(proof, key, algorithms=["ES256"])
        except (jwt.PyJWTError, KeyError, TypeError) as exc:
            return f"bad proof: {exc}"
        if header.get("typ") != "dpop+jwt" or "d" in jwk:
            return "bad proof header"
        if claims.get("htm") != method or claims.get("htu") != url:
            return f"proof for {claims.get('htm')} {claims.get('htu')}, not {method} {url}"
        if abs(time.time() - int(claims.get("iat", 0))) > 60:
            return "stale proof"
        jti = str(claims.get("jti"))
        if jti in self.jtis:
            self.stats["replays"] += 1
            return "replayed proof"
        self.jtis.add(jti)
        if token is not None:
            digest = hashlib.sha256(token.encode()).digest()
            ath = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
            if claims.get("ath") != ath or self.bound.get(token) != thumbprint(jwk):
                return "proof not for this token or key"
        if self.require_nonce and claims.get("nonce") != nonce:
            self.stats["nonce_challenges"] += 1
            return "use_dpop_nonce"
        self.last_jkt = thumbprint(jwk)
        return None


class Gate:
    """ASGI: ``/mcp`` requests with ``DPoP`` tokens are checked, then passed on as ``Bearer``."""

    def __init__(self, app: Any, dpop: Dpop, url: str) -> None:
        self.app, self.dpop, self.url = app, dpop, url

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/mcp"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token in self.dpop.bound:
            self.dpop.stats["bearer_for_bound"] += 1
            await _refuse(send, 'DPoP error="invalid_token"', None)
            return
        if scheme.lower() == "dpop":
            proof = headers.get("dpop")
            why = self.dpop.check(proof, scope["method"], self.url, token, RESOURCE_NONCE)
            if why == "use_dpop_nonce":
                await _refuse(send, 'DPoP error="use_dpop_nonce"', RESOURCE_NONCE)
                return
            if why is not None:
                self.dpop.stats["bad"].append(why)
                await _refuse(send, 'DPoP error="invalid_dpop_proof"', None)
                return
            self.dpop.stats["requests"] += 1
            rest = [(k, v) for k, v in scope["headers"] if k.lower() != b"authorization"]
            scope = {**scope, "headers": [*rest, (b"authorization", f"Bearer {token}".encode())]}
        await self.app(scope, receive, send)


async def _refuse(send: Any, challenge: str, nonce: str | None) -> None:
    headers = [(b"www-authenticate", challenge.encode()), (b"content-type", b"application/json")]
    if nonce is not None:
        headers.append((b"dpop-nonce", nonce.encode()))
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": b'{"error": "invalid_token"}'})
