"""Reconnecting an HTTP MCP server by backoff: the schedule (1, 2, 4 ... 30 s), a call that tries
at once while the server is away, a server that forgot the session (HTTP 404), the probe that
tells a dead server from a live one, and a stdio server, which is never reconnected."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.mcp.client.backoff import Backoff, Reconnect, retryable
from agent_tui.core.mcp.client.http_link import WatchedClient
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import DEADLINE, FIXTURE, fixture_entry, write_config
from tests.core.mcp.servers import ServerProcess, free_port, status_server

pytestmark = pytest.mark.asyncio


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_the_backoff_doubles_up_to_thirty_seconds_and_says_when() -> None:
    clock = Clock()
    backoff = Backoff(clock=clock)
    assert backoff.info() is None
    delays = [backoff.schedule() for _ in range(8)]
    assert delays == [1, 2, 4, 8, 16, 30, 30, 30]
    assert backoff.info() == Reconnect(8, 30)
    clock.now += 26.2
    assert backoff.info() == Reconnect(8, 4)
    assert backoff.info().describe() == "reconnecting in 4 s (attempt 8)"  # type: ignore[union-attr]
    backoff.reset()
    assert backoff.info() is None
    assert backoff.schedule() == 1  # connected in between: it starts over


async def test_a_hurried_attempt_starts_at_once_and_waits_for_its_end() -> None:
    backoff = Backoff(first=3600.0)
    backoff.schedule()
    waiter = asyncio.create_task(backoff.wait())
    caller = asyncio.create_task(backoff.now(DEADLINE))
    await asyncio.wait_for(waiter, DEADLINE)  # not an hour: the call hurried it
    assert backoff.info() == Reconnect(1, None)
    assert backoff.info().describe() == "reconnecting now (attempt 1)"  # type: ignore[union-attr]
    assert not caller.done()
    backoff.reset()  # it connected
    await asyncio.wait_for(caller, DEADLINE)


@pytest.mark.parametrize(
    ("transport", "kind", "status", "retried"),
    [
        ("http", "unreachable", None, True),
        ("http", "exited", None, True),
        ("http", "start_timeout", None, True),
        ("http", "server_error", 502, True),
        ("http", "server_error", 500, False),
        ("http", "sign_in", 401, False),
        ("http", "not_found", 404, False),
        ("stdio", "exited", None, False),
        ("stdio", "unreachable", None, False),
    ],
)
async def test_only_http_servers_that_went_away_are_retried(
    transport: str, kind: Any, status: int | None, retried: bool
) -> None:
    if transport == "http":
        spec = ServerSpec(name="s", transport="http", url="http://127.0.0.1:9/mcp")
    else:
        spec = ServerSpec(name="s", transport="stdio", command="x")
    assert retryable(spec, kind, status) is retried


async def _manager(tmp_path: Path, entry: dict[str, Any]) -> McpManager:
    config = write_config(tmp_path / ".mcp.json", {"web": entry})
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    await manager.start()
    await manager.wait_ready()
    assert manager.state("web").status == "connected", manager.state("web").reason
    return manager


async def _call(manager: McpManager, cwd: Path, tool: str, args: dict[str, Any]) -> Any:
    ctx = ToolContext(cwd=cwd, call_id="c")
    return await manager.registry.dispatch(f"mcp__web__{tool}", json.dumps(args), ctx)


async def test_a_call_while_the_server_is_away_reconnects_at_once(tmp_path: Path) -> None:
    argv = [sys.executable, str(FIXTURE), "--mode", "http", "--port", "{port}", "--name", "r"]
    server = ServerProcess(argv)
    await server.start()
    manager: McpManager | None = None
    try:
        manager = await _manager(tmp_path, {"type": "http", "url": server.url, "oauth": False})
        await server.kill()
        state = manager.state
        assert await manager.wait_for(lambda: state("web").status == "failed", DEADLINE)
        for _ in range(4):  # each call tries once, at once: the delay doubles each time
            failed = await _call(manager, tmp_path, "echo", {"text": "x"})
            assert failed.error is not None
        away = state("web").reconnect
        assert away is not None
        assert away.attempt >= 5, away
        assert away.seconds is not None
        assert away.seconds >= 8
        assert f"(attempt {away.attempt})" in failed.error.message
        await server.start()
        started = time.monotonic()
        back = await _call(manager, tmp_path, "echo", {"text": "back"})
        assert back.error is None, back.error
        assert back.output.content == "back"
        assert time.monotonic() - started < away.seconds  # did not wait for its turn
        assert state("web").status == "connected"
        assert state("web").reconnect is None
    finally:
        if manager is not None:
            await manager.aclose()
        await server.stop()


async def test_a_server_that_forgot_the_session_is_connected_again(tmp_path: Path) -> None:
    with status_server(session=True) as url:
        manager = await _manager(tmp_path, {"type": "http", "url": url, "oauth": False})
        try:
            forgot = await _call(manager, tmp_path, "forget", {})
            assert forgot.error is None
            lost = await _call(manager, tmp_path, "echo", {"text": "x"})
            state = manager.state("web")
            again = await _call(manager, tmp_path, "echo", {"text": "again"})
        finally:
            await manager.aclose()
    assert lost.error is not None
    assert "no longer knows this session (HTTP 404 Not Found)" in lost.error.message
    assert "nothing answers MCP" not in lost.error.message  # not a wrong URL
    assert state.status == "failed"
    assert state.failure_kind == "exited"
    assert state.http_status == 404
    assert state.reconnect is not None
    assert again.error is None, again.error
    assert again.output.content == "again"


async def test_the_probe_tells_a_live_server_from_a_dead_one_and_a_gateway() -> None:
    seen: list[tuple[str, int | None]] = []

    def lost(error: BaseException | None, status: int | None) -> None:
        seen.append((type(error).__name__, status))

    with status_server() as url:
        async with WatchedClient(url, lost) as client:
            assert await client.probe() is True
    assert seen == []
    with status_server(status=502) as url:
        async with WatchedClient(url, lost) as client:
            assert await client.probe() is False
            assert client.lost
    assert seen == [("NoneType", 502)]
    dead = f"http://127.0.0.1:{free_port()}/mcp"
    async with WatchedClient(dead, lost) as client:
        assert await client.check() is False
        assert await client.probe() is False  # told once
    assert seen == [("NoneType", 502), ("ConnectError", None)]


async def test_a_stdio_server_that_dies_is_not_reconnected(tmp_path: Path) -> None:
    manager = await _manager(tmp_path, fixture_entry(name="once"))
    try:
        crashed = await _call(manager, tmp_path, "crash", {})
        conn_state = manager.state("web")
        later = await _call(manager, tmp_path, "echo", {"text": "x"})
    finally:
        await manager.aclose()
    assert crashed.error is not None
    assert conn_state.status == "failed"
    assert conn_state.reconnect is None
    assert later.error is not None
    assert "reconnect" not in later.error.message
    assert "Do not retry this tool now" in later.error.next_step
