"""The browserless-grant test server (``tests/mcp_servers/grant_server.py``) on 127.0.0.1, its
client key pair, and the JWTs its tests present (a workload's, a user's ID token)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.core.mcp.conftest import ROOT
from tests.core.mcp.preforked import preforked
from tests.core.mcp.servers import free_port, listening

GRANT_SERVER = ROOT / "tests" / "mcp_servers" / "grant_server.py"


def key_pair(directory: Path) -> tuple[Path, Path]:
    """(a P-256 private key file, mode 0600; its public key file)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = directory / "client-key.pem"
    private.touch(mode=0o600)
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    public = directory / "client-key.pub"
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return private, public


@contextlib.contextmanager
def grant_server(public_key: Path, *args: str, deadline: float = 60.0) -> Iterator[str]:
    """Start the server (``--token-seconds N``, ``--basic-only``); yields its base URL."""
    port = free_port()
    argv = preforked(GRANT_SERVER, "--port", str(port), "--public-key", str(public_key), *args)
    with listening(argv, port, "the grant test server", deadline):
        yield f"http://127.0.0.1:{port}"


def grant_stats(base: str) -> dict[str, Any]:
    result: dict[str, Any] = httpx2.get(f"{base}/stats", timeout=10).json()
    return result


def workload_jwt(base: str, *, expired: bool = False) -> str:
    """A platform's workload identity token for the server's authorization server."""
    now = int(time.time())
    exp = now - 60 if expired else now + 600
    claims = {"iss": "https://platform.example", "sub": "job-7", "aud": base, "exp": exp}
    return jwt.encode(claims, "workload-key-for-the-tests-0123456789", algorithm="HS256")


def id_token(subject: str = "ada@corp.example") -> str:
    """The user's ID token from the company's identity provider."""
    claims = {"iss": "https://idp.corp.example", "sub": subject, "aud": "corp-app",
              "exp": int(time.time()) + 600}  # fmt: skip
    return jwt.encode(claims, "idp-key-for-the-tests-0123456789abcdef", algorithm="HS256")
