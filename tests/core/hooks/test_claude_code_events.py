"""Claude Code's other events, with real hook scripts: ``Notification`` when a permission
prompt opens, ``SessionEnd`` when the agent closes, ``SubagentStop`` when a subagent is done
(a block sends it on, once)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.permissions import Approval, ApprovalRequest
from agent_tui.core.permissions.setup import build_pipeline
from tests.core.helpers import collect, of_type
from tests.core.hooks.lab import Lab, script, shell_call
from tests.core.hooks.test_claude_code_hooks import _agent, _one
from tests.core.subagents.helpers import Routed, call, make_agent, reply, step


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


async def test_notification_hook_runs_when_a_permission_prompt_opens(lab: Lab) -> None:
    seen = lab.root / "notified.json"
    hook = script(lab.root / "notify.sh", f"cat > '{seen}'\n")
    hooks = lab.hooks({"Notification": _one("permission_prompt", str(hook))})
    asked: list[str] = []

    async def deny(request: ApprovalRequest) -> Approval:
        asked.append(request.call.name)
        return Approval(allowed=False, feedback=None)

    agent = _agent(lab, shell_call(f"rm {lab.canary}"), hooks)
    agent.policy = build_pipeline(lab.work).pipeline  # default mode: a command asks
    agent.executor.policy = agent.policy
    events = [e async for e in agent.run("go", asker=deny)]
    assert asked == ["run_shell"]
    sent = _read(seen)
    assert sent["hook_event_name"] == "Notification"
    assert sent["notification_type"] == "permission_prompt"
    assert "permission to use Bash" in sent["message"]
    assert [e.event for e in of_type(events, "hook")] == ["Notification"]
    assert lab.canary.read_text() == "alive\n"  # denied: the prompt still decided


async def test_session_end_hook_runs_when_the_agent_closes(lab: Lab) -> None:
    seen = lab.root / "ended.json"
    hook = script(lab.root / "end.sh", f"cat > '{seen}'\n")
    other = script(lab.root / "clear.sh", f"touch '{lab.root / 'cleared'}'\n")
    section = {"SessionEnd": [*_one("", str(hook)), *_one("clear", str(other))]}
    agent = _agent(lab, [{"text": "hi"}], lab.hooks(section))
    await collect(agent, "go")
    assert not seen.exists()
    await agent.close()
    sent = _read(seen)
    assert (sent["hook_event_name"], sent["reason"]) == ("SessionEnd", "other")
    assert not (lab.root / "cleared").exists()  # its matcher is the reason


async def test_subagent_stop_hook_block_sends_the_subagent_on_once(lab: Lab) -> None:
    seen = lab.root / "subagent.jsonl"
    body = f"cat >> '{seen}'; echo >> '{seen}'; echo 'run the tests too' >&2; exit 2\n"
    hook = script(lab.root / "stop.sh", body)
    provider = Routed(
        [step(reply("", call("task", "t1", description="d", prompt="look"))), step(reply("ok"))],
        {
            # routed by the child's first prompt: its second turn (the hook's reason) too
            "look": [step(reply("first report")), step(reply("tests ran: all green"))],
        },
    )
    agent = make_agent(provider, lab.work)
    agent.executor.hooks = lab.hooks({"SubagentStop": _one("general", str(hook))})
    events = [e async for e in agent.run("go")]
    lines = [json.loads(line) for line in seen.read_text(encoding="utf-8").splitlines() if line]
    assert len(lines) == 1  # once: the subagent is sent on once, as Stop is
    assert lines[0]["agent_type"] == "general"
    assert lines[0]["agent_id"] == "t1"
    (result,) = [e for e in of_type(events, "tool_result") if e.id == "t1"]
    assert "all green" in result.content


async def test_subagent_start_hook_adds_context_to_the_child(lab: Lab) -> None:
    """``SubagentStart`` (matched against the agent's type) sees the agent's id and type; its
    ``additionalContext`` reaches the child's first message; a matcher for another agent does
    not run."""
    seen = lab.root / "started.json"
    body = (
        f"cat > '{seen}'\n"
        'echo \'{"hookSpecificOutput": {"hookEventName": "SubagentStart", '
        '"additionalContext": "Use the staging database only."}}\'\n'
    )
    hook = script(lab.root / "start.sh", body)
    other = script(lab.root / "other.sh", f"touch '{lab.root / 'other-ran'}'\n")
    prompt = "look\n\n<hook-context>\nUse the staging database only.\n</hook-context>"
    provider = Routed(
        [step(reply("", call("task", "t1", description="d", prompt="look"))), step(reply("ok"))],
        {prompt: [step(reply("report"))]},
    )
    agent = make_agent(provider, lab.work)
    section = {"SubagentStart": [*_one("general", str(hook)), *_one("reviewer", str(other))]}
    agent.executor.hooks = lab.hooks(section)
    events = [e async for e in agent.run("go")]
    sent = _read(seen)
    assert sent["hook_event_name"] == "SubagentStart"
    assert (sent["agent_id"], sent["agent_type"]) == ("t1", "general")
    assert [who for who, _ in provider.requests].count(prompt) == 1
    assert not (lab.root / "other-ran").exists()
    assert "SubagentStart" in [e.event for e in of_type(events, "hook")]


async def test_post_compact_hook_sees_the_summary(lab: Lab) -> None:
    seen = lab.root / "compacted.json"
    hook = script(lab.root / "post.sh", f"cat > '{seen}'\n")
    other = script(lab.root / "auto.sh", f"touch '{lab.root / 'auto-ran'}'\n")
    section = {"PostCompact": [*_one("manual", str(hook)), *_one("auto", str(other))]}
    turns = [{"text": t} for t in ("a", "b", "c", "d")] + [{"text": "SUMMARY-4711"}]
    agent = _agent(lab, turns, lab.hooks(section))
    for prompt in ("one", "two", "three", "four"):
        await collect(agent, prompt)
    events = [event async for event in agent.compact()]
    assert events[-1].phase == "end", events[-1]
    sent = _read(seen)
    assert (sent["hook_event_name"], sent["trigger"]) == ("PostCompact", "manual")
    assert "SUMMARY-4711" in sent["compact_summary"]
    assert not (lab.root / "auto-ran").exists()


async def test_stop_failure_hook_runs_when_the_request_fails(lab: Lab) -> None:
    """A turn that ends on a failed model request (Claude Code's ``StopFailure``, matched
    against the kind of error); its answer changes nothing: the turn has failed."""
    seen = lab.root / "failed.json"
    hook = script(lab.root / "failed.sh", f"cat > '{seen}'; exit 2\n")
    other = script(lab.root / "limit.sh", f"touch '{lab.root / 'limit-ran'}'\n")
    section = {"StopFailure": [*_one("unknown", str(hook)), *_one("rate_limit", str(other))]}
    agent = _agent(lab, [{"error": "the upstream broke"}], lab.hooks(section))
    events = await collect(agent, "go")
    (end,) = of_type(events, "turn_end")
    assert end.reason == "error"
    sent = _read(seen)
    assert (sent["hook_event_name"], sent["error"]) == ("StopFailure", "unknown")
    assert "the upstream broke" in sent["error_details"]
    assert not (lab.root / "limit-ran").exists()
    assert [e.event for e in of_type(events, "hook")] == ["StopFailure"]


def test_stop_failure_kinds_are_claude_codes() -> None:
    from agent_tui.core.agent.turn import failure_kind

    assert failure_kind(429, False) == "rate_limit"
    assert failure_kind(401, False) == "authentication_failed"
    assert failure_kind(402, False) == "billing_error"
    assert failure_kind(400, False) == "invalid_request"
    assert failure_kind(400, True) == "invalid_request"
    assert failure_kind(529, False) == "server_error"
    assert failure_kind(None, False) == "unknown"


async def test_session_end_reasons_clear_and_resume(lab: Lab) -> None:
    """``/clear`` ends the old conversation (``clear``), ``/resume`` of another one ends the
    current one (``resume``), the TUI's quit says ``prompt_input_exit``; each hook sees the
    ending conversation's transcript."""
    seen = lab.root / "ended.jsonl"
    hook = script(lab.root / "end.sh", f"cat >> '{seen}'; echo >> '{seen}'\n")
    store = SessionStore(lab.root / "sessions")
    hooks = lab.hooks({"SessionEnd": _one("", str(hook))})
    turns = [{"text": "a"}, {"text": "b"}]
    agent = _agent(lab, turns, hooks, sessions=store, session=store.new(lab.work, "script"))
    await collect(agent, "one")
    first = agent.session
    assert first is not None
    await agent.new_session()
    await collect(agent, "two")
    await agent.resume(first.path)
    await agent.close("prompt_input_exit")
    lines = [json.loads(line) for line in seen.read_text(encoding="utf-8").splitlines() if line]
    assert [line["reason"] for line in lines] == ["clear", "resume", "prompt_input_exit"]
    assert lines[0]["session_id"] == first.id  # the conversation that ended
    assert lines[1]["session_id"] not in ("", first.id)
    assert lines[0]["transcript_path"] != lines[1]["transcript_path"]
