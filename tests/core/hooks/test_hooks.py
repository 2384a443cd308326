"""Hooks with real hook scripts (shell files in tmp), real tools and the real pipeline."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.hooks import Hooks, load_hooks
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import project_settings_path, user_settings_path
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.builtin import default_registry
from tests.core.helpers import collect, of_type, write_script


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def _write(path: Path, section: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": section}), encoding="utf-8")


def _agent(cwd: Path, turns: list[dict[str, Any]], hooks: Hooks, **kw: Any) -> Agent:
    provider = ScriptProvider(write_script(cwd / "script.json", turns))
    policy = build_pipeline(cwd, mode="bypass", deny=kw.pop("deny", ())).pipeline
    return Agent(provider, default_registry(), cwd, policy=policy, hooks=hooks, **kw)


def _write_call(path: str, content: str = "x") -> list[dict[str, Any]]:
    args = {"path": path, "content": content}
    return [
        {"tool_calls": [{"id": "w", "name": "write_file", "arguments": args}]},
        {"text": "done"},
    ]


def _read_json(path: str) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _user_hooks(cwd: Path, section: dict[str, Any]) -> Hooks:
    _write(user_settings_path(), section)
    return load_hooks(cwd, ProjectTrust(cwd))


async def test_exit_2_blocks_with_stderr_as_reason(tmp_path: Path) -> None:
    hook = _script(tmp_path / "h.sh", "cat > \"$0.in\"; echo 'no writes today' >&2; exit 2\n")
    hooks = _user_hooks(tmp_path, {"PreToolUse": [{"matcher": "Write", "command": hook}]})
    events = await collect(_agent(tmp_path, _write_call("out.txt"), hooks), "go")
    rejected = of_type(events, "tool_rejected")
    assert rejected
    assert rejected[0].by == "hook"
    assert "no writes today" in rejected[0].reason
    assert not (tmp_path / "out.txt").exists()
    sent = _read_json(hook + ".in")
    assert sent["hook_event_name"] == "PreToolUse"
    assert sent["tool_name"] == "Write"  # as Claude Code names it, with its field names
    assert sent["tool_input"]["file_path"] == str(tmp_path / "out.txt")
    assert sent["tool_use_id"] == "w"
    assert sent["cwd"] == str(tmp_path)
    assert sent["permission_mode"] == "bypassPermissions"
    assert of_type(events, "hook")[0].outcome == "blocked"


async def test_json_deny_blocks_in_claude_code_shape(tmp_path: Path) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "policy says no",
        }
    }
    hook = _script(tmp_path / "h.sh", f"echo '{json.dumps(answer)}'\n")
    section = {
        "PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": hook}]}]
    }
    hooks = _user_hooks(tmp_path, section)
    events = await collect(_agent(tmp_path, _write_call("out.txt"), hooks), "go")
    rejected = of_type(events, "tool_rejected")
    assert rejected[0].by == "hook"
    assert "policy says no" in rejected[0].reason
    assert not (tmp_path / "out.txt").exists()


async def test_rewritten_input_runs_and_is_judged_again(tmp_path: Path) -> None:
    def rewrite(path: str) -> str:
        answer = {
            "hookSpecificOutput": {
                "permissionDecision": "allow",
                "updatedInput": {"path": path, "content": "rewritten"},
            }
        }
        return _script(tmp_path / f"h{len(path)}.sh", f"echo '{json.dumps(answer)}'\n")

    hooks = _user_hooks(tmp_path, {"PreToolUse": [{"command": rewrite("safe.txt")}]})
    await collect(_agent(tmp_path, _write_call("out.txt"), hooks), "go")
    assert (tmp_path / "safe.txt").read_text() == "rewritten"
    assert not (tmp_path / "out.txt").exists()

    hooks = _user_hooks(tmp_path, {"PreToolUse": [{"command": rewrite("secret.txt")}]})
    agent = _agent(tmp_path, _write_call("out2.txt"), hooks, deny=["write_file(secret.txt)"])
    events = await collect(agent, "go")
    assert not (tmp_path / "secret.txt").exists()  # the deny rule judged the rewrite
    assert not (tmp_path / "out2.txt").exists()
    assert of_type(events, "tool_rejected")[0].by == "rule"


async def test_invalid_rewrite_is_refused(tmp_path: Path) -> None:
    answer = {"hookSpecificOutput": {"updatedInput": {"nope": 1}}}
    hook = _script(tmp_path / "h.sh", f"echo '{json.dumps(answer)}'\n")
    hooks = _user_hooks(tmp_path, {"PreToolUse": [{"command": hook}]})
    events = await collect(_agent(tmp_path, _write_call("out.txt"), hooks), "go")
    rejected = of_type(events, "tool_rejected")
    assert rejected[0].by == "hook"
    assert "not valid" in rejected[0].reason


async def test_prompt_context_reaches_the_model(tmp_path: Path) -> None:
    hook = _script(tmp_path / "h.sh", "echo 'branch is main'\n")
    hooks = _user_hooks(tmp_path, {"UserPromptSubmit": [{"command": hook}]})
    agent = _agent(tmp_path, [{"text": "ok"}], hooks)
    await collect(agent, "hello")
    provider = agent.provider
    assert isinstance(provider, ScriptProvider)
    last = provider.requests[0].messages[-1]
    assert "branch is main" in str(last.content)
    assert "hello" in str(last.content)


async def test_timeout_ends_cleanly_and_kills_the_group(tmp_path: Path) -> None:
    canary = tmp_path / "late"
    hook = _script(tmp_path / "h.sh", f"(sleep 3; touch {canary}) & sleep 30\n")
    section = {"PreToolUse": [{"command": hook, "timeout": 0.5}]}
    hooks = _user_hooks(tmp_path, section)
    events = await collect(_agent(tmp_path, _write_call("out.txt"), hooks), "go")
    shown = of_type(events, "hook")[0]
    assert shown.outcome == "timeout"
    assert "killed" in shown.message
    # A PreToolUse guard that cannot answer blocks its call (issue 37; test_hook_failures).
    assert not (tmp_path / "out.txt").exists()
    assert "did not finish within 0.5 s" in of_type(events, "tool_rejected")[0].reason
    assert of_type(events, "turn_end")[0].reason == "completed"
    assert not canary.exists()


@pytest.mark.real_trust
async def test_untrusted_project_hooks_do_not_run_until_trusted(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    hook = _script(tmp_path / "h.sh", f"touch {canary}\n")
    _write(project_settings_path(tmp_path), {"UserPromptSubmit": [{"command": hook}]})
    trust = ProjectTrust(tmp_path)
    hooks = load_hooks(tmp_path, trust)
    assert [i.kind for i in trust.pending] == ["hook_file"]
    assert hooks.skipped_warnings()
    agent = _agent(tmp_path, [{"text": "ok"}, {"text": "ok"}], hooks, trust=trust)
    await collect(agent, "one")
    assert not canary.exists()
    await agent.trust_project(list(trust.pending))
    await collect(agent, "two")
    assert canary.exists()
    # remembered: a new session trusts the same file; a changed file asks again
    again = ProjectTrust(tmp_path)
    assert load_hooks(tmp_path, again).specs
    assert not again.pending
    _write(project_settings_path(tmp_path), {"UserPromptSubmit": [{"command": hook + " x"}]})
    changed = ProjectTrust(tmp_path)
    assert not load_hooks(tmp_path, changed).specs
    assert changed.pending


@pytest.mark.real_trust
async def test_project_hook_allow_does_not_skip_an_ask(tmp_path: Path) -> None:
    answer = {"hookSpecificOutput": {"permissionDecision": "allow"}}
    hook = _script(tmp_path / "h.sh", f"echo '{json.dumps(answer)}'\n")
    _write(project_settings_path(tmp_path), {"PreToolUse": [{"command": hook}]})
    trust = ProjectTrust(tmp_path)
    load_hooks(tmp_path, trust)
    trust.trust(list(trust.pending))
    hooks = load_hooks(tmp_path, trust)
    assert hooks.specs
    provider = ScriptProvider(write_script(tmp_path / "s.json", _write_call("out.txt")))
    policy = build_pipeline(tmp_path).pipeline  # default mode: a write asks
    agent = Agent(provider, default_registry(), tmp_path, policy=policy, hooks=hooks)
    events = await collect(agent, "go")  # no asker: headless refusal
    assert of_type(events, "tool_rejected")[0].by == "headless"
    assert not (tmp_path / "out.txt").exists()


async def test_pre_compact_hook_blocks_a_compaction(tmp_path: Path) -> None:
    hook = _script(tmp_path / "h.sh", "echo 'keep it all' >&2; exit 2\n")
    hooks = _user_hooks(tmp_path, {"PreCompact": [{"command": hook}]})
    agent = _agent(tmp_path, [{"text": "a"}, {"text": "b"}, {"text": "c"}], hooks)
    for prompt in ("one", "two", "three"):
        await collect(agent, prompt)
    before = list(agent.messages)
    events = [event async for event in agent.compact()]
    assert events[-1].phase == "failed"
    assert "keep it all" in events[-1].message
    assert agent.messages == before


async def test_session_start_context_goes_with_the_first_prompt(tmp_path: Path) -> None:
    hook = _script(tmp_path / "h.sh", "cat > \"$0.in\"; echo 'tests run with make test'\n")
    hooks = _user_hooks(tmp_path, {"SessionStart": [{"command": hook}]})
    agent = _agent(tmp_path, [{"text": "a"}, {"text": "b"}], hooks)
    await collect(agent, "one")
    await collect(agent, "two")
    provider = agent.provider
    assert isinstance(provider, ScriptProvider)
    assert "make test" in str(provider.requests[0].messages[-1].content)
    assert "make test" not in str(provider.requests[1].messages[-1].content)
    assert _read_json(hook + ".in")["source"] == "startup"


def _two_writes_then_more() -> list[dict[str, Any]]:
    """One request writing a.txt then b.txt (one after the other: write_file is not
    read-only), then a request the model would make next, then its last answer."""
    return [
        {
            "tool_calls": [
                {"id": "a", "name": "write_file", "arguments": {"path": "a.txt", "content": "a"}},
                {"id": "b", "name": "write_file", "arguments": {"path": "b.txt", "content": "b"}},
            ]
        },
        {"tool_calls": [{"id": "c", "name": "write_file", "arguments": {"path": "c.txt"}}]},
        {"text": "done"},
    ]


async def test_continue_false_in_pre_tool_use_stops_the_turn(tmp_path: Path) -> None:
    """Claude Code's ``"continue": false``: nothing more runs (not the call, not the rest of
    the request, no next request), whatever the decision says."""
    answer = {"continue": False, "stopReason": "freeze: release in progress", "decision": "approve"}
    hook = _script(tmp_path / "h.sh", f"cat > /dev/null; echo '{json.dumps(answer)}'\n")
    hooks = _user_hooks(tmp_path, {"PreToolUse": [{"matcher": "Write", "command": hook}]})
    events = await collect(_agent(tmp_path, _two_writes_then_more(), hooks), "go")
    assert not (tmp_path / "a.txt").exists()
    assert not (tmp_path / "b.txt").exists()
    assert not (tmp_path / "c.txt").exists()
    rejected = of_type(events, "tool_rejected")
    assert [r.id for r in rejected] == ["a", "b"]
    assert all(r.by == "hook" for r in rejected)
    assert "freeze: release in progress" in rejected[0].reason
    assert "stopped the turn" in rejected[1].reason
    end = of_type(events, "turn_end")[-1]
    assert end.reason == "completed"
    assert end.turns == 1  # the second request was never made
    shown = of_type(events, "hook")[0]
    assert shown.outcome == "blocked"
    assert shown.message == "freeze: release in progress"


async def test_continue_false_in_post_tool_use_ends_the_turn_after_the_calls(
    tmp_path: Path,
) -> None:
    """The call has run and its result stands; the model is not asked again."""
    answer = {"continue": False, "stopReason": "enough for today"}
    hook = _script(tmp_path / "h.sh", f"cat > /dev/null; echo '{json.dumps(answer)}'\n")
    hooks = _user_hooks(tmp_path, {"PostToolUse": [{"matcher": "Write", "command": hook}]})
    agent = _agent(tmp_path, _two_writes_then_more(), hooks)
    events = await collect(agent, "go")
    assert (tmp_path / "a.txt").read_text() == "a"
    assert (tmp_path / "b.txt").read_text() == "b"  # the request's own calls finish
    assert not (tmp_path / "c.txt").exists()
    assert [r.id for r in of_type(events, "tool_result")] == ["a", "b"]
    end = of_type(events, "turn_end")[-1]
    assert (end.reason, end.turns) == ("completed", 1)
    # the next turn starts clean: the stop was of the request it came in
    more = await collect(agent, "again")
    assert of_type(more, "turn_end")[-1].turns >= 1
