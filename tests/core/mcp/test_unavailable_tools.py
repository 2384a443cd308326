"""A tool its server lists but that cannot be offered (it must run as an MCP task): a call of
it by name says why it is not available — in ``agent-tui mcp call`` and to the model through
the registry (directly and through ``run_tool``) — never "there is no tool named …".

Against the real ``everything`` server from npm (``simulate-research-query`` requires tasks)
and the fixture server's ``tasks`` mode (``long_job``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.cli.main import main
from agent_tui.core.disclosure import Disclosure, DisclosureSettings
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.registered_tools import TOOL_UNAVAILABLE
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import fixture_entry, of_type, run_calls, write_config


def test_mcp_call_of_a_task_tool_of_everything_says_why(
    workspace: Path, npm_bin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    everything = {"command": str(npm_bin / "mcp-server-everything")}
    write_config(workspace / ".mcp.json", {"everything": everything})
    code = main(["mcp", "--cwd", str(workspace), "list"])
    listed, _ = capsys.readouterr()
    assert code == 0
    assert "mcp__everything__simulate-research-query" in listed
    assert "execution.taskSupport: required" in listed

    call = ["call", "everything", "simulate-research-query", "--args", '{"topic": "tides"}']
    code = main(["mcp", "--cwd", str(workspace), *call])
    out, err = capsys.readouterr()
    assert code == 1
    seen = json.loads(out)  # what the model would see
    assert seen["code"] == TOOL_UNAVAILABLE
    assert seen["error"].startswith(
        "The tool 'simulate-research-query' of the MCP server 'everything' is not available: "
    )
    assert "execution.taskSupport: required" in seen["error"]
    assert "There is no tool named" not in out + err
    assert "Did you mean" not in out + err
    assert err.startswith(f"agent-tui mcp: the call failed ({TOOL_UNAVAILABLE}): The tool ")


@pytest.mark.asyncio
async def test_the_model_is_told_why_a_task_tool_is_not_available(tmp_path: Path) -> None:
    config = write_config(tmp_path / "mcp.json", {"jobs": fixture_entry("tasks")})
    registry = default_registry()
    manager = McpManager(tmp_path, registry, paths=[config])
    await manager.start()
    try:
        await manager.wait_ready()
        assert manager.state("jobs").status == "connected"
        assert "mcp__jobs__long_job" not in registry
        ctx = ToolContext(cwd=tmp_path)

        outcome = await registry.dispatch("mcp__jobs__long_job", "{}", ctx)
        assert outcome.error is not None
        assert outcome.error.code == TOOL_UNAVAILABLE
        assert outcome.error.message.startswith(
            "The tool 'long_job' of the MCP server 'jobs' is not available: "
        )
        assert "MCP task" in outcome.error.message
        assert not outcome.error.retryable
        assert outcome.error.details == []  # no "closest: …" suggestions

        # Through run_tool (the proxy of deferred tools): the same reason, named.
        Disclosure(registry, DisclosureSettings(deferred="auto:0"))
        call = {"name": "mcp__jobs__long_job", "input": {}}
        events, _ = await run_calls(registry, tmp_path, [("run_tool", call)])
        [error] = of_type(events, "tool_error")
        assert error.code == TOOL_UNAVAILABLE, error
        assert "run_tool → mcp__jobs__long_job: The tool 'long_job' of the MCP server" in (
            error.message
        )

        # A name no server lists is still unknown, with suggestions.
        outcome = await registry.dispatch("mcp__jobs__ech", "{}", ctx)
        assert outcome.error is not None
        assert outcome.error.code == "unknown_tool"
    finally:
        await manager.aclose()
