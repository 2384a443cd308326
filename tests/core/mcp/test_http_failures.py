"""HTTP servers that fail: the status they answered with and what to do (not "JSON-RPC error
-32603" for a 401 and a 500 alike), with typed fields on the state; and a server that dies
under a call in flight is failed at once, the call and the next one saying why."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import DEADLINE, FIXTURE, write_config
from tests.core.mcp.servers import free_port, status_server

pytestmark = pytest.mark.asyncio


async def _manager(tmp_path: Path, entry: dict[str, object]) -> McpManager:
    config = write_config(tmp_path / ".mcp.json", {"web": entry})
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    await manager.start()
    await manager.wait_ready()
    return manager


@pytest.mark.parametrize(
    ("status", "kind", "words"),
    [
        (
            401,
            "sign_in",
            "needs sign-in: press a in the MCP panel, or run `agent-tui mcp login web`",
        ),
        (403, "forbidden", "HTTP 403 Forbidden"),
        (404, "not_found", "nothing answers MCP at http://127.0.0.1"),
        (500, "server_error", "HTTP 500 Internal Server Error: the server failed on its side"),
        (503, "server_error", "HTTP 503 Service Unavailable"),
    ],
)
async def test_a_failed_start_names_the_http_status(
    tmp_path: Path, status: int, kind: str, words: str
) -> None:
    with status_server(status) as url:
        manager = await _manager(tmp_path, {"type": "http", "url": url})
        try:
            state = manager.state("web")
        finally:
            await manager.aclose()
    assert state.status == "failed"
    assert words in (state.reason or "")
    assert "-32603" not in (state.reason or "")
    assert state.failure_kind == kind
    assert state.http_status == status
    assert state.auth_required is (status == 401)


async def test_a_401_without_oauth_points_at_the_header(tmp_path: Path) -> None:
    with status_server(401) as url:
        entry = {"type": "http", "url": url, "headers": {"Authorization": "Bearer wrong"}}
        manager = await _manager(tmp_path, entry)
        try:
            state = manager.state("web")
        finally:
            await manager.aclose()
    assert state.failure_kind == "sign_in"
    assert state.http_status == 401
    assert "HTTP 401 Unauthorized: the server refused the credentials" in (state.reason or "")
    assert "Authorization header" in (state.reason or "")


async def test_an_http_error_of_one_call_names_its_status(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path, call_id="c")
    with status_server() as url:
        manager = await _manager(tmp_path, {"type": "http", "url": url})
        try:
            assert manager.state("web").status == "connected"
            boom = await manager.registry.dispatch("mcp__web__http_error", '{"status": 500}', ctx)
            locked = await manager.registry.dispatch("mcp__web__http_error", '{"status": 401}', ctx)
            fine = await manager.registry.dispatch("mcp__web__echo", '{"text": "ok"}', ctx)
            state = manager.state("web")
        finally:
            await manager.aclose()
    assert boom.error is not None
    assert locked.error is not None
    assert boom.error.code == locked.error.code == "mcp_http_error"
    assert "HTTP 500 Internal Server Error" in boom.error.message
    assert boom.error.retryable
    assert "http_status: 500" in boom.error.details
    assert "needs sign-in" in locked.error.message
    assert "mcp login web" in locked.error.message
    assert "http_status: 401" in locked.error.details
    for error in (boom.error, locked.error):
        assert "-32603" not in error.message
    assert fine.output is not None
    assert fine.output.content == "ok"
    assert state.status == "connected"  # one refused call is not a dead server


async def _listening(port: int) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            assert loop.time() < deadline, "the HTTP fixture server did not start"
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return


async def test_a_server_that_dies_under_a_call_is_failed_at_once(tmp_path: Path) -> None:
    port = free_port()
    argv = [sys.executable, str(FIXTURE), "--mode", "http", "--port", str(port), "--name", "dies"]
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    ctx = ToolContext(cwd=tmp_path, call_id="c")
    manager: McpManager | None = None
    try:
        await _listening(port)
        url = f"http://127.0.0.1:{port}/mcp"
        manager = await _manager(tmp_path, {"type": "http", "url": url, "oauth": False})
        assert manager.state("web").status == "connected"
        pending = asyncio.create_task(manager.registry.dispatch("mcp__web__hang", "{}", ctx))
        # The call is on the wire when the server answers the next one (calls run in parallel).
        ping = await manager.registry.dispatch("mcp__web__echo", '{"text": "x"}', ctx)
        assert ping.output is not None
        process.kill()
        await asyncio.wait_for(process.wait(), DEADLINE)
        hung = await asyncio.wait_for(pending, DEADLINE)
        state = manager.state("web")
        later = await manager.registry.dispatch("mcp__web__echo", '{"text": "x"}', ctx)
        # Reconnecting still works once the server is back.
        process = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
        )
        await _listening(port)
        await manager.reconnect("web")
        back = manager.state
        assert await manager.wait_for(lambda: back("web").status == "connected", DEADLINE)
        again = await manager.registry.dispatch("mcp__web__echo", '{"text": "back"}', ctx)
        assert again.output is not None
        assert again.output.content == "back"
        assert back("web").failure_kind is None
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        if manager is not None:
            await manager.aclose()
    assert hung.error is not None
    assert "cancelled" not in hung.error.message
    assert "failed during the call to hang" in hung.error.message
    assert state.status == "failed"
    assert state.failure_kind == "unreachable"
    assert state.reason
    assert state.reason in hung.error.message
    assert later.error is not None
    assert "cancelled" not in later.error.message
    assert "'web' is not running: it failed: lost the connection to" in later.error.message
