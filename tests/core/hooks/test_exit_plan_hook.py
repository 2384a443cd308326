"""A PreToolUse hook written for Claude Code's ``ExitPlanMode`` sees our ``exit_plan_mode``
call under that name, with the plan, and its block holds: nobody is asked, the mode stays plan."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import Mode
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.plan_gate import PlanVerdict
from tests.core.helpers import collect, write_script
from tests.core.hooks.lab import Lab, of_type, script

GUARD = """\
import json
import sys
from pathlib import Path

data = json.load(sys.stdin)
Path(sys.argv[1]).write_text(json.dumps(data))
print("BLOCKED: plans need a ticket number", file=sys.stderr)
sys.exit(2)
"""


async def test_a_pre_tool_use_hook_on_exit_plan_mode_sees_and_blocks_it(lab: Lab) -> None:
    seen = lab.root / "seen.json"
    guard = script(lab.home / "guard.py", GUARD, shebang="#!/usr/bin/env python3")
    command = {"type": "command", "command": f"python3 {guard} {seen}"}
    matcher = {"matcher": "ExitPlanMode", "hooks": [command]}
    hooks = lab.hooks({"PreToolUse": [matcher]})
    call = {"id": "x", "name": "exit_plan_mode", "arguments": {"plan": "1. do it"}}
    turns: list[dict[str, Any]] = [{"tool_calls": [call]}, {"text": "ok"}]
    provider = ScriptProvider(write_script(lab.root / "s.json", turns))
    policy = build_pipeline(lab.work, mode="plan").pipeline
    agent = Agent(provider, default_registry(), lab.work, policy=policy, hooks=hooks)
    asked: list[str] = []

    async def review(plan: str) -> PlanVerdict:
        asked.append(plan)
        return PlanVerdict(approved=True, mode="accept-edits")

    agent.executor.plan_review.attach(review)
    events = await collect(agent, "go")
    data = json.loads(seen.read_text())
    assert data["tool_name"] == "ExitPlanMode"
    assert data["tool_input"] == {"plan": "1. do it"}
    rejected = of_type(events, "tool_rejected")
    assert [r.by for r in rejected] == ["hook"]
    assert "ticket number" in rejected[0].reason
    assert asked == []
    assert agent.policy.mode is Mode.PLAN
