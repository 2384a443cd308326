"""``agent-tui mcp serve --transport http``: the real server in a subprocess on 127.0.0.1,
driven by the SDK's streamable HTTP client and by our own ``McpManager``.

The served tree holds canaries, as ``test_serve_escapes.py`` has them: a file outside the
tree (reached through a symlink), a ``.env`` a deny rule protects, a key file an ask rule
protects, each with a unique secret that must never come back over HTTP.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.server.http import ServeError, check_host, is_loopback, security
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import ROOT, write_config

SERVED = ["glob", "grep", "list_dir", "read_file", "search_files"]
DEADLINE = 120.0
# logging/setLevel is deprecated from protocol 2026-07-28 on; the SDK client warns each time.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


@dataclass
class Tree:
    root: Path
    config: Path
    canary: str
    secret: str
    key_secret: str

    def leaks(self, text: str) -> list[str]:
        return [m for m in (self.canary, self.secret, self.key_secret) if m in text]


@dataclass
class Served:
    """One ``mcp serve --transport http`` process."""

    process: subprocess.Popen[bytes]
    url: str
    port: int
    errlog: Path
    logs: list[Any] = field(default_factory=list)

    def stderr(self) -> str:
        return self.errlog.read_text()


def _tree(base: Path) -> Tree:
    token = secrets.token_hex(8)
    outside = base / "outside"
    outside.mkdir()
    canary = f"CANARY-{token}"
    (outside / "canary.txt").write_text(f"{canary}\n")
    root = base / "served"
    (root / ".agent-tui").mkdir(parents=True)
    (root / ".agent-tui" / "settings.json").write_text(
        json.dumps(
            {"permissions": {"deny": ["read_file(.env)"], "ask": ["read_file(private/*.key)"]}}
        )
    )
    secret = f"SECRET-{token}"
    (root / ".env").write_text(f"API_KEY={secret}\n")
    (root / "private").mkdir()
    key_secret = f"KEY-{token}"
    (root / "private" / "id.key").write_text(f"{key_secret}\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "canary-link").symlink_to(outside / "canary.txt")
    config = base / "config"
    config.mkdir()
    return Tree(root, config, canary, secret, key_secret)


def _argv(root: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "agent_tui", "mcp", "--cwd", str(root), "serve", *extra]


def _env(tree: Tree) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "AGENT_TUI_CONFIG_DIR": str(tree.config),
    }


def _start(tree: Tree, errlog: Path) -> Served:
    """Start the server on port 0 and wait for the line giving its URL."""
    with errlog.open("wb") as err:
        process = subprocess.Popen(
            _argv(tree.root, "--transport", "http", "--port", "0"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=_env(tree),
        )
    end = time.monotonic() + DEADLINE
    marker = "agent-tui mcp serve: listening on "
    while True:
        text = errlog.read_text()
        if marker in text:
            url = text.split(marker, 1)[1].splitlines()[0].strip()
            break
        if process.poll() is not None or time.monotonic() > end:
            process.kill()
            raise RuntimeError(f"mcp serve --transport http did not start:\n{text}")
        time.sleep(0.05)
    assert url.startswith("http://127.0.0.1:"), url
    assert url.endswith("/mcp"), url
    return Served(process, url, int(url.rsplit(":", 1)[1].split("/")[0]), errlog)


def _stop(served: Served) -> None:
    if served.process.poll() is None:
        served.process.send_signal(signal.SIGTERM)
    try:
        served.process.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return _tree(tmp_path_factory.mktemp("http-serve"))


@pytest.fixture(scope="module")
def served(tree: Tree, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    running = _start(tree, tmp_path_factory.mktemp("logs") / "serve.err")
    try:
        yield running
    finally:
        _stop(running)


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def _client(served: Served, **options: Any) -> Client:
    return Client(served.url, read_timeout_seconds=DEADLINE, **options)


async def test_lists_calls_and_refuses_over_http(served: Served, tree: Tree) -> None:
    async with _client(served) as client:
        assert [t.name for t in (await client.list_tools()).tools] == SERVED
        fine = await client.call_tool("read_file", {"path": "src/app.py"})
        assert not fine.is_error, _text(fine)
        assert "print('hello')" in _text(fine)
        refused = [
            ("read_file", {"path": ".env"}, "denied by the rule read_file(.env)"),
            ("read_file", {"path": "private/id.key"}, "nobody can be asked over MCP"),
            ("read_file", {"path": "canary-link"}, "outside the directory this server serves"),
            ("read_file", {"path": "../outside/canary.txt"}, "outside the directory"),
            ("glob", {"pattern": "../*"}, "contains '..'"),
            ("list_dir", {"path": "/etc"}, "outside the directory"),
        ]
        for name, arguments, why in refused:
            result = await client.call_tool(name, arguments)
            text = _text(result)
            assert result.is_error, (name, arguments, text)
            assert why in text, (name, arguments, text)
            assert tree.leaks(text) == [], (name, arguments, text)
        for name, arguments in (
            ("grep", {"pattern": "."}),
            ("glob", {"pattern": "**/*"}),
            ("search_files", {"query": "e"}),
            ("list_dir", {"path": "."}),
        ):
            result = await client.call_tool(name, arguments)
            assert tree.leaks(_text(result)) == [], (name, _text(result))


async def test_invalid_arguments_are_tool_errors_the_model_sees(served: Served) -> None:
    """SEP-1303: a schema violation is a result with ``isError``, not a protocol error."""
    async with _client(served) as client:
        wrong = await client.call_tool("read_file", {"path": 3, "bogus": True})
        assert wrong.is_error
        payload = json.loads(_text(wrong))
        assert payload["code"] == "invalid_arguments"
        assert "$.bogus: unknown field (not in the schema)" in payload["details"]
        assert any(p.startswith("$.path: ") for p in payload["details"])
        assert payload["next_step"]
        missing = await client.call_tool("search_files", {})
        assert missing.is_error
        assert json.loads(_text(missing))["details"] == ["$.query: required field is missing"]
        typed = await client.call_tool("grep", {"pattern": "x", "ignore_case": "many"})
        assert typed.is_error
        assert "$.ignore_case" in _text(typed)
        with pytest.raises(MCPError) as unknown:  # an unknown tool stays a protocol error
            await client.call_tool("write_file", {"path": "x", "content": "y"})
        assert unknown.value.code == -32602
        assert "write_file" not in unknown.value.data["tools"]


async def test_set_level_filters_the_log_messages(served: Served) -> None:
    """``logging/setLevel`` on a handshake-era connection (2025-11-25): info until set."""
    seen: list[Any] = []

    async def on_log(params: Any) -> None:
        seen.append(params)

    def levels() -> list[str]:
        return [str(p.level) for p in seen]

    async with _client(served, mode="legacy", logging_callback=on_log) as client:
        assert client.server_capabilities.logging is not None
        await client.call_tool("read_file", {"path": "src/app.py"})
        await client.call_tool("read_file", {"path": ".env"})
        assert levels() == ["info", "warning"]
        assert all(p.logger == "agent-tui.serve" for p in seen)
        assert "read_file refused" in seen[1].data
        seen.clear()
        await client.set_logging_level("debug")
        await client.call_tool("read_file", {"path": "src/app.py"})
        assert levels() == ["debug", "info"]
        assert '{"path": "src/app.py"}' in seen[0].data
        seen.clear()
        await client.set_logging_level("error")
        await client.call_tool("read_file", {"path": ".env"})
        await client.call_tool("read_file", {"path": 3})
        await client.set_logging_level("warning")
        await client.call_tool("read_file", {"path": 4})
        assert levels() == ["warning"]  # the calls at "error" sent nothing
        assert "invalid arguments" in seen[0].data
        assert "$.path" in seen[0].data


async def test_each_connection_has_its_own_level(served: Served) -> None:
    quiet: list[Any] = []
    loud: list[Any] = []

    async def on_quiet(params: Any) -> None:
        quiet.append(params)

    async def on_loud(params: Any) -> None:
        loud.append(params)

    async with (
        _client(served, mode="legacy", logging_callback=on_quiet) as first,
        _client(served, mode="legacy", logging_callback=on_loud) as second,
    ):
        await first.set_logging_level("critical")
        await second.set_logging_level("debug")
        await first.call_tool("read_file", {"path": ".env"})
        await second.call_tool("read_file", {"path": "src/app.py"})
        assert quiet == []
        assert [str(p.level) for p in loud] == ["debug", "info"]


async def test_a_2026_connection_logs_what_each_request_opts_in_to(served: Served) -> None:
    seen: list[Any] = []

    async def on_log(params: Any) -> None:
        seen.append(params)

    async with _client(served, logging_callback=on_log, log_level="warning") as client:
        assert client.protocol_version == "2026-07-28"
        await client.call_tool("read_file", {"path": "src/app.py"})
        await client.call_tool("read_file", {"path": ".env"})
        assert [str(p.level) for p in seen] == ["warning"]


async def test_dns_rebinding_is_refused(served: Served) -> None:
    """A page in a browser reaching 127.0.0.1 through a name of its own is refused."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(timeout=DEADLINE) as http:
        evil = await http.post(served.url, json=body, headers={**headers, "Host": "evil.test"})
        assert evil.status_code == 421
        origin = await http.post(
            served.url, json=body, headers={**headers, "Origin": "http://evil.test"}
        )
        assert origin.status_code == 403


async def test_our_own_manager_connects_to_it(served: Served, tree: Tree, tmp_path: Path) -> None:
    config = write_config(tmp_path / ".mcp.json", {"self": {"type": "http", "url": served.url}})
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    try:
        await manager.start()
        await manager.wait_ready()
        state = manager.state("self")
        assert state.status == "connected", state.reason
        assert state.transport == "http"
        assert [t.name for t in state.tools] == [f"mcp__self__{n}" for n in SERVED]
        ctx = ToolContext(cwd=tmp_path)
        fine = await manager.registry.dispatch(
            "mcp__self__read_file", '{"path": "src/app.py"}', ctx
        )
        assert fine.output is not None
        assert "print('hello')" in fine.output.content
        denied = await manager.registry.dispatch("mcp__self__read_file", '{"path": ".env"}', ctx)
        shown = denied.output.content if denied.output else denied.error.to_model_text()  # type: ignore[union-attr]
        assert "denied by the rule read_file(.env)" in shown
        assert tree.leaks(shown) == []
        wrong = await manager.registry.dispatch("mcp__self__search_files", '{"query": 10}', ctx)
        shown = wrong.output.content if wrong.output else wrong.error.to_model_text()  # type: ignore[union-attr]
        assert "$." in shown
    finally:
        await manager.aclose()


async def test_sigterm_stops_it_and_closes_the_port(tree: Tree, tmp_path: Path) -> None:
    """With a client connected (its session and stream open), SIGTERM ends the process with
    status 0 and the port stops accepting connections."""
    running = _start(tree, tmp_path / "serve.err")
    try:
        async with _client(running, mode="legacy") as client:
            assert not (await client.call_tool("read_file", {"path": "src/app.py"})).is_error
            began = time.monotonic()
            running.process.send_signal(signal.SIGTERM)
            code = running.process.wait(timeout=DEADLINE)
            took = time.monotonic() - began
    finally:
        _stop(running)
    assert code == 0, running.stderr()
    log = running.stderr()
    assert "SIGTERM, stopping" in log
    assert "agent-tui mcp serve: stopped" in log
    assert "Traceback" not in log
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", running.port), timeout=5).close()
    print(f"stopped {took:.2f} s after SIGTERM with a client connected")


def test_sigint_stops_it_too(tree: Tree, tmp_path: Path) -> None:
    running = _start(tree, tmp_path / "serve.err")
    try:
        running.process.send_signal(signal.SIGINT)
        assert running.process.wait(timeout=DEADLINE) == 0, running.stderr()
    finally:
        _stop(running)
    assert "SIGINT, stopping" in running.stderr()


def test_a_non_loopback_host_is_refused_without_allow_remote(tree: Tree) -> None:
    done = subprocess.run(
        _argv(tree.root, "--transport", "http", "--port", "0", "--host", "0.0.0.0"),
        capture_output=True,
        text=True,
        env=_env(tree),
        timeout=DEADLINE,
        check=False,
    )
    assert done.returncode == 2
    assert "--host 0.0.0.0 is not a loopback address" in done.stderr
    assert "--allow-remote" in done.stderr
    assert "listening" not in done.stderr


def test_the_flags_are_checked(tree: Tree) -> None:
    for extra, message in (
        (["--transport", "http"], "needs --port N (0 picks a free port)"),
        (["--transport", "http", "--port", "70000"], "is not a port number"),
        (["--port", "8000"], "are for --transport http"),
    ):
        done = subprocess.run(
            _argv(tree.root, *extra),
            capture_output=True,
            text=True,
            env=_env(tree),
            timeout=DEADLINE,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, (extra, done.stderr)
        assert message in done.stderr, (extra, done.stderr)


def test_a_port_in_use_says_so(tree: Tree, served: Served) -> None:
    done = subprocess.run(
        _argv(tree.root, "--transport", "http", "--port", str(served.port)),
        capture_output=True,
        text=True,
        env=_env(tree),
        timeout=DEADLINE,
        check=False,
    )
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{served.port}" in done.stderr
    assert "Pick another --port" in done.stderr


def test_loopback_and_remote_hosts() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"):
        assert is_loopback(host), host
        assert check_host(host, allow_remote=False) is None
        assert security(host).enable_dns_rebinding_protection
    assert "127.0.0.2:*" in security("127.0.0.2").allowed_hosts
    for host in ("0.0.0.0", "192.168.1.2", "::", "example.com"):
        assert not is_loopback(host), host
        with pytest.raises(ServeError, match="no authentication"):
            check_host(host, allow_remote=False)
        warning = check_host(host, allow_remote=True)
        assert warning is not None
        assert "WITHOUT authentication" in warning
        assert security(host) is None


async def test_a_broken_settings_file_is_reported_and_the_rules_still_apply(
    tmp_path: Path,
) -> None:
    fresh = _tree(tmp_path)
    local = fresh.root / ".agent-tui" / "settings.local.json"
    local.write_text("{not json")
    running = _start(fresh, tmp_path / "serve.err")
    try:
        async with _client(running) as client:
            denied = await client.call_tool("read_file", {"path": ".env"})
            assert denied.is_error
            assert fresh.leaks(_text(denied)) == []
    finally:
        _stop(running)
    log = running.stderr()
    assert f"agent-tui mcp serve: settings: {local}: is not valid JSON" in log
    assert log.index("settings:") < log.index("listening on")
