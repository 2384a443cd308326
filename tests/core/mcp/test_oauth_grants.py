"""The grants that need no browser (``core.mcp.auth.grants``), end to end: a real MCP server
behind a real token endpoint on 127.0.0.1 (``tests/mcp_servers/grant_server.py``), the
configuration as a user writes it, connections through ``McpManager``, ``mcp login``; and what
the user reads when a key file is missing, a file is not a JWT, or a grant is refused."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.cli.main import main
from agent_tui.core.mcp.auth import oauth
from agent_tui.core.mcp.auth.oauth import LoginError
from agent_tui.core.mcp.auth.token_store import FileTokenStorage
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.config.load import user_config_path
from tests.core.mcp.conftest import DEADLINE, of_type, run_calls, write_config
from tests.core.mcp.grant_env import grant_server, grant_stats, id_token, key_pair, workload_jwt


@pytest.fixture
def no_browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    opened: list[str] = []

    def refuse(url: str, *args: Any, **kwargs: Any) -> bool:
        opened.append(url)
        return False

    monkeypatch.setattr("webbrowser.open", refuse)
    return opened


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return key_pair(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="module")
def server(keys: tuple[Path, Path]) -> Iterator[str]:
    with grant_server(keys[1]) as base:
        yield base


def _config(base: str, **oauth_entry: Any) -> Path:
    """The server as ``secure`` in the user's file."""
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"type": "http", "url": f"{base}/mcp", "oauth": oauth_entry}
    return write_config(path, {"secure": entry})


def _file(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


async def _connected(workspace: Path) -> McpManager:
    manager = McpManager(workspace)
    await manager.start()
    await manager.wait_ready()
    return manager


async def _whoami(manager: McpManager, workspace: Path) -> str:
    events, _ = await run_calls(manager.registry, workspace, [("mcp__secure__whoami", {})])
    (result,) = of_type(events, "tool_result")
    assert not result.is_error, events
    return str(result.content)


async def _connects_as(workspace: Path, client: str) -> None:
    manager = await _connected(workspace)
    try:
        state = manager.state("secure")
        assert state.status == "connected", state.reason
        assert not state.auth_required
        assert await _whoami(manager, workspace) == client
    finally:
        await manager.aclose()


async def _failure(workspace: Path) -> Any:
    manager = await _connected(workspace)
    try:
        state = manager.state("secure")
        assert state.status == "failed"
        return state
    finally:
        await manager.aclose()


def _issued(base: str) -> list[str]:
    return list(grant_stats(base)["issued"])


# -- each grant, as the user writes it ------------------------------------------------------


async def test_client_credentials_with_a_secret_from_the_environment(
    workspace: Path,
    server: str,
    no_browser: list[str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("SVC_SECRET", "s3cret")
    _config(server, grant="client_credentials", client_id="svc", client_secret="${SVC_SECRET}")
    before = len(_issued(server))
    await _connects_as(workspace, "svc")
    # the metadata lists client_secret_post: the secret goes in the body, as it asks
    assert _issued(server)[before:] == ["client_credentials/post"]
    assert no_browser == []
    path = FileTokenStorage("secure", f"{server}/mcp").path
    assert json.loads(path.read_text())["tokens"]["access_token"]
    assert path.stat().st_mode & 0o777 == 0o600
    assert "s3cret" not in path.read_text()
    assert "s3cret" not in caplog.text

    await _connects_as(workspace, "svc")  # the saved token, still valid: no new grant
    assert _issued(server)[before:] == ["client_credentials/post"]


async def test_client_credentials_sends_the_secret_by_http_basic_when_that_is_all(
    workspace: Path, keys: tuple[Path, Path]
) -> None:
    with grant_server(keys[1], "--basic-only") as base:
        _config(base, grant="client_credentials", client_id="svc", client_secret="s3cret")
        await _connects_as(workspace, "svc")
        assert _issued(base) == ["client_credentials/basic"]


async def test_client_credentials_with_a_private_key_signs_a_jwt(
    workspace: Path, server: str, keys: tuple[Path, Path]
) -> None:
    _config(server, grant="client_credentials", client_id="svc-jwt", private_key_file=str(keys[0]))
    await _connects_as(workspace, "svc-jwt")
    assert _issued(server)[-1] == "client_credentials/private_key_jwt"
    assert keys[0].read_text() not in json.dumps(grant_stats(server)["bodies"])


async def test_an_expired_token_is_replaced_by_a_new_grant(
    workspace: Path, keys: tuple[Path, Path], no_browser: list[str]
) -> None:
    with grant_server(keys[1], "--token-seconds", "2") as base:
        _config(base, grant="client_credentials", client_id="svc", client_secret="s3cret")
        await _connects_as(workspace, "svc")
        storage = FileTokenStorage("secure", f"{base}/mcp")
        expires = storage.expires_at
        assert expires is not None
        end = time.monotonic() + DEADLINE
        while time.time() <= expires + 0.1:  # the token's lifetime, not a guess at timing
            assert time.monotonic() < end
            await asyncio.sleep(0.05)
        await _connects_as(workspace, "svc")  # after a restart: no 401 first, a new grant
        assert len(_issued(base)) == 2
        assert no_browser == []


async def test_workload_identity_presents_the_platforms_jwt(
    workspace: Path, server: str, tmp_path: Path
) -> None:
    token = _file(tmp_path / "token", workload_jwt(server) + "\n")
    _config(server, grant="jwt_bearer", client_id="workload", assertion_file=token)
    await _connects_as(workspace, "workload")
    assert _issued(server)[-1] == "jwt_bearer/workload"


async def test_enterprise_managed_exchanges_the_id_token_then_presents_the_grant(
    workspace: Path, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMA_SECRET", "ema-secret")
    _config(
        server,
        grant="enterprise_managed",
        client_id="ema",
        client_secret="${EMA_SECRET}",
        issuer=server,
        idp_token_endpoint=f"{server}/idp/token",
        idp_client_id="corp-app",
        id_token_file=_file(tmp_path / "id_token", id_token()),
    )
    exchanges = grant_stats(server)["exchanges"]
    await _connects_as(workspace, "ada@corp.example")
    assert grant_stats(server)["exchanges"] == exchanges + 1
    assert _issued(server)[-1] == "jwt_bearer/id-jag"


# -- mcp login ------------------------------------------------------------------------------


def test_cli_login_gets_a_token_and_says_which_grant(
    workspace: Path, server: str, capsys: pytest.CaptureFixture[str], no_browser: list[str]
) -> None:
    _config(server, grant="client_credentials", client_id="svc", client_secret="s3cret")
    assert main(["mcp", "--cwd", str(workspace), "login", "secure"]) == 0
    out = capsys.readouterr().out
    assert "obtained a token for secure with the client_credentials grant (client secret)" in out
    assert "no browser needed (2 tools)" in out
    assert "s3cret" not in out
    assert no_browser == []
    assert FileTokenStorage("secure", f"{server}/mcp").signed_in


async def test_login_with_a_refused_grant_says_what_the_server_said(
    workspace: Path, server: str
) -> None:
    _config(server, grant="client_credentials", client_id="svc", client_secret="wrong")
    spec = McpManager(workspace).config.servers["secure"]
    with pytest.raises(LoginError) as caught:
        await oauth.login(spec, on_url=lambda url: None, open_browser=None, timeout=20)
    assert str(caught.value) == (
        "the authorization server refused the client_credentials grant for secure (HTTP 401: "
        "invalid_client: Invalid client credentials): check oauth.client_id and "
        "oauth.client_secret (or private_key_file)"
    )
    assert "wrong" not in str(caught.value)


# -- bad input: what the user reads -----------------------------------------------------------


async def test_a_refused_grant_is_the_servers_reason(workspace: Path, server: str) -> None:
    _config(server, grant="client_credentials", client_id="svc", client_secret="wrong")
    state = await _failure(workspace)
    assert state.reason.startswith(
        "the authorization server refused the client_credentials grant for secure (HTTP 401: "
        "invalid_client: Invalid client credentials)"
    )
    assert "wrong" not in state.reason


async def test_a_missing_key_file_is_named_and_nothing_is_sent(
    workspace: Path, server: str, tmp_path: Path
) -> None:
    missing = tmp_path / "nope.pem"
    _config(server, grant="client_credentials", client_id="svc-jwt", private_key_file=str(missing))
    bodies = len(grant_stats(server)["bodies"])
    state = await _failure(workspace)
    assert state.reason == f"oauth.private_key_file of secure ({missing}) does not exist"
    assert len(grant_stats(server)["bodies"]) == bodies


async def test_a_key_file_that_is_no_key(workspace: Path, server: str, tmp_path: Path) -> None:
    junk = _file(tmp_path / "key.pem", "not a key\n")
    _config(server, grant="client_credentials", client_id="svc-jwt", private_key_file=junk)
    state = await _failure(workspace)
    assert state.reason == (
        f"oauth.private_key_file of secure ({junk}) is not a PEM private key "
        "(PKCS#8, PKCS#1 or SEC1)"
    )


async def test_an_expired_workload_token_is_refused_with_the_reason(
    workspace: Path, server: str, tmp_path: Path
) -> None:
    token = _file(tmp_path / "token", workload_jwt(server, expired=True))
    _config(server, grant="jwt_bearer", client_id="workload", assertion_file=token)
    state = await _failure(workspace)
    assert state.reason == (
        "the authorization server refused the jwt_bearer grant for secure (HTTP 400: "
        "invalid_grant: JWT assertion is expired): check oauth.assertion_file (the platform's "
        "token may have expired) and oauth.client_id"
    )


async def test_an_identity_provider_that_refuses_the_id_token(
    workspace: Path, server: str, tmp_path: Path
) -> None:
    forged = id_token().rsplit(".", 1)[0] + ".AAAA"
    _config(
        server,
        grant="enterprise_managed",
        client_id="ema",
        client_secret="ema-secret",
        issuer=server,
        idp_token_endpoint=f"{server}/idp/token",
        id_token_file=_file(tmp_path / "id_token", forged),
    )
    state = await _failure(workspace)
    assert state.reason.startswith(
        "the identity provider of secure refused the token exchange (HTTP 400: invalid_grant: "
        "bad ID token: Signature verification failed); sign in to it again"
    )


async def test_a_file_that_is_not_a_jwt_is_never_sent(
    workspace: Path, server: str, tmp_path: Path
) -> None:
    """Red team: an entry whose assertion_file names another secret (a mistake, or a config
    meant to carry the file off to a token endpoint): nothing of it leaves the machine."""
    canary = "CANARY-7f3a9c-aws_secret_access_key"
    secret = _file(tmp_path / "credentials", f"[default]\nkey = {canary}\n")
    _config(server, grant="jwt_bearer", client_id="workload", assertion_file=secret)
    state = await _failure(workspace)
    assert state.reason == (
        f"oauth.assertion_file of secure ({secret}) does not hold a JWT (nothing was sent)"
    )
    assert canary not in json.dumps(grant_stats(server))


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"grant": "client_credentials", "client_secret": "x"}, "client_secret needs a client_id"),
        ({"grant": "client_credentials"}, '"grant": "client_credentials" needs client_id'),
        (
            {"grant": "client_credentials", "client_id": "c"},
            "needs client_secret or private_key_file (one of them)",
        ),
        (
            {"grant": "client_credentials", "client_id": "c", "client_secret": "x",
             "private_key_file": "/k.pem"},
            "needs client_secret or private_key_file (one of them)",
        ),
        (
            {"grant": "jwt_bearer", "client_id": "c", "assertion_file": "token.jwt"},
            "must be an absolute path (or start with ~)",
        ),
        ({"grant": "jwt_bearer", "client_id": "c"}, '"grant": "jwt_bearer" needs assertion_file'),
        (
            {"grant": "enterprise_managed", "client_id": "c", "client_secret": "x"},
            '"grant": "enterprise_managed" needs issuer, idp_token_endpoint, id_token_file',
        ),
        (
            {"grant": "client_credentials", "client_id": "c", "client_secret": "x",
             "issuer": "http://auth.example.com"},
            "must be an https:// URL (http:// only for 127.0.0.1 or localhost)",
        ),
        ({"assertion_file": "/t.jwt"}, 'assertion_file is for "grant": "jwt_bearer"'),
        (
            {"grant": "client_credentials", "client_id": "c", "client_secret": "x",
             "callback_port": 4000},
            'callback_port is for "grant": "authorization_code", not "client_credentials"',
        ),
        ({"grant": "password"}, "'client_credentials', 'jwt_bearer' or 'enterprise_managed'"),
    ],
)  # fmt: skip
def test_an_entry_that_does_not_fit_its_grant_says_why(
    workspace: Path, entry: dict[str, Any], message: str
) -> None:
    _config("https://mcp.example.com", **entry)
    spec = McpManager(workspace).config.servers["secure"]
    assert spec.error is not None
    assert message in spec.error
