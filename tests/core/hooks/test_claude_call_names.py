"""Hooks written for Claude Code, on calls a model makes by Claude Code's tool names: the hook
reads the call as Claude Code would send it (``Bash`` with ``command``; ``MultiEdit`` with
``file_path`` and ``edits``) and its block holds, in bypass mode, on the real canary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.hooks import Hooks
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from tests.core.helpers import collect, write_script
from tests.core.hooks.lab import Lab, of_type, script
from tests.core.hooks.test_claude_code_hooks import RM_RF_GUARD

RECORD_AND_GUARD = """\
import json
import sys
from pathlib import Path

data = json.load(sys.stdin)
Path(sys.argv[1]).write_text(json.dumps(data))
tool_input = data.get("tool_input", {})
if data.get("tool_name") == "MultiEdit" and tool_input.get("file_path", "").endswith(".env"):
    print("BLOCKED: no edits of .env", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
"""


def _hook(matcher: str, command: str) -> dict[str, Any]:
    return {
        "PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]
    }


def _agent(lab: Lab, calls: list[dict[str, Any]], hooks: Hooks) -> Agent:
    turns = [{"tool_calls": calls}, {"text": "ok"}]
    provider = ScriptProvider(write_script(lab.root / f"s{id(calls)}.json", turns))
    policy = build_pipeline(lab.work, mode="bypass").pipeline
    return Agent(provider, default_registry(), lab.work, policy=policy, hooks=hooks)


async def test_a_bash_guard_blocks_rm_rf_sent_as_bash(lab: Lab) -> None:
    guard = script(lab.home / ".claude" / "hooks" / "no-rm.sh", RM_RF_GUARD, shebang="#!/bin/bash")
    hooks = lab.hooks(_hook("Bash", str(guard)))
    arguments = {"command": f"rm -rf {lab.canary}", "timeout": 60000, "description": "Clean"}
    events = await collect(
        _agent(lab, [{"id": "c", "name": "Bash", "arguments": arguments}], hooks), "go"
    )
    rejected = of_type(events, "tool_rejected")
    assert rejected
    assert rejected[0].by == "hook"
    assert rejected[0].name == "run_shell"
    assert lab.canary.read_text() == "alive\n"


async def test_a_multi_edit_hook_reads_claude_codes_shape_and_blocks(lab: Lab) -> None:
    env = lab.work / ".env"
    env.write_text("A=1\nB=2\n", encoding="utf-8")
    seen = lab.root / "seen.json"
    guard = script(lab.home / "guard.py", RECORD_AND_GUARD, shebang="#!/usr/bin/env python3")
    hooks = lab.hooks(_hook("Edit|MultiEdit|Write", f"python3 {guard} {seen}"))
    edits = [
        {"old_string": "A=1", "new_string": "A=pwned"},
        {"old_string": "B=2", "new_string": "B=3"},
    ]
    calls = [
        {"id": "r", "name": "Read", "arguments": {"file_path": ".env"}},
        {"id": "m", "name": "MultiEdit", "arguments": {"file_path": ".env", "edits": edits}},
    ]
    events = await collect(_agent(lab, calls, hooks), "go")
    rejected = of_type(events, "tool_rejected")
    assert [r.id for r in rejected] == ["m"]
    assert "no edits of .env" in rejected[0].reason
    assert env.read_text() == "A=1\nB=2\n"
    payload = json.loads(seen.read_text())
    assert payload["tool_name"] == "MultiEdit"
    assert payload["tool_input"] == {
        "file_path": str(env),
        "edits": edits,  # as the model sent them: no defaults filled in
    }


async def test_a_multi_edit_the_hook_allows_is_made_whole(lab: Lab, tmp_path: Path) -> None:
    target = lab.work / "app.py"
    target.write_text("a = 1\nb = 2\n", encoding="utf-8")
    guard = script(lab.home / "guard.py", RECORD_AND_GUARD, shebang="#!/usr/bin/env python3")
    hooks = lab.hooks(_hook("MultiEdit", f"python3 {guard} {tmp_path / 'seen.json'}"))
    edits = [
        {"old_string": "a = 1", "new_string": "a = 10"},
        {"old_string": "b = 2", "new_string": "b = 20"},
    ]
    calls = [
        {"id": "r", "name": "Read", "arguments": {"file_path": "app.py"}},
        {"id": "m", "name": "MultiEdit", "arguments": {"file_path": "app.py", "edits": edits}},
    ]
    events = await collect(_agent(lab, calls, hooks), "go")
    assert not of_type(events, "tool_rejected")
    assert target.read_text() == "a = 10\nb = 20\n"
    result = next(e for e in of_type(events, "tool_result") if e.id == "m")
    assert result.name == "edit_file"
    assert "-a = 1\n-b = 2\n+a = 10\n+b = 20" in result.data["diff"]  # the card's one diff
