"""``"type": "prompt"`` hooks: the session's model judges the event (a scripted model here,
answering in the request order: the turn, the judge, the turn)."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.hooks.prompts import prompt_text, translate
from tests.core.helpers import collect, of_type
from tests.core.hooks.lab import Lab
from tests.core.hooks.test_claude_code_hooks import _agent

PROMPT = "Block any write to canary.txt. The call: $ARGUMENTS"


def _prompt_hook(lab: Lab) -> Any:
    section = {
        "PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "prompt", "prompt": PROMPT, "timeout": 30}]}
        ]
    }
    return lab.hooks(section)


def _turns(lab: Lab, judged: str) -> list[dict[str, Any]]:
    args = {"path": "canary.txt", "content": "pwned\n"}
    return [
        {"tool_calls": [{"id": "w", "name": "write_file", "arguments": args}]},
        {"text": judged},
        {"text": "done"},
    ]


async def test_a_prompt_hook_that_says_no_blocks_the_call(lab: Lab) -> None:
    judged = '```json\n{"ok": false, "reason": "that is the canary"}\n```'
    agent = _agent(lab, _turns(lab, judged), _prompt_hook(lab))
    events = await collect(agent, "go")
    rejected = of_type(events, "tool_rejected")
    assert rejected[0].by == "hook"
    assert "that is the canary" in rejected[0].reason
    assert lab.canary.read_text() == "alive\n"
    provider: Any = agent.provider
    asked = provider.requests[1]
    assert "Block any write to canary.txt" in asked.messages[0].content
    assert '"tool_name": "Write"' in asked.messages[0].content  # $ARGUMENTS: the event


async def test_an_unreadable_judgement_blocks_the_call(lab: Lab) -> None:
    agent = _agent(lab, _turns(lab, "Sure, looks fine to me!"), _prompt_hook(lab))
    events = await collect(agent, "go")
    assert of_type(events, "tool_rejected")[0].by == "hook"
    assert "not JSON" in of_type(events, "hook")[0].message
    assert lab.canary.read_text() == "alive\n"


async def test_a_prompt_hook_that_says_yes_lets_the_call_run(lab: Lab) -> None:
    agent = _agent(lab, _turns(lab, '{"ok": true}'), _prompt_hook(lab))
    events = await collect(agent, "go")
    assert not of_type(events, "tool_rejected")
    assert lab.canary.read_text() == "pwned\n"


async def test_without_a_model_a_prompt_hook_blocks(lab: Lab) -> None:
    hooks = _prompt_hook(lab)  # not bound to an agent: no model to judge
    payload = {"tool_name": "Write", "tool_input": {"file_path": "x"}}
    verdict = await hooks.run("PreToolUse", payload, tool="write_file")
    assert verdict.blocked
    assert "no model to judge" in verdict.reason


def test_answers_translate_as_claude_code_reads_them() -> None:
    assert prompt_text("check $ARGUMENTS now", "{}") == "check {} now"
    assert prompt_text("check", "{}") == "check\n\n{}"
    deny = json.loads(translate('{"ok": false, "reason": "no"}', "PreToolUse") or "")
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert json.loads(translate('{"ok": false}', "Stop") or "")["decision"] == "block"
    assert json.loads(translate('{"ok": true}', "PreToolUse") or "") == {}
    assert translate("no json here", "Stop") is None
    assert translate('{"something": 1}', "Stop") is None
