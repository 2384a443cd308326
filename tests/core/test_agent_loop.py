"""The agent loop over the script provider and a registry of small real tools."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import ToolProgress
from agent_tui.core.permissions import Approval, ApprovalRequest, Scope, SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools import (
    ProgressUpdate,
    Tool,
    ToolContext,
    ToolInput,
    ToolMeta,
    ToolOutput,
    ToolRegistry,
)
from tests.core.helpers import collect, of_type, write_script


class EchoIn(ToolInput):
    text: str
    delay: float = 0.0


async def _echo(inp: EchoIn, ctx: ToolContext) -> ToolOutput:
    ctx.progress(ProgressUpdate(lines=(f"echoing {inp.text}",)))
    if inp.delay:
        await asyncio.sleep(inp.delay)
    return ToolOutput(content=inp.text)


class TouchIn(ToolInput):
    path: str


async def _touch(inp: TouchIn, ctx: ToolContext) -> ToolOutput:
    ctx.resolve(inp.path).write_text("touched")
    return ToolOutput(content=f"touched {inp.path}")


class HangIn(ToolInput):
    pass


HANG_STARTED = "hang started"


async def _hang(inp: HangIn, ctx: ToolContext) -> ToolOutput:
    ctx.progress(ProgressUpdate(message=HANG_STARTED))
    await asyncio.sleep(3600)
    return ToolOutput(content="never")


def registry() -> ToolRegistry:
    safe = ToolMeta(read_only=True, concurrency_safe=True)
    return ToolRegistry(
        [
            Tool("echo", "Echo text back.", EchoIn, _echo, meta=safe),
            Tool("touch", "Create a file.", TouchIn, _touch),
            Tool("hang", "Never finishes.", HangIn, _hang, meta=safe),
        ]
    )


def make_agent(tmp_path: Path, turns: list[dict], **kwargs) -> Agent:  # type: ignore[no-untyped-def]
    provider = ScriptProvider(write_script(tmp_path / "script.json", turns))
    return Agent(provider, registry(), tmp_path, **kwargs)


async def test_text_streams_then_turn_completes(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [{"text": "Hello **there**, friend."}])
    events = await collect(agent, "hi")
    kinds = [e.type for e in events]
    assert kinds[0] == "user_message"
    assert kinds[-1] == "turn_end"
    assert "".join(e.text for e in of_type(events, "assistant_delta")) == "Hello **there**, friend."
    assert len(of_type(events, "assistant_delta")) > 1
    assert events[-1].reason == "completed"
    assert [m.role for m in agent.messages] == ["user", "assistant"]
    assert of_type(events, "usage")[0].session.total_tokens > 0


async def test_real_unknown_and_invalid_json_calls_each_end_and_loop_goes_on(
    tmp_path: Path,
) -> None:
    agent = make_agent(
        tmp_path,
        [
            {
                "text": "Trying three calls.",
                "tool_calls": [
                    {"id": "a", "name": "echo", "arguments": {"text": "hi"}},
                    {"id": "b", "name": "ecoh", "arguments": {"text": "hi"}},
                    {"id": "c", "name": "echo", "raw_arguments": '{"text": "unterminated'},
                    {"id": "d", "name": "echo", "arguments": {"txt": 1}},
                ],
            },
            {"text": "All done."},
        ],
    )
    events = await collect(agent, "go")
    assert [e.id for e in of_type(events, "tool_use")] == ["a", "b", "c", "d"]
    assert [(e.id, e.content) for e in of_type(events, "tool_result")] == [("a", "hi")]
    errors = {e.id: e for e in of_type(events, "tool_error")}
    assert errors["b"].code == "unknown_tool"
    assert "echo" in errors["b"].next_step
    assert errors["c"].code == "invalid_json"
    assert errors["d"].code == "invalid_arguments"
    assert any("$.text" in d for d in errors["d"].details)
    assert any("$.txt" in d for d in errors["d"].details)
    assert events[-1].reason == "completed"
    assert events[-1].text == "All done."
    tool_messages = [m for m in agent.messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["a", "b", "c", "d"]
    assert [m.is_error for m in tool_messages] == [False, True, True, True]
    assert '"code": "unknown_tool"' in tool_messages[1].content


async def test_parallel_group_yields_results_in_request_order(tmp_path: Path) -> None:
    agent = make_agent(
        tmp_path,
        [
            {
                "tool_calls": [
                    {"id": "slow", "name": "echo", "arguments": {"text": "1", "delay": 0.3}},
                    {"id": "fast", "name": "echo", "arguments": {"text": "2"}},
                    {"id": "w", "name": "touch", "arguments": {"path": "f.txt"}},
                ]
            },
            {"text": "ok"},
        ],
        policy=SimplePolicy({"touch"}),
    )
    events = await collect(agent, "go")
    groups = of_type(events, "tool_group")
    assert [g.ids for g in groups] == [["slow", "fast"]]
    order = [e.id for e in events if e.type in ("tool_result", "tool_error")]
    assert order == ["slow", "fast", "w"]
    # progress of the fast call arrives before the slow call's result
    kinds = [(e.type, getattr(e, "id", None)) for e in events]
    assert kinds.index(("tool_progress", "fast")) < kinds.index(("tool_result", "slow"))
    assert (tmp_path / "f.txt").read_text() == "touched"


async def test_headless_policy_rejects_non_read_only_tool(tmp_path: Path) -> None:
    agent = make_agent(
        tmp_path,
        [{"tool_calls": [{"id": "w", "name": "touch", "arguments": {"path": "f"}}]}, {"text": "k"}],
    )
    events = await collect(agent, "go")
    rejected = of_type(events, "tool_rejected")
    assert [r.id for r in rejected] == ["w"]
    assert "--allow 'touch'" in rejected[0].reason
    assert not (tmp_path / "f").exists()
    assert agent.messages[-2].content.startswith("Permission denied")


async def test_asker_denies_with_feedback_and_always_is_remembered(tmp_path: Path) -> None:
    answers = [
        Approval(allowed=False, feedback="use another name"),
        Approval(True, scope=Scope.ALWAYS),
    ]
    asked: list[ApprovalRequest] = []

    async def asker(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return answers.pop(0)

    call = {"name": "touch", "arguments": {"path": "f"}}
    agent = make_agent(
        tmp_path,
        [
            {"tool_calls": [{"id": "1", **call}]},
            {"tool_calls": [{"id": "2", **call}]},
            {"tool_calls": [{"id": "3", **call}]},
            {"text": "done"},
        ],
        asker=asker,
    )
    events = await collect(agent, "go")
    assert [e.id for e in of_type(events, "permission_request")] == ["1", "2"]
    rejected = of_type(events, "tool_rejected")
    assert [(r.id, r.feedback) for r in rejected] == [("1", "use another name")]
    assert [r.id for r in of_type(events, "tool_result")] == ["2", "3"]
    assert len(asked) == 2  # the third call was allowed by the remembered "always"
    assert "use another name" in agent.messages[2].content


async def test_interrupt_during_tool_keeps_transcript_consistent(tmp_path: Path) -> None:
    agent = make_agent(
        tmp_path,
        [
            {
                "tool_calls": [
                    {"id": "h", "name": "hang", "arguments": {}},
                    {"id": "e", "name": "echo", "arguments": {"text": "x", "delay": 30}},
                    {"id": "t", "name": "touch", "arguments": {"path": "never"}},
                ]
            },
            {"text": "unreachable"},
        ],
        policy=SimplePolicy({"touch"}),
    )
    events = []
    async with asyncio.timeout(10):
        async for event in agent.run("go"):
            events.append(event)
            if isinstance(event, ToolProgress) and event.message == HANG_STARTED:
                agent.interrupt()
    errors = of_type(events, "tool_error")
    assert [(e.id, e.code) for e in errors] == [
        ("h", "interrupted"),
        ("e", "interrupted"),
        ("t", "interrupted"),
    ]
    assert events[-1].type == "turn_end"
    assert events[-1].reason == "interrupted"
    assert not (tmp_path / "never").exists()
    calls = [c.id for m in agent.messages for c in m.tool_calls]
    answered = [m.tool_call_id for m in agent.messages if m.role == "tool"]
    assert calls == answered == ["h", "e", "t"]


async def test_interrupt_while_streaming_keeps_partial_text(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [{"text": "one two three four five six", "delay": 0.2}])
    events = []
    async with asyncio.timeout(10):
        async for event in agent.run("go"):
            events.append(event)
            if event.type == "assistant_delta":
                agent.interrupt()
    assert events[-1].type == "turn_end"
    assert events[-1].reason == "interrupted"
    assert agent.messages[-1].role == "assistant"
    assert agent.messages[-1].content.startswith("one")
    assert "interrupted" in agent.messages[-1].content
    # the agent is usable again afterwards
    events = await collect(agent, "again")
    assert events[-1].type == "turn_end"


async def test_max_turns_guard(tmp_path: Path) -> None:
    call = {"name": "echo", "arguments": {"text": "again"}}
    agent = make_agent(tmp_path, [{"tool_calls": [call]}] * 5, max_turns=2)
    events = await collect(agent, "loop")
    assert events[-1].reason == "max_turns"
    assert "max-turns" in of_type(events, "error")[0].message


async def test_provider_error_ends_turn_with_error(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [{"error": "upstream exploded"}])
    events = await collect(agent, "go")
    assert "upstream exploded" in of_type(events, "error")[0].message
    assert events[-1].reason == "error"


async def test_script_end_stops_cleanly(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [{"tool_calls": [{"name": "echo", "arguments": {"text": "a"}}]}])
    events = await collect(agent, "go")
    assert events[-1].reason == "completed"


@pytest.mark.parametrize("bad", ["{not json", '{"turns": [{"tool_calls": [{"nam": "x"}]}]}'])
def test_broken_script_file_is_a_clear_error(tmp_path: Path, bad: str) -> None:
    from agent_tui.core.providers.base import ProviderError

    path = tmp_path / "s.json"
    path.write_text(bad)
    with pytest.raises(ProviderError, match=str(path)):
        ScriptProvider(path)
