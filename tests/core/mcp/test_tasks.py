"""Tools that must run as MCP tasks (``execution.taskSupport: "required"``): the SDK cannot
run tasks client-side, so such a tool is listed with the reason and never offered to the
model; its siblings work as usual. Against the fixture server's ``tasks`` mode, a 2025-11-25
server (the version that has the field)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.disclosure import Disclosure
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.overview import build_overview
from agent_tui.core.mcp.client.registered_tools import TOOL_UNAVAILABLE
from agent_tui.core.mcp.client.tasks import TASK_REQUIRED, task_support, unavailable_reason
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import fixture_entry, write_config

pytestmark = pytest.mark.asyncio


async def test_a_task_required_tool_is_listed_with_its_reason_but_not_offered(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path / "mcp.json", {"jobs": fixture_entry("tasks")})
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    await manager.start()
    try:
        await manager.wait_ready()
        state = manager.state("jobs")
        assert state.status == "connected", state.reason
        assert state.protocol_version == "2025-11-25"
        infos = {info.remote_name: info for info in state.tools}
        assert set(infos) == {"echo", "long_job"}
        assert infos["long_job"].unavailable == TASK_REQUIRED
        assert infos["echo"].unavailable is None

        registry = manager.registry
        assert "mcp__jobs__echo" in registry
        assert "mcp__jobs__long_job" not in registry
        for array in (registry.openai_tools_json(), registry.anthropic_tools_json()):
            assert "long_job" not in array
        disclosure = Disclosure(registry)
        assert "mcp__jobs__long_job" not in {t.name for t in disclosure.deferred()}

        outcome = await registry.dispatch("mcp__jobs__long_job", "{}", ToolContext(cwd=tmp_path))
        assert outcome.error is not None
        assert outcome.error.code == TOOL_UNAVAILABLE  # said why, not "no tool named"
        outcome = await registry.dispatch(
            "mcp__jobs__echo", json.dumps({"text": "hi"}), ToolContext(cwd=tmp_path)
        )
        assert outcome.output is not None
        assert outcome.output.content == "hi"

        overview = build_overview(manager, registry=registry, cwd=tmp_path)
        row = overview.server("jobs")
        assert row is not None
        marks = {tool.info.remote_name: tool.mark for tool in row.tools}
        assert marks["long_job"].kind == "hidden"
        assert "execution.taskSupport: required" in marks["long_job"].why
        assert marks["echo"].kind == "direct"
    finally:
        await manager.aclose()


@pytest.mark.parametrize(
    ("support", "hidden"),
    [(None, False), ("forbidden", False), ("optional", False), ("required", True)],
)
async def test_only_required_task_support_hides_a_tool(support: str | None, hidden: bool) -> None:
    from mcp.types import Tool, ToolExecution

    execution = ToolExecution(task_support=support) if support else None  # type: ignore[arg-type]
    remote = Tool(name="job", input_schema={"type": "object"}, execution=execution)
    assert task_support(remote) == support
    assert (unavailable_reason(remote) is not None) is hidden
