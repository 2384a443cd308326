"""The built-ins deferred with the MCP tools (web_fetch, update_plan, task), called through
run_tool by a scripted model in the real loop: the plan still reaches the user, a subagent still
runs, and a deferred tool is judged exactly as a direct call — the same private-address refusal,
the same ask naming the tool, the same domain rule, the same PreToolUse hook (a real script)."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.events import (
    Event,
    PermissionRequest,
    PlanEvent,
    ToolErrorEvent,
    ToolRejected,
    ToolResult,
)
from agent_tui.core.hooks import load_hooks
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    PermissionPipeline,
    RuleSet,
    SimplePolicy,
)
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import user_settings_path
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.subagents import install, load_agents
from agent_tui.core.transcript import ToolCall
from tests.core.disclosure.catalog import catalog_tools, registry_with
from tests.core.subagents.helpers import Routed, reply, step
from tests.core.tools.web_server import web_server

STEPS = [
    {"content": "read the code", "status": "completed"},
    {"content": "fix the bug", "status": "in_progress"},
    {"content": "run the tests"},
]


@pytest.fixture
def server() -> Iterator[Any]:
    with web_server() as running:
        yield running


def _deferring(tmp_path: Path) -> tuple[Any, Disclosure]:
    registry = registry_with(catalog_tools())
    disclosure = Disclosure(registry)
    deferred = {t.name for t in disclosure.deferred()}
    assert {"web_fetch", "update_plan"} <= deferred
    assert not deferred & {t.name for t in disclosure.exposed()}
    return registry, disclosure


def _proxied(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": "run_tool", "arguments": {"name": name, "input": arguments}}


async def _run(
    tmp_path: Path,
    calls: list[dict[str, Any]],
    policy: Any,
    *,
    asked: list[str] | None = None,
    hooks: bool = False,
) -> list[Event]:
    registry, disclosure = _deferring(tmp_path)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"tool_calls": calls}, {"text": "ok"}]}))

    async def deny(request: ApprovalRequest) -> Approval:
        if asked is not None:
            asked.append(request.call.id)
        return Approval(allowed=False)

    agent = Agent(ScriptProvider(script), registry, tmp_path, policy=policy, asker=deny,
                  disclosure=disclosure, system="test")  # fmt: skip
    if hooks:
        agent.executor.hooks = load_hooks(tmp_path, ProjectTrust(tmp_path))
    events = [event async for event in agent.run("go")]
    await agent.close()
    return events


async def test_update_plan_through_run_tool_updates_the_plan_and_survives_resume(
    tmp_path: Path,
) -> None:
    registry, disclosure = _deferring(tmp_path)
    script = tmp_path / "script.json"
    calls = [_proxied("p1", "update_plan", {"plan": STEPS})]
    script.write_text(json.dumps({"turns": [{"tool_calls": calls}, {"text": "ok"}]}))
    policy = PermissionPipeline(tmp_path)
    agent = Agent(ScriptProvider(script), registry, tmp_path,
                  policy=policy, disclosure=disclosure, system="test")  # fmt: skip
    events = [event async for event in agent.run("plan it")]
    assert not [e for e in events if isinstance(e, PermissionRequest)]  # never asks
    result = next(e for e in events if isinstance(e, ToolResult))
    # named as the tool that ran, not the proxy (issue 41, item 7)
    assert (result.name, result.ran, result.is_error) == ("update_plan", None, False)
    plans = [e for e in events if isinstance(e, PlanEvent)]
    assert [(s.content, s.status) for s in plans[0].steps] == [
        ("read the code", "completed"),
        ("fix the bug", "in_progress"),
        ("run the tests", "pending"),
    ]
    plan = agent.plan
    assert plan is not None
    assert [s.content for s in plan.steps] == [s["content"] for s in STEPS]
    replayed = [e for e in transcript_events(agent.history()) if isinstance(e, PlanEvent)]
    assert [s.content for s in replayed[0].steps] == [s["content"] for s in STEPS]
    await agent.close()


async def test_a_private_address_is_refused_through_run_tool_as_directly(tmp_path: Path) -> None:
    url = "http://169.254.169.254/latest/meta-data/"
    for how, calls in (
        ("direct", [{"id": "m", "name": "web_fetch", "arguments": {"url": url}}]),
        ("proxied", [_proxied("m", "web_fetch", {"url": url})]),
    ):
        asked: list[str] = []
        work = tmp_path / how
        work.mkdir()
        events = await _run(work, calls, PermissionPipeline(work), asked=asked)
        errors = [(e.id, e.code) for e in events if isinstance(e, ToolErrorEvent)]
        assert errors == [("m", "private_address")], how
        assert asked == [], how
        assert not [e for e in events if isinstance(e, ToolResult)], how


async def test_a_public_host_asks_naming_web_fetch_and_a_refusal_runs_nothing(
    tmp_path: Path,
) -> None:
    asked: list[str] = []
    calls = [_proxied("p", "web_fetch", {"url": "https://example.org/"})]
    events = await _run(tmp_path, calls, PermissionPipeline(tmp_path), asked=asked)
    assert asked == ["p"]
    requests = [e for e in events if isinstance(e, PermissionRequest)]
    assert [(r.name, r.input["url"]) for r in requests] == [("web_fetch", "https://example.org/")]
    assert [e.by for e in events if isinstance(e, ToolRejected)] == ["user"]
    assert not [e for e in events if isinstance(e, ToolResult)]


async def test_a_domain_rule_for_web_fetch_allows_it_through_run_tool(
    tmp_path: Path, server: Any
) -> None:
    base = f"http://127.0.0.1:{server.server_address[1]}"
    rules = RuleSet(allow=[Rule.parse("web_fetch(domain:127.0.0.1)")])
    asked: list[str] = []
    calls = [_proxied("w", "web_fetch", {"url": f"{base}/page"})]
    events = await _run(tmp_path, calls, PermissionPipeline(tmp_path, rules), asked=asked)
    assert asked == []
    result = next(e for e in events if isinstance(e, ToolResult))
    assert (result.name, result.is_error) == ("web_fetch", False)
    assert "# Parser notes" in result.content


async def test_a_pre_tool_use_hook_on_web_fetch_blocks_it_through_run_tool(
    tmp_path: Path, server: Any
) -> None:
    """The user's hook for web_fetch sees the call as web_fetch, and its block holds, even
    where a rule (here: every tool allowed) would let the call run."""
    hook = tmp_path / "block.sh"
    hook.write_text("#!/bin/sh\ncat >> \"$0.seen\"; echo 'no fetching' >&2; exit 2\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    settings = user_settings_path()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "web_fetch", "command": str(hook)}]}})
    )
    base = f"http://127.0.0.1:{server.server_address[1]}"
    calls = [_proxied("w", "web_fetch", {"url": f"{base}/page"})]
    events = await _run(tmp_path, calls, SimplePolicy(["*"]), hooks=True)
    rejected = [e for e in events if isinstance(e, ToolRejected)]
    assert [(e.id, e.by) for e in rejected] == [("w", "hook")]
    assert "no fetching" in rejected[0].reason
    seen = json.loads(Path(str(hook) + ".seen").read_text().splitlines()[0])  # noqa: ASYNC240
    assert seen["tool_name"] == "WebFetch"  # Claude Code's name; the matcher is ours
    assert not [e for e in events if isinstance(e, ToolResult)]


async def test_task_through_run_tool_runs_its_subagent(tmp_path: Path) -> None:
    registry, disclosure = _deferring(tmp_path)
    provider = Routed(
        [
            step(
                reply(
                    "",
                    ToolCall(
                        id="t1",
                        name="run_tool",
                        arguments=json.dumps(
                            {
                                "name": "task",
                                "input": {"description": "look around", "prompt": "research X"},
                            }
                        ),
                    ),
                )
            ),
            step(reply("done")),
        ],
        {"research X": [step(reply("X is in x.py"))]},
    )
    agent = Agent(provider, registry, tmp_path, policy=SimplePolicy(), disclosure=disclosure,
                  system="You are the parent.")  # fmt: skip
    install(agent, load_agents(tmp_path, user_dir=tmp_path / "user"))
    assert "task" in {t.name for t in disclosure.deferred()}
    assert "task" not in {t.name for t in disclosure.exposed()}
    events = [event async for event in agent.run("go")]
    await agent.close()
    result = next(e for e in events if isinstance(e, ToolResult) and e.id == "t1")
    assert result.name == "task"
    assert result.subagent is not None
    assert "X is in x.py" in result.content
