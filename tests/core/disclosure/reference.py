"""The three pinned npm reference servers (server-everything, server-filesystem, server-memory)
connected through the real manager with the built-ins: what disclosure costs on real tools
(``benchmarks/bench_disclosure.py`` and ``test_reference_cost.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.subagents import install, load_agents
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.registry import ToolRegistry
from tests.core.mcp.conftest import write_config
from tests.core.mcp.test_reference_servers import REFERENCE_RETRIEVAL

SERVERS = ("everything", "files", "memory")

RETRIEVAL = [
    *REFERENCE_RETRIEVAL,
    ("remember a fact about a person", "mcp__memory__add_observations"),
    ("create entities in the knowledge graph", "mcp__memory__create_entities"),
    ("relate two entities", "mcp__memory__create_relations"),
    ("read the whole knowledge graph", "mcp__memory__read_graph"),
    ("search nodes of the knowledge graph", "mcp__memory__search_nodes"),
    ("memory: delete observations", "mcp__memory__delete_observations"),
]
"""The reference servers' retrieval set (``test_reference_servers``) plus server-memory."""

BUILTIN_RETRIEVAL = [
    ("fetch this web page", "web_fetch"),
    ("run a subagent to research X", "task"),
    ("plan steps", "update_plan"),
]
"""The built-ins deferred with the MCP tools (``DEFERRABLE_BUILTINS``), found by search."""


@asynccontextmanager
async def with_task(registry: ToolRegistry, root: Path) -> AsyncIterator[None]:
    """``task`` in ``registry``, installed on an agent as a session installs it (``assemble``)."""
    script = root / "no-turns.json"
    script.write_text('{"turns": []}')
    agent = Agent(ScriptProvider(script), registry, root, system="reference")
    install(agent, load_agents(root, user_dir=root / "no-user-agents"))
    try:
        yield
    finally:
        await agent.close()


@asynccontextmanager
async def reference_manager(bin_dir: Path, root: Path) -> AsyncIterator[McpManager]:
    """The three servers connected in ``root`` (a project of its own: ``shared/`` is what the
    filesystem server may touch); the configuration is a user-level file, so no trust prompt."""
    (root / "shared").mkdir(exist_ok=True)
    (root / "config").mkdir(exist_ok=True)
    config = write_config(
        root / "config" / "servers.json",
        {
            "everything": {"command": str(bin_dir / "mcp-server-everything")},
            "files": {
                "command": str(bin_dir / "mcp-server-filesystem"),
                "args": [str(root / "shared")],
            },
            "memory": {
                "command": str(bin_dir / "mcp-server-memory"),
                "env": {"MEMORY_FILE_PATH": str(root / "memory.jsonl")},
            },
        },
    )
    manager = McpManager(root / "shared", default_registry(), paths=[config])
    await manager.start()
    await manager.wait_ready()
    try:
        for name in SERVERS:
            state = manager.state(name)
            if state.status != "connected":
                raise RuntimeError(f"{name} did not connect: {state.reason} {state.stderr_tail}")
        yield manager
    finally:
        await manager.aclose()
