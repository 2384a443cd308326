"""``agent-tui mcp serve``, exercised by the SDK's own client over stdio."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.server.tool_server import ToolServer
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import ROOT, write_config
from tests.core.mcp.servers import HeldClient

pytestmark = pytest.mark.asyncio(loop_scope="module")
SERVED = ["glob", "grep", "list_dir", "read_file", "search_files"]


def _serve_entry(root: Path) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "agent_tui", "mcp", "--cwd", str(root), "serve"],
        # No user settings: the rules of whoever runs the tests must not change the results.
        "env": {
            "PYTHONPATH": str(ROOT / "src"),
            "AGENT_TUI_CONFIG_DIR": str(root.with_name(root.name + "-no-config")),
        },
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("served")
    (root / "src").mkdir()
    (root / "src" / "app_config.py").write_text("DEBUG = True\nNAME = 'demo'\n")
    (root / "README.md").write_text("# Demo\nThe config lives in src.\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "config.js").write_text("skipped")
    return root


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(project: Path, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Any]:
    entry = _serve_entry(project)
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=entry["env"])
    with (tmp_path_factory.mktemp("logs") / "serve.err").open("w") as errlog:
        held = HeldClient(Client(stdio_client(params, errlog=errlog), read_timeout_seconds=30))
        yield await held.open()
        await held.close()


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


async def test_lists_the_read_only_tools(client: Any) -> None:
    tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == SERVED
    registry = default_registry()
    for tool in tools:
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False
        assert tool.input_schema["type"] == "object"
        assert tool.description
        if tool.name in registry:  # the same schema the agent's model sees
            own = {t["name"]: t for t in registry.anthropic_tools()}[tool.name]
            assert tool.input_schema == own["input_schema"]


async def test_calls_each_tool(client: Any) -> None:
    read = await client.call_tool("read_file", {"path": "src/app_config.py"})
    assert not read.is_error
    assert "DEBUG = True" in _text(read)
    listing = await client.call_tool("list_dir", {"path": "."})
    assert not listing.is_error
    assert "README.md" in _text(listing)
    found = await client.call_tool("glob", {"pattern": "**/*.py"})
    assert _text(found).splitlines()[0] == "src/app_config.py"
    grep = await client.call_tool("grep", {"pattern": "NAME"})
    assert "src/app_config.py" in _text(grep)
    search = await client.call_tool("search_files", {"query": "CONFIG"})
    lines = _text(search).splitlines()
    assert lines[0] == "src/app_config.py"
    assert not any("node_modules" in line for line in lines)
    nothing = await client.call_tool("search_files", {"query": "zzz"})
    assert "No file name or path" in _text(nothing)


async def test_invalid_arguments_are_tool_errors_with_paths(client: Any) -> None:
    """SEP-1303: the calling model reads what was wrong (``isError``), no protocol error."""
    wrong = await client.call_tool("read_file", {"path": 3, "bogus": True})
    assert wrong.is_error
    payload = json.loads(_text(wrong))
    assert payload["code"] == "invalid_arguments"
    assert "$.bogus: unknown field (not in the schema)" in payload["details"]
    assert any(p.startswith("$.path: ") for p in payload["details"])
    missing = await client.call_tool("search_files", {})
    assert missing.is_error
    assert json.loads(_text(missing))["details"] == ["$.query: required field is missing"]
    with pytest.raises(MCPError) as unknown:  # an unknown tool is still -32602
        await client.call_tool("write_file", {"path": "x", "content": "y"})
    assert unknown.value.code == -32602
    assert "write_file" not in unknown.value.data["tools"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_set_level_over_stdio(project: Path, tmp_path: Path) -> None:
    entry = _serve_entry(project)
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=entry["env"])
    seen: list[Any] = []

    async def on_log(message: Any) -> None:
        seen.append(message)

    with (tmp_path / "serve.err").open("w") as errlog:
        async with Client(
            stdio_client(params, errlog=errlog),
            read_timeout_seconds=30,
            mode="legacy",
            logging_callback=on_log,
        ) as legacy:
            assert legacy.server_capabilities.logging is not None
            await legacy.call_tool("read_file", {"path": "README.md"})
            assert [str(m.level) for m in seen] == ["info"]
            await legacy.set_logging_level("debug")
            await legacy.call_tool("read_file", {"path": "/etc/hostname"})
            assert [str(m.level) for m in seen[1:]] == ["debug", "warning"]
            assert "outside the directory" in seen[-1].data
            await legacy.set_logging_level("emergency")
            await legacy.call_tool("read_file", {"path": "/etc/hostname"})
            assert len(seen) == 3


async def test_paths_outside_the_served_directory_are_refused(client: Any, project: Path) -> None:
    outside = await client.call_tool("read_file", {"path": "/etc/hostname"})
    assert outside.is_error
    assert "outside the directory this server serves" in _text(outside)
    sneaky = await client.call_tool("list_dir", {"path": "src/../.."})
    assert sneaky.is_error
    (project / "link").symlink_to("/etc")
    linked = await client.call_tool("glob", {"pattern": "*", "path": "link"})
    assert linked.is_error
    missing = await client.call_tool("read_file", {"path": "nope.txt"})
    assert missing.is_error
    assert "does not exist" in _text(missing)


async def test_our_own_client_uses_it_too(project: Path, tmp_path: Path) -> None:
    config = write_config(tmp_path / ".mcp.json", {"self": _serve_entry(project)})
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    try:
        await manager.start()
        await manager.wait_ready()
        state = manager.state("self")
        assert state.status == "connected", state.reason
        assert [t.name for t in state.tools] == [f"mcp__self__{n}" for n in SERVED]
        assert all(t.read_only for t in state.tools)
        from agent_tui.core.tools.base import ToolContext

        outcome = await manager.registry.dispatch(
            "mcp__self__search_files", '{"query": "readme"}', ToolContext(cwd=tmp_path)
        )
        assert outcome.output is not None
        assert "README.md" in outcome.output.content
    finally:
        await manager.aclose()


async def test_handlers_without_a_transport(project: Path) -> None:
    server = ToolServer(project)
    assert [t.name for t in server.list_tools()] == SERVED
    assert server.root.is_absolute()
