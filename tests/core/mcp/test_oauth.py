"""OAuth sign-in against a real authorization server + protected MCP server on 127.0.0.1
(``tests/mcp_servers/oauth_server.py``): the 401 before sign-in, the login flow (discovery,
dynamic registration or a pre-registered client, PKCE, the loopback redirect), the token file,
tools listed and called, refresh after expiry, logout, and the CLI."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agent_tui.cli.main import main
from agent_tui.core.mcp.auth import oauth
from agent_tui.core.mcp.auth.connection_auth import sign_in_reason
from agent_tui.core.mcp.auth.oauth import LoginError
from agent_tui.core.mcp.auth.token_store import FileTokenStorage, auth_dir
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.config.load import user_config_path
from agent_tui.core.mcp.config.spec import ServerSpec
from tests.core.mcp.conftest import DEADLINE, ROOT, of_type, run_calls, write_config
from tests.core.mcp.oauth_env import Browser, oauth_server, stats


@pytest.fixture
def no_browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A browser that must not be opened: the URLs it was asked to open."""
    opened: list[str] = []

    def refuse(url: str, *args: Any, **kwargs: Any) -> bool:
        opened.append(url)
        return False

    monkeypatch.setattr("webbrowser.open", refuse)
    return opened


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """One server for the tests of this module that need a plain one: each test has its own
    data dir (so its own registration and tokens), and counts the server's ``stats`` from
    what they were when it began (``registered``)."""
    with oauth_server() as base:
        yield base


@pytest.fixture
def registered(server: str) -> Callable[[], int]:
    """The clients registered at ``server`` since this test began."""
    before = int(stats(server)["registered"])
    return lambda: int(stats(server)["registered"]) - before


def _config(workspace: Path, base: str, **entry: Any) -> Path:
    """The server as ``secure`` in the user's file (project files need trust)."""
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_config(path, {"secure": {"type": "http", "url": f"{base}/mcp", **entry}})


async def _connected(workspace: Path) -> McpManager:
    manager = McpManager(workspace)
    await manager.start()
    await manager.wait_ready()
    return manager


async def _login(manager: McpManager, browser: Browser, name: str = "secure") -> Any:
    urls: list[str] = []
    result = await oauth.login(
        manager.config.servers[name], on_url=urls.append, open_browser=browser.open, timeout=30
    )
    assert urls == browser.urls
    assert len(urls) == 1
    assert not browser.errors
    return result


async def _call(manager: McpManager, workspace: Path, tool: str, args: dict[str, Any]) -> str:
    events, _ = await run_calls(manager.registry, workspace, [(f"mcp__secure__{tool}", args)])
    results = of_type(events, "tool_result")
    assert results, events
    assert not results[0].is_error, events
    return str(results[0].content)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _saved(path: Path) -> dict[str, Any]:
    """The token file's object; {} when there is none."""
    if not path.exists():
        return {}
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _spec(manager: McpManager) -> ServerSpec:
    return manager.config.servers["secure"]


async def test_before_sign_in_the_server_needs_sign_in_and_nothing_is_started(
    workspace: Path, server: str, no_browser: list[str], registered: Callable[[], int]
) -> None:
    _config(workspace, server)
    manager = await _connected(workspace)
    try:
        state = manager.state("secure")
        assert state.status == "failed"
        assert state.auth_required
        assert state.can_sign_in
        assert state.reason == (
            "this server needs sign-in: press a in the MCP panel, or run "
            "`agent-tui mcp login secure`"
        )
        assert state.reason == sign_in_reason("secure")
    finally:
        await manager.aclose()
    assert no_browser == []  # never an implicit sign-in
    assert registered() == 0  # and no client registered behind the user's back
    assert not auth_dir().exists()


async def test_login_with_dynamic_registration_then_tools_list_and_call(
    workspace: Path, server: str, caplog: pytest.LogCaptureFixture, registered: Callable[[], int]
) -> None:
    caplog.set_level(logging.DEBUG)
    _config(workspace, server)
    manager = await _connected(workspace)
    try:
        browser = Browser()
        result = await _login(manager, browser)
        assert result.needed
        assert result.tools == 2
        assert browser.pages[0].status_code == 200
        assert "You can close this tab" in browser.pages[0].text
        # The authorization request: PKCE S256, the loopback redirect, a state.
        query = httpx2.URL(browser.urls[0]).params
        assert query["code_challenge_method"] == "S256"
        assert query["code_challenge"]
        redirect = httpx2.URL(query["redirect_uri"])
        assert (redirect.host, redirect.path) == ("127.0.0.1", "/callback")
        assert query["state"]

        path = Path(result.path)
        assert path.parent == auth_dir()
        assert _mode(path) == 0o600
        assert _mode(path.parent) == 0o700
        saved = _saved(path)
        assert saved["server"] == "secure"
        assert saved["url"] == f"{server}/mcp"
        token = saved["tokens"]["access_token"]
        client_id = saved["client"]["client_id"]
        assert registered() == 1

        await manager.reconnect("secure")
        assert await manager.wait_for(lambda: manager.state("secure").status == "connected", 20)
        state = manager.state("secure")
        assert not state.auth_required
        assert sorted(t.remote_name for t in state.tools) == ["add", "whoami"]
        assert await _call(manager, workspace, "whoami", {}) == client_id
        assert await _call(manager, workspace, "add", {"a": 2, "b": 3}) == "5"

        # Signing in again reuses the registered client (its redirect port is free again).
        again = await _login(manager, Browser())
        assert again.needed
        assert registered() == 1
        assert _saved(path)["tokens"]["access_token"] != token
    finally:
        await manager.aclose()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert token not in logged
    assert token not in result.describe()


async def test_pre_registered_client_id_without_registration(workspace: Path) -> None:
    with oauth_server("--no-registration") as base:
        _config(workspace, base, oauth={"client_id": "agent-tui-test", "scopes": ["mcp"]})
        manager = await _connected(workspace)
        try:
            assert manager.state("secure").auth_required
            await _login(manager, Browser())
            saved = json.loads(FileTokenStorage("secure", f"{base}/mcp").path.read_text())
            assert "client" not in saved  # a configured client lives in the configuration
            await manager.reconnect("secure")
            assert await manager.wait_for(
                lambda: manager.state("secure").status == "connected", DEADLINE
            )
            assert await _call(manager, workspace, "whoami", {}) == "agent-tui-test"
        finally:
            await manager.aclose()
        assert stats(base)["registered"] == 0


async def test_confidential_client_secret_from_the_environment(
    workspace: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECURE_SECRET", "s3cret")
    oauth_entry = {"client_id": "agent-tui-secret", "client_secret": "${SECURE_SECRET}"}
    _config(workspace, server, oauth=oauth_entry)
    manager = await _connected(workspace)
    try:
        assert _spec(manager).warnings == []  # a ${VAR} secret is fine, even in a project file
        await _login(manager, Browser())
        await manager.reconnect("secure")
        assert await manager.wait_for(
            lambda: manager.state("secure").status == "connected", DEADLINE
        )
        assert await _call(manager, workspace, "whoami", {}) == "agent-tui-secret"
    finally:
        await manager.aclose()
    assert "s3cret" not in FileTokenStorage("secure", f"{server}/mcp").path.read_text()


async def test_a_wrong_client_secret_fails_the_sign_in_with_the_reason(
    workspace: Path, server: str
) -> None:
    _config(workspace, server, oauth={"client_id": "agent-tui-secret", "client_secret": "nope"})
    manager = McpManager(workspace)
    with pytest.raises(LoginError, match="the sign-in to secure failed: Token exchange failed"):
        await _login(manager, Browser())
    assert not FileTokenStorage("secure", f"{server}/mcp").signed_in


async def _until_expired(storage: FileTokenStorage) -> None:
    expires = storage.expires_at
    assert expires is not None
    end = time.monotonic() + DEADLINE
    while time.time() <= expires + 0.1:  # the token's lifetime, not a guess at timing
        assert time.monotonic() < end
        await asyncio.sleep(0.05)


async def test_an_expired_access_token_is_refreshed_without_the_user(
    workspace: Path, no_browser: list[str]
) -> None:
    with oauth_server("--token-seconds", "2") as base:
        _config(workspace, base)
        manager = McpManager(workspace)
        await _login(manager, Browser())
        storage = FileTokenStorage("secure", f"{base}/mcp")
        first = _saved(storage.path)["tokens"]["access_token"]
        await _until_expired(storage)
        refreshed = stats(base)["by_refresh"]

        manager = await _connected(workspace)  # a new session: the saved, expired token
        try:
            assert manager.state("secure").status == "connected", manager.state("secure")
            assert stats(base)["by_refresh"] == refreshed + 1
            second = _saved(storage.path)["tokens"]["access_token"]
            assert second != first
            assert _mode(storage.path) == 0o600

            await _until_expired(storage)  # and while connected, at the next request
            before = stats(base)["by_refresh"]
            assert await _call(manager, workspace, "add", {"a": 1, "b": 1}) == "2"
            assert stats(base)["by_refresh"] > before
        finally:
            await manager.aclose()
        assert no_browser == []
        assert stats(base)["codes"] == 1  # one sign-in, every later token by refresh


async def test_logout_removes_the_tokens(
    workspace: Path, server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(workspace, server)
    manager = McpManager(workspace)
    result = await _login(manager, Browser())
    assert _saved(Path(result.path))["tokens"]
    assert main(["mcp", "--cwd", str(workspace), "logout", "secure"]) == 0
    assert "signed out of secure" in capsys.readouterr().out
    assert _saved(Path(result.path)) == {}
    assert main(["mcp", "--cwd", str(workspace), "logout", "secure"]) == 0
    assert "secure had no saved sign-in" in capsys.readouterr().out
    manager = await _connected(workspace)
    try:
        assert manager.state("secure").auth_required
    finally:
        await manager.aclose()


def test_cli_login_prints_the_url_and_saves_the_tokens(
    workspace: Path, server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(workspace, server)
    # Its only server failed (it needs sign-in): nothing works, so the listing exits 1.
    assert main(["mcp", "--cwd", str(workspace), "list", "--json"]) == 1
    (listed,) = json.loads(capsys.readouterr().out)["servers"]
    assert listed["status"] == "failed"
    assert listed["auth_required"] is True
    assert listed["error"] == sign_in_reason("secure")

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent_tui",
            "mcp",
            "--cwd",
            str(workspace),
            "login",
            "secure",
            "--no-browser",
            "--timeout",
            "60",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    try:
        assert process.stdout is not None
        head = process.stdout.readline()
        assert head.startswith("To sign in to secure; if it does not open, visit:"), head
        url = process.stdout.readline().strip()
        assert url.startswith(f"{server}/authorize?")
        page = httpx2.get(url, follow_redirects=True, timeout=30)
        assert page.status_code == 200
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert "signed in to secure (2 tools); the tokens are in" in out
    assert FileTokenStorage("secure", f"{server}/mcp").signed_in


def test_cli_login_refuses_what_cannot_sign_in(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_config(
        path,
        {
            "local": {"command": "true"},
            "static": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer x"}},
        },
    )
    for name, said in [
        ("local", "local is a stdio server: sign-in (OAuth) is for HTTP servers"),
        ("static", "sign-in is off for static: its entry has its own Authorization header"),
        ("nope", "no MCP server named 'nope' (configured: local, static)"),
    ]:
        assert main(["mcp", "--cwd", str(workspace), "login", name]) == 2
        assert said in capsys.readouterr().err
