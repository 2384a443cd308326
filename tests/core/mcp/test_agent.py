"""MCP tools in the agent loop: the first request waits for starting servers (within their
deadline), calls are judged by the permission rules, results land in the transcript; and the
headless CLI wires it all from ``.mcp.json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from tests.core.helpers import collect, of_type, write_script
from tests.core.mcp.conftest import DEADLINE, ROOT, fixture_entry, write_config
from tests.core.mcp.servers import fixture_pids
from tests.core.tools.conftest import wait_until
from tests.trusting import trust_everything


async def test_the_loop_waits_for_starting_servers_then_calls_them(workspace: Path) -> None:
    mark = f"agent-{uuid.uuid4().hex[:8]}"
    config = write_config(
        workspace / ".mcp.json",
        {
            "fx": fixture_entry(name=mark),
            "stuck": fixture_entry("hang-at-start", name=mark, startup_timeout=1),
        },
    )
    script = write_script(
        workspace / "script.json",
        [
            {
                "tool_calls": [
                    {"id": "a", "name": "mcp__fx__echo", "arguments": {"text": "from mcp"}},
                    {"id": "b", "name": "mcp__fx__crash", "arguments": {}},
                ]
            },
            {"text": "done"},
        ],
    )
    registry = default_registry()
    manager = McpManager(workspace, registry, paths=[config])
    rules = RuleSet(allow=[Rule.parse("mcp__fx__echo")], deny=[Rule.parse("mcp__fx__crash")])
    agent = Agent(
        ScriptProvider(script),
        registry,
        workspace,
        policy=PermissionPipeline(workspace, rules, Mode.DEFAULT),
        sessions=SessionStore(workspace / "sessions"),
        tool_sources=[manager],
    )
    events = await collect(agent, "go")
    assert manager.state("stuck").status == "failed"  # it did not hold the turn past 1 s
    [result] = of_type(events, "tool_result")
    assert (result.name, result.content) == ("mcp__fx__echo", "from mcp")
    [rejected] = of_type(events, "tool_rejected")
    assert rejected.name == "mcp__fx__crash"
    assert "mcp__fx__crash" in rejected.reason
    assert of_type(events, "turn_end")[0].reason == "completed"
    await agent.close()
    await wait_until(lambda: not fixture_pids(mark), DEADLINE, "servers to exit on close")


def test_headless_run_with_mcp_json(workspace: Path) -> None:
    write_config(workspace / ".mcp.json", {"fx": fixture_entry(), "bad": {"command": 7}})
    trust_everything(workspace)  # as the user would at the prompt (or `agent-tui trust`)
    script = write_script(
        workspace / "script.json",
        [
            {"tool_calls": [{"name": "mcp__fx__add", "arguments": {"a": 2, "b": 3}}]},
            {"text": "2 + 3 = 5"},
        ],
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_tui",
            "--cwd",
            str(workspace),
            "-p",
            "add",
            "--model",
            f"script:{script}",
            "--output-format",
            "json",
            "--allow",
            "mcp__fx",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    [tool] = [e for e in result["events"] if e["type"] == "tool_result"]
    assert (tool["name"], tool["content"]) == ("mcp__fx__add", "5")
    assert any(w.startswith("mcp: ") and "'bad'" in w for w in result["warnings"])
    assert "agent-tui: mcp: " in done.stderr
