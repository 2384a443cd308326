"""An HTTP MCP server that dies: real servers in subprocesses on 127.0.0.1, killed with SIGKILL.

A call in flight fails within a second of the kill (it took 7 s with a server whose streams
are resumable: the SDK retried the dead stream twice, then the connection waited 5 s more for
a reason), so does the next call after a kill between calls; the state says the server is
unreachable and why, and that it reconnects (``reconnecting in 1 s (attempt 1)``); a server
started again on the same port is reconnected by itself, its tools listed again. The servers:
the SDK's ``MCPServer`` (the fixture, 2026-07-28), the npm ``everything`` server (2025-11-25,
resumable SSE streams and a GET stream) and ``agent-tui mcp serve --transport http``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ProgressUpdate, ToolContext
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.registry import DispatchOutcome
from tests.core.mcp.conftest import DEADLINE, FIXTURE, write_config
from tests.core.mcp.servers import ServerProcess

pytestmark = pytest.mark.asyncio

FAIL_WITHIN = 1.0
"""The acceptance: a call fails within this long of the kill."""


def _server(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> ServerProcess:
    if kind == "sdk":
        argv = [sys.executable, str(FIXTURE), "--mode", "http", "--port", "{port}", "--name", "d"]
        return ServerProcess(argv)
    if kind == "everything":
        npm_bin: Path = request.getfixturevalue("npm_bin")
        return ServerProcess(
            [str(npm_bin / "mcp-server-everything"), "streamableHttp"], env={"PORT": "{port}"}
        )
    serve = ["mcp", "--cwd", str(tmp_path), "serve", "--transport", "http", "--port", "{port}"]
    return ServerProcess([sys.executable, "-m", "agent_tui", *serve])


SLOW = {
    "sdk": ("slow", {"steps": 100000, "delay": 0.05}),
    "everything": ("trigger-long-running-operation", {"duration": 600, "steps": 6000}),
}
"""A tool that runs long and reports progress (so the test knows it is under way)."""
QUICK = {
    "sdk": ("echo", {"text": "x"}),
    "everything": ("echo", {"message": "x"}),
    "serve": ("list_dir", {"path": "."}),
}


class Session:
    """One server, a manager connected to it, and calls through the registry."""

    def __init__(self, kind: str, server: ServerProcess, manager: McpManager, cwd: Path) -> None:
        self.kind, self.server, self.manager, self.cwd = kind, server, manager, cwd
        self.progressed = asyncio.Event()

    def ctx(self) -> ToolContext:
        def progress(update: ProgressUpdate) -> None:
            if update.progress is not None:
                self.progressed.set()

        return ToolContext(cwd=self.cwd, call_id="c", progress=progress)

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[DispatchOutcome, float]:
        """The outcome, and ``time.monotonic()`` when it came."""
        name = f"mcp__web__{tool}"
        outcome = await self.manager.registry.dispatch(name, json.dumps(arguments), self.ctx())
        return outcome, time.monotonic()

    async def quick(self) -> tuple[DispatchOutcome, float]:
        return await self.call(*QUICK[self.kind])

    async def wait_status(self, status: str) -> bool:
        state = self.manager.state
        return await self.manager.wait_for(lambda: state("web").status == status, DEADLINE)


@pytest.fixture
async def session(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Session]:
    kind: str = request.param
    server = _server(kind, request, tmp_path)
    await server.start()
    config = write_config(
        tmp_path / ".mcp.json", {"web": {"type": "http", "url": server.url, "oauth": False}}
    )
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    try:
        await manager.start()
        await manager.wait_ready()
        assert manager.state("web").status == "connected", manager.state("web").reason
        yield Session(kind, server, manager, tmp_path)
    finally:
        await manager.aclose()
        await server.stop()


def _unreachable(session: Session) -> None:
    state = session.manager.state("web")
    assert state.status == "failed"
    assert state.failure_kind == "unreachable"
    assert f"lost the connection to {session.server.url}" in (state.reason or "")
    assert "Connection refused" in (state.reason or "")
    assert state.reconnect is not None
    assert state.reconnect.attempt >= 1


@pytest.mark.parametrize("session", ["sdk", "everything"], indirect=True)
async def test_a_server_killed_mid_call_fails_the_call_within_a_second(
    session: Session,
) -> None:
    pending = asyncio.create_task(session.call(*SLOW[session.kind]))
    await asyncio.wait_for(session.progressed.wait(), DEADLINE)  # the call is under way
    killed = await session.server.kill()
    outcome, failed = await asyncio.wait_for(pending, DEADLINE)
    assert outcome.error is not None
    assert failed - killed < FAIL_WITHIN, f"the call failed {failed - killed:.2f} s after the kill"
    tool = SLOW[session.kind][0]
    assert f"The MCP server 'web' failed during the call to {tool}: " in outcome.error.message
    if session.kind == "everything":  # the SDK's error ends the fixture's session otherwise
        _unreachable(session)
    state = session.manager.state("web")
    assert state.status == "failed"
    assert state.reason
    assert state.reason in outcome.error.message
    assert state.reconnect is not None


@pytest.mark.parametrize("session", ["sdk", "everything", "serve"], indirect=True)
async def test_a_server_killed_between_calls_fails_the_next_call_at_once(
    session: Session,
) -> None:
    first, _ = await session.quick()
    assert first.error is None
    killed = await session.server.kill()
    outcome, failed = await session.quick()
    assert outcome.error is not None
    assert failed - killed < FAIL_WITHIN, f"the call failed {failed - killed:.2f} s after the kill"
    _unreachable(session)
    again, _ = await session.quick()  # tries to reconnect, at once, and says so
    assert again.error is not None
    assert "is not running: it failed: lost the connection to" in again.error.message
    assert "reconnecting in" in again.error.message
    assert "reconnects it by itself" in again.error.next_step


@pytest.mark.parametrize("session", ["sdk", "everything"], indirect=True)
async def test_a_server_started_again_on_the_same_port_comes_back_by_itself(
    session: Session,
) -> None:
    manager = session.manager
    tools = [info.name for info in manager.tool_infos()]
    await session.server.kill()
    assert await manager.wait_for(lambda: manager.state("web").status == "failed", DEADLINE)
    assert manager.state("web").reconnect is not None
    assert tools == [info.name for info in manager.tool_infos()]  # kept while it is away
    await session.server.start()
    assert await session.wait_status("connected"), manager.state("web")  # nobody asked
    state = manager.state("web")
    assert state.reconnect is None
    assert state.failure_kind is None
    assert state.reason is None
    assert [info.name for info in manager.tool_infos()] == tools  # listed again
    assert not [note for note in state.notes if "live tool list updates" in note]
    outcome, _ = await session.quick()
    assert outcome.error is None, outcome.error
