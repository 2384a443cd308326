"""Interrupts: everything in flight stops, processes die, and the transcript stays valid for
both wire formats; an approval prompt is part of the turn; discarded calls never leak."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import Event
from agent_tui.core.executor import CallPhase
from agent_tui.core.permissions import Approval, ApprovalRequest, SimplePolicy
from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    StreamItem,
    TextDelta,
    ToolCallReady,
)
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.sandbox import UNCONFINED
from agent_tui.core.tools import ToolRegistry
from agent_tui.core.transcript import ToolCall
from tests.core.executor.helpers import (
    DEADLINE,
    Probe,
    assert_valid_for_anthropic,
    assert_valid_for_openai,
    finals,
    parallel_shell,
    until_gone,
    work_tools,
)
from tests.core.helpers import collect, of_type, write_script


def scripted(
    tmp_path: Path, registry: ToolRegistry, turns: list[dict[str, Any]], **kw: Any
) -> Agent:
    provider = ScriptProvider(write_script(tmp_path / "script.json", turns))
    return Agent(provider, registry, tmp_path, **kw)


def spec(call_id: str, name: str = "work", **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


async def test_an_abort_mid_batch_kills_shells_and_leaves_a_valid_transcript(
    tmp_path: Path,
) -> None:
    probe = Probe()
    registry = ToolRegistry([parallel_shell(), *work_tools(probe)])
    calls = [
        spec("q", tag="q"),
        spec("sh", "run_shell", command="sleep 60 & echo child=$!; wait"),
        spec("h", tag="h", hold=True),
        spec("t", "touch", tag="never.txt"),
        spec("x", "no_such_tool"),
        spec("l", tag="l"),
    ]
    turns = [{"text": "Working on it.", "tool_calls": calls}, {"text": "Fresh start."}]
    agent = scripted(tmp_path, registry, turns, policy=SimplePolicy({"*"}))
    # Unconfined: the PID the shell prints must be the host's (the sandboxed case, where it is
    # the PID namespace's, is tests/core/sandbox: an interrupt ends the command there too).
    agent.executor.sandbox = UNCONFINED
    events: list[Event] = []
    pid: int | None = None
    q_done = interrupted = False
    async with asyncio.timeout(DEADLINE):
        async for event in agent.run("go"):
            events.append(event)
            if event.type == "tool_result" and event.id == "q":
                q_done = True
            if event.type == "tool_progress" and event.id == "sh" and event.tail:
                pid = int(event.tail[0].removeprefix("child="))
            if q_done and pid is not None and not interrupted:
                agent.interrupt()  # mid-batch: q finished, sh and h are running
                interrupted = True
    assert pid is not None
    await until_gone(pid)

    assert finals(events) == [
        ("q", "tool_result"),
        ("sh", "tool_error"),
        ("h", "tool_error"),
        ("t", "tool_error"),
        ("x", "tool_error"),
        ("l", "tool_error"),
    ]
    assert all(e.code == "interrupted" for e in of_type(events, "tool_error"))
    assert events[-1].type == "turn_end"
    assert events[-1].reason == "interrupted"
    assert probe.cancelled == ["h"]
    assert "l" not in probe.calls
    assert not (tmp_path / "never.txt").exists()
    assert set(agent.executor.states.values()) == {CallPhase.YIELDED}
    # exactly one tool message per call, in order, right after the assistant message
    ids = [c["id"] for c in calls]
    assert [c.id for m in agent.messages for c in m.tool_calls] == ids
    assert [m.tool_call_id for m in agent.messages if m.role == "tool"] == ids
    assert_valid_for_openai(agent.messages)
    assert_valid_for_anthropic(agent.messages)
    # and the next request is valid too
    more = await collect(agent, "again")
    assert more[-1].reason == "completed"
    assert_valid_for_openai(agent.messages)
    assert_valid_for_anthropic(agent.messages)


async def test_an_interrupt_cancels_the_wait_for_approval(tmp_path: Path) -> None:
    probe = Probe()
    asked = asyncio.Event()
    cancelled: list[str] = []

    async def asker(request: ApprovalRequest) -> Approval:
        asked.set()
        try:
            await asyncio.Event().wait()  # the user never answers
        except asyncio.CancelledError:
            cancelled.append(request.call.id)
            raise
        raise AssertionError("unreachable")

    turns = [
        {"tool_calls": [spec("a", "touch", tag="a.txt"), spec("w", tag="w")]},
        {"text": "unreachable"},
    ]
    agent = scripted(tmp_path, ToolRegistry(work_tools(probe)), turns, asker=asker)

    async def user_presses_esc_while_the_prompt_is_open() -> None:
        await asked.wait()
        agent.interrupt()

    esc = asyncio.create_task(user_presses_esc_while_the_prompt_is_open())
    async with asyncio.timeout(DEADLINE):
        events = await collect(agent, "go")
        await esc
    assert cancelled == ["a"]
    assert [e.id for e in of_type(events, "permission_request")] == ["a"]
    assert finals(events) == [("a", "tool_error"), ("w", "tool_error")]
    assert [e.code for e in of_type(events, "tool_error")] == ["interrupted", "interrupted"]
    assert events[-1].reason == "interrupted"
    assert not (tmp_path / "a.txt").exists()
    assert probe.calls == []
    assert not agent.running
    assert_valid_for_openai(agent.messages)
    assert_valid_for_anthropic(agent.messages)


class StallingProvider:
    """Streams a tool call and some text, then hangs before the message completes; the
    second request answers at once."""

    kind: Literal["script"] = "script"
    name = "stalling"

    def __init__(self) -> None:
        self.requests = 0
        self.stalled = asyncio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        self.requests += 1
        if self.requests == 1:
            arguments = json.dumps({"tag": "discarded.txt"})
            yield ToolCallReady(ToolCall(id="early", name="touch", arguments=arguments))
            yield TextDelta("Let me create it")
            self.stalled.set()
            await asyncio.Event().wait()
        yield TextDelta("Fresh.")
        yield Completion(text="Fresh.")

    async def aclose(self) -> None:
        return None


async def test_calls_of_a_message_aborted_mid_stream_never_reach_the_transcript(
    tmp_path: Path,
) -> None:
    probe = Probe()
    provider = StallingProvider()
    agent = Agent(provider, ToolRegistry(work_tools(probe)), tmp_path, policy=SimplePolicy({"*"}))
    events: list[Event] = []
    async with asyncio.timeout(DEADLINE):
        async for event in agent.run("go"):
            events.append(event)
            if event.type == "assistant_delta":
                await provider.stalled.wait()  # the call was streamed before this text
                agent.interrupt()
    assert events[-1].reason == "interrupted"
    assert not [e for e in events if e.type.startswith("tool_")]
    assert all(not m.tool_calls for m in agent.messages)
    assert all(m.role != "tool" for m in agent.messages)
    assert agent.messages[-1].content.startswith("Let me create it")
    assert probe.calls == []
    assert not (tmp_path / "discarded.txt").exists()
    assert_valid_for_openai(agent.messages)
    assert_valid_for_anthropic(agent.messages)
    more = await collect(agent, "again")
    assert more[-1].reason == "completed"


async def test_a_broken_approval_prompt_denies_the_call_and_the_turn_goes_on(
    tmp_path: Path,
) -> None:
    async def asker(request: ApprovalRequest) -> Approval:
        raise RuntimeError("the prompt fell over")

    turns = [{"tool_calls": [spec("a", "touch", tag="a.txt")]}, {"text": "ok"}]
    agent = scripted(tmp_path, ToolRegistry(work_tools(Probe())), turns, asker=asker)
    events = await collect(agent, "go")
    [rejected] = of_type(events, "tool_rejected")
    assert "prompt failed (RuntimeError: the prompt fell over)" in rejected.reason
    assert events[-1].reason == "completed"
    assert not (tmp_path / "a.txt").exists()
