"""Issue 45: the first reply never waits for an MCP server, with real fixture servers.

Lazy is the default start mode. A server slow to answer ``initialize`` (the fixture's
``slow-start`` mode, held until the test creates its gate file) does not hold up the TUI's first
request: it goes out while the server is still ``connecting``, and a later request has its
tools. A server whose tool list is cached is not started until used. ``"start": "eager"`` (the
settings or the entry) restores the wait, and a headless run (``wait_uncached``) waits for a
lazy server whose tools are not cached yet. Each request records the tools it offered and the
slow server's status when it went out, so nothing depends on timing."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.base import ModelRequest, StreamItem
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from tests.core.helpers import collect, of_type, write_script
from tests.core.mcp.conftest import DEADLINE, fixture_entry, write_config
from tests.core.mcp.servers import fixture_pids
from tests.core.tools.conftest import wait_until


class Recording(ScriptProvider):
    """A script model that notes, for each request, the MCP tools it offered (direct or
    deferred: the registry's) and the status of ``watched`` at that moment."""

    def __init__(self, path: Path, manager: McpManager, watched: str) -> None:
        super().__init__(path)
        self.manager = manager
        self.watched = watched
        self.seen: list[tuple[str, set[str]]] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        names = {n for n in self.manager.registry.names() if n.startswith("mcp__")}
        self.seen.append((self.manager.state(self.watched).status, names))
        async for item in super().stream(request):
            yield item


class Setup:
    """A project with a ``.mcp.json`` and a settings file, and the agents built on it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.mark = f"lazy45-{uuid.uuid4().hex[:8]}"
        self.gate = root / "gate"
        self.config = root / ".mcp.json"
        self.settings = root / ".agent-tui" / "settings.json"
        self.settings.parent.mkdir(parents=True, exist_ok=True)
        self.settings.write_text("{}", encoding="utf-8")  # no "mcp.start": the default
        self.agents: list[Agent] = []

    def slow_entry(self, **extra: Any) -> dict[str, Any]:
        entry = fixture_entry("slow-start", name=self.mark, startup_timeout=120, **extra)
        entry["args"] += ["--gate", str(self.gate)]
        return entry

    def agent(
        self, turns: list[dict[str, Any]], *, watched: str, wait_uncached: bool = False
    ) -> tuple[Agent, McpManager, Recording]:
        """An agent as the TUI builds it (``wait_uncached`` False) or a headless run (True)."""
        registry = default_registry()
        manager = McpManager(
            self.root,
            registry,
            paths=[self.config],
            settings_paths=[self.settings],
            disclosure=Disclosure(registry),
            wait_uncached=wait_uncached,
        )
        name = f"script-{len(self.agents)}.json"
        provider = Recording(write_script(self.root / name, turns), manager, watched)
        agent = Agent(
            provider,
            registry,
            self.root,
            policy=SimplePolicy(["*"]),
            sessions=SessionStore(self.root / "sessions"),
            tool_sources=[manager],
        )
        self.agents.append(agent)
        return agent, manager, provider

    async def open_gate_once_running(self) -> None:
        """Let the slow server answer once its process runs (a test's background task)."""
        await wait_until(lambda: bool(fixture_pids(self.mark)), DEADLINE, "the slow server")
        self.gate.touch()


@pytest_asyncio.fixture
async def setup(workspace: Path) -> AsyncIterator[Setup]:
    found = Setup(workspace)
    yield found
    found.gate.touch()
    for agent in found.agents:
        await agent.close()
    await wait_until(lambda: not fixture_pids(found.mark), DEADLINE, "the servers to exit")


async def test_the_first_request_does_not_wait_for_a_slow_server(setup: Setup) -> None:
    write_config(setup.config, {"slow": setup.slow_entry()})
    agent, manager, provider = setup.agent([{"text": "one"}, {"text": "two"}], watched="slow")
    assert manager.start_mode == "lazy"  # no setting says otherwise
    await manager.start()  # the TUI starts the sources as it opens

    events = await collect(agent, "first")  # the gate is shut: the server cannot be ready
    assert of_type(events, "turn_end")[0].reason == "completed"
    [(status, tools)] = provider.seen
    assert status == "connecting"
    assert tools == set()
    assert manager.state("slow").status == "connecting"  # truthfully "starting" meanwhile

    setup.gate.touch()
    await wait_until(lambda: manager.state("slow").status == "connected", DEADLINE, "connect")
    await collect(agent, "second")
    status, tools = provider.seen[1]
    assert status == "connected"
    assert "mcp__slow__echo" in tools  # its tools joined the next request


async def test_a_cached_server_is_offered_from_its_cache_and_not_started(setup: Setup) -> None:
    write_config(setup.config, {"fx": fixture_entry(name=setup.mark)})
    first, manager, _ = setup.agent([{"text": "one"}], watched="fx")
    await manager.start()
    await wait_until(lambda: bool(manager.lazy.cached.get("fx")), DEADLINE, "fx's cache")
    await first.close()  # the tool cache is whole once it is closed
    await wait_until(lambda: not fixture_pids(setup.mark), DEADLINE, "the first fx to exit")

    call = {"id": "c1", "name": "run_tool", "arguments": {"name": "mcp__fx__pid", "input": {}}}
    turns = [{"text": "one"}, {"tool_calls": [call]}, {"text": "done"}]
    agent, manager, provider = setup.agent(turns, watched="fx")
    await manager.start()
    await collect(agent, "first")
    [(status, tools)] = provider.seen
    assert status == "lazy"  # cached, not started: the panel and mcp list say so
    assert "mcp__fx__echo" in tools  # offered from the cache
    assert fixture_pids(setup.mark) == []

    events = await collect(agent, "call it")  # its first use starts it
    progress = [e.starting_server for e in of_type(events, "tool_progress")]
    assert "fx" in progress
    [result] = of_type(events, "tool_result")
    assert result.content.strip().isdigit()
    assert manager.state("fx").status == "connected"


async def test_eager_in_the_settings_still_waits(setup: Setup) -> None:
    setup.settings.write_text(json.dumps({"mcp": {"start": "eager"}}), encoding="utf-8")
    write_config(setup.config, {"slow": setup.slow_entry()})
    agent, manager, provider = setup.agent([{"text": "one"}], watched="slow")
    assert manager.start_mode == "eager"
    await manager.start()
    opener = asyncio.create_task(setup.open_gate_once_running())
    await collect(agent, "first")
    await opener
    [(status, tools)] = provider.seen
    assert status == "connected"  # the request waited until the server was up
    assert "mcp__slow__echo" in tools


async def test_eager_on_the_entry_waits_for_that_server_only(setup: Setup) -> None:
    slow_gate = setup.gate
    other = setup.root / "other-gate"
    lazy_entry = setup.slow_entry()
    lazy_entry["args"][-1] = str(other)  # its own gate, never opened: it stays connecting
    write_config(setup.config, {"slow": setup.slow_entry(start="eager"), "idle": lazy_entry})
    agent, manager, provider = setup.agent([{"text": "one"}], watched="slow")
    await manager.start()
    opener = asyncio.create_task(setup.open_gate_once_running())
    await collect(agent, "first")
    await opener
    [(status, tools)] = provider.seen
    assert status == "connected"
    assert manager.state("idle").status == "connecting"  # the lazy one was not waited for
    assert "mcp__slow__echo" in tools
    assert slow_gate.exists()
    other.touch()


async def test_a_headless_run_waits_for_a_server_whose_tools_are_not_cached(
    setup: Setup,
) -> None:
    write_config(setup.config, {"slow": setup.slow_entry()})
    agent, manager, provider = setup.agent([{"text": "one"}], watched="slow", wait_uncached=True)
    assert manager.start_mode == "lazy"
    opener = asyncio.create_task(setup.open_gate_once_running())
    await collect(agent, "first")  # ready() starts the servers, as a headless run does
    await opener
    [(status, tools)] = provider.seen
    assert status == "connected"
    assert "mcp__slow__echo" in tools
