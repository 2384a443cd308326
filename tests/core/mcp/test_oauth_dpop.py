"""DPoP (``core.mcp.auth.dpop``): tokens bound to agent-tui's key, a fresh proof on every
request, the servers' nonces; against a real token endpoint and MCP server on 127.0.0.1 that
check proofs as RFC 9449 says (``tests/mcp_servers/dpop_gate.py``)."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest

from agent_tui.core.mcp.auth.dpop import ProofKey
from agent_tui.core.mcp.auth.token_store import FileTokenStorage
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.config.load import user_config_path
from tests.core.mcp.conftest import of_type, run_calls, write_config
from tests.core.mcp.grant_env import grant_server, grant_stats, key_pair


@pytest.fixture(scope="module")
def public_key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return key_pair(tmp_path_factory.mktemp("keys"))[1]


@pytest.fixture
def dpop_server(public_key: Path) -> Iterator[str]:
    with grant_server(public_key, "--dpop") as base:
        yield base


def _config(base: str, **oauth_entry: Any) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"grant": "client_credentials", "client_id": "svc", "client_secret": "s3cret"}
    server = {"type": "http", "url": f"{base}/mcp", "oauth": {**entry, **oauth_entry}}
    write_config(path, {"secure": server})


async def _connects_and_calls(workspace: Path) -> None:
    manager = McpManager(workspace)
    await manager.start()
    await manager.wait_ready()
    try:
        state = manager.state("secure")
        assert state.status == "connected", state.reason
        calls = [("mcp__secure__whoami", {}), ("mcp__secure__add", {"a": 2, "b": 3})]
        events, _ = await run_calls(manager.registry, workspace, calls)
        results = of_type(events, "tool_result")
        assert [str(r.content) for r in results] == ["svc", "5"], events
    finally:
        await manager.aclose()


def _dpop(base: str) -> dict[str, Any]:
    result: dict[str, Any] = grant_stats(base)["dpop"]
    return result


async def test_a_dpop_bound_token_is_sent_with_a_fresh_proof_each_time(
    workspace: Path, dpop_server: str
) -> None:
    _config(dpop_server, dpop=True)
    await _connects_and_calls(workspace)
    seen = _dpop(dpop_server)
    assert seen["token_proofs"] == 1
    assert seen["requests"] >= 4  # initialize, initialized, tools/list, two calls...
    assert seen["bad"] == []
    assert seen["replays"] == 0
    assert seen["bearer_for_bound"] == 0
    storage = FileTokenStorage("secure", f"{dpop_server}/mcp")
    assert storage.dpop_bound
    assert storage.dpop_key is not None
    assert storage.path.stat().st_mode & 0o777 == 0o600

    before = seen["requests"]
    await _connects_and_calls(workspace)  # a restart: the same key, the saved bound token
    again = _dpop(dpop_server)
    assert again["token_proofs"] == 1
    assert again["requests"] > before
    assert again["bad"] == []
    assert len(grant_stats(dpop_server)["issued"]) == 1


async def test_the_servers_nonces_are_asked_for_and_used(workspace: Path, public_key: Path) -> None:
    with grant_server(public_key, "--dpop-nonce") as base:
        _config(base, dpop=True)
        await _connects_and_calls(workspace)
        seen = _dpop(base)
        # one challenge at the token endpoint, one at the MCP server; every later proof
        # carries the nonce
        assert seen["nonce_challenges"] == 2
        assert seen["token_proofs"] == 1
        assert seen["requests"] >= 4
        assert seen["bad"] == []


async def test_without_dpop_the_same_server_refuses_the_client(
    workspace: Path, dpop_server: str
) -> None:
    _config(dpop_server)
    manager = McpManager(workspace)
    await manager.start()
    await manager.wait_ready()
    try:
        state = manager.state("secure")
        assert state.status == "failed"
        assert "invalid_dpop_proof" in state.reason
    finally:
        await manager.aclose()


async def test_an_authorization_server_that_ignores_the_proof_gets_bearer(
    workspace: Path, public_key: Path
) -> None:
    with grant_server(public_key) as base:  # no DPoP: it issues a Bearer token
        _config(base, dpop=True)
        await _connects_and_calls(workspace)
        storage = FileTokenStorage("secure", f"{base}/mcp")
        assert not storage.dpop_bound
        assert storage.signed_in


def test_a_proof_names_the_request_and_the_tokens_hash(tmp_path: Path) -> None:
    storage = FileTokenStorage("s", "https://mcp.example.com/mcp", directory=tmp_path)
    key = ProofKey.of(storage)
    proof = key.proof("POST", "https://mcp.example.com/mcp?x=1#f", nonce="n1", token="tok")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt"
    assert header["alg"] == "ES256"
    assert set(header["jwk"]) == {"kty", "crv", "x", "y"}  # the public key only
    claims = jwt.decode(proof, jwt.PyJWK(header["jwk"], algorithm="ES256").key, ["ES256"])
    assert claims["htm"] == "POST"
    assert claims["htu"] == "https://mcp.example.com/mcp"  # no query, no fragment
    assert claims["nonce"] == "n1"
    expected = base64.urlsafe_b64encode(hashlib.sha256(b"tok").digest()).rstrip(b"=").decode()
    assert claims["ath"] == expected
    assert "tok" not in json.dumps(claims).replace(expected, "")
    second = key.proof("POST", "https://mcp.example.com/mcp", nonce=None, token=None)
    assert jwt.decode(second, options={"verify_signature": False})["jti"] != claims["jti"]
    assert ProofKey.of(storage).jwk == key.jwk  # kept in the token file, reused
