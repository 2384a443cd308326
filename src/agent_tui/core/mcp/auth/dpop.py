"""DPoP (RFC 9449, SEP-1932): tokens bound to a key of agent-tui's, proven on every request.

With ``"dpop": true`` in a server's ``oauth`` entry, ``with_dpop`` wraps the SDK provider of
the connection (or of ``login``), which knows no DPoP (mcp 2.3.0: its token model takes only
``Bearer``), and adds what RFC 9449 asks of a client:

- a P-256 key per server, made once and kept in the server's token file (mode 0600) with
  the tokens bound to it (``FileTokenStorage.dpop_key``);
- a proof (a JWT signed with that key: ``typ`` ``dpop+jwt``, the public key as ``jwk``, a
  fresh ``jti``, ``htm``, ``htu`` without query or fragment, ``iat``) on each token request,
  and on each request to the MCP server, with ``ath`` (the access token's hash);
- a token the authorization server issued as ``DPoP`` is sent with the ``DPoP`` scheme (the
  body's ``token_type`` is shown to the SDK as ``Bearer``, and the binding remembered); one it
  issued as ``Bearer`` (it ignored the proof) stays ``Bearer``;
- a server nonce: an answer ``use_dpop_nonce`` with a ``DPoP-Nonce`` header (400 from the
  token endpoint, 401 from the MCP server) is retried once with the nonce in a new proof, and
  the latest nonce of each origin goes into later proofs.

The proofs carry the token's hash, never the token; nothing here logs either.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import time
import uuid
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agent_tui.core.mcp.auth.token_store import FileTokenStorage
from agent_tui.core.mcp.config.spec import ServerSpec

ALGORITHM = "ES256"


class ProofKey:
    """The key of one server's proofs (``private``: a ``cryptography`` EC key)."""

    def __init__(self, private: Any) -> None:
        from jwt.algorithms import ECAlgorithm

        self.private = private
        public = ECAlgorithm.to_jwk(private.public_key(), as_dict=True)
        self.jwk = {k: public[k] for k in ("kty", "crv", "x", "y")}

    @classmethod
    def of(cls, storage: FileTokenStorage) -> ProofKey:
        """The server's key: the saved one, else a new one, saved."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        saved = storage.dpop_key
        if saved is not None:
            try:
                key = serialization.load_pem_private_key(saved.encode("ascii"), password=None)
            except (ValueError, TypeError, UnicodeEncodeError):
                key = None
            if isinstance(key, ec.EllipticCurvePrivateKey):
                return cls(key)
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        if storage.dpop_bound:
            storage.forget_tokens()  # tokens bound to a lost key are of no use
        storage.set_dpop_key(pem.decode("ascii"))
        return cls(key)

    def proof(self, method: str, url: str, *, nonce: str | None, token: str | None) -> str:
        import jwt

        parts = urlsplit(url)
        claims: dict[str, Any] = {
            "jti": str(uuid.uuid4()),
            "htm": method,
            "htu": f"{parts.scheme}://{parts.netloc}{parts.path}",
            "iat": int(time.time()),
        }
        if nonce is not None:
            claims["nonce"] = nonce
        if token is not None:
            digest = hashlib.sha256(token.encode("ascii")).digest()
            claims["ath"] = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
        headers = {"typ": "dpop+jwt", "jwk": self.jwk}
        return jwt.encode(claims, self.private, algorithm=ALGORITHM, headers=headers)


def with_dpop(inner: Any, spec: ServerSpec, storage: FileTokenStorage) -> Any:
    """``inner`` (an SDK provider) with DPoP when ``spec``'s entry asks for it (``inner``
    itself otherwise): its token requests and requests carry proofs."""
    if spec.oauth is None or not spec.oauth.dpop:
        return inner
    return _dpop_class()(inner, storage)


def is_token_request(request: Any) -> bool:
    """A POST of a form with a ``grant_type``: a token request, whatever its endpoint."""
    if request.method != "POST":
        return False
    if "application/x-www-form-urlencoded" not in request.headers.get("content-type", ""):
        return False
    import httpx2

    try:
        form = parse_qs(request.content.decode("ascii"))
    except (httpx2.RequestNotRead, UnicodeDecodeError):
        return False
    return "grant_type" in form


def _origin(url: Any) -> str:
    parts = urlsplit(str(url))
    return f"{parts.scheme}://{parts.netloc}"


def _nonce_challenge(response: Any, token_request: bool) -> bool:
    """An answer asking for a proof with the server's nonce (RFC 9449 §8, §9); the body of a
    token request's answer has been read."""
    if not response.headers.get("dpop-nonce"):
        return False
    if response.status_code == 401:
        return "use_dpop_nonce" in response.headers.get("www-authenticate", "")
    if response.status_code == 400 and token_request:
        try:
            return bool(json.loads(response.content).get("error") == "use_dpop_nonce")
        except (ValueError, AttributeError):
            return False
    return False


@functools.cache
def _dpop_class() -> type[Any]:
    import httpx2

    class Dpop(httpx2.Auth):
        requires_response_body = True

        def __init__(self, inner: Any, storage: FileTokenStorage) -> None:
            self.inner = inner
            self.storage = storage
            self.key = ProofKey.of(storage)
            self.nonces: dict[str, str] = {}
            self.token_bound = storage.dpop_bound  # kept here: no file read per request

        def prove(self, request: Any) -> Any:
            """``request`` with a fresh proof (a token request, or one with a bound token)."""
            nonce = self.nonces.get(_origin(request.url))
            if is_token_request(request):
                request.headers["DPoP"] = self.key.proof(
                    request.method, str(request.url), nonce=nonce, token=None
                )
                return request
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() in ("bearer", "dpop") and token and self.token_bound:
                request.headers["Authorization"] = f"DPoP {token}"
                request.headers["DPoP"] = self.key.proof(
                    request.method, str(request.url), nonce=nonce, token=token
                )
            return request

        async def note(self, response: Any, token_request: bool) -> None:
            """Read a token request's answer (the SDK reads only what it takes), and keep
            the nonce a server sent for its origin's later proofs."""
            if token_request:
                await response.aread()
            nonce = response.headers.get("dpop-nonce")
            if nonce:
                self.nonces[_origin(response.request.url)] = nonce

        def bound(self, request: Any, response: Any) -> Any:
            """A token response as the SDK takes it (``token_type`` ``Bearer``); the binding
            is remembered."""
            if response.status_code != 200 or not is_token_request(request):
                return response
            try:
                body = json.loads(response.content)
            except ValueError:
                return response
            if not isinstance(body, dict) or not isinstance(body.get("token_type"), str):
                return response
            dpop = body["token_type"].lower() == "dpop"
            self.token_bound = dpop
            self.storage.set_dpop_bound(dpop)
            if not dpop:
                return response
            body["token_type"] = "Bearer"
            headers = [
                (k, v)
                for k, v in response.headers.items()
                if k.lower() not in ("content-length", "content-encoding", "transfer-encoding")
            ]
            return httpx2.Response(
                response.status_code,
                headers=headers,
                content=json.dumps(body).encode("utf-8"),
                request=response.request,
            )

        async def async_auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
            flow = self.inner.async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    token_request = is_token_request(outgoing)
                    response = yield self.prove(outgoing)
                    await self.note(response, token_request)
                    if _nonce_challenge(response, token_request):
                        response = yield self.prove(outgoing)
                        await self.note(response, token_request)
                    outgoing = await flow.asend(self.bound(outgoing, response))
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

    return Dpop


__all__ = ["ALGORITHM", "ProofKey", "is_token_request", "with_dpop"]
