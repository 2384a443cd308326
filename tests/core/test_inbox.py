"""Type-ahead at the next tool boundary: the agent's inbox, where the loop drains it, what the
model then sees in both wire formats, and how the transcript tells it again."""

from __future__ import annotations

import threading
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.agent.inbox import Inbox
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.rewind import list_turns
from agent_tui.core.events import Event, UserInjected
from agent_tui.core.providers.anthropic import to_anthropic_messages
from agent_tui.core.providers.openai import to_openai_messages
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput, ToolRegistry
from tests.core.helpers import write_script


class TypeIn(ToolInput):
    text: str = ""


def make_agent(tmp_path: Path, turns: list[dict[str, object]]) -> tuple[Agent, ScriptProvider]:
    """An agent whose ``type`` tool injects its ``text`` while it runs: the user typing
    during a call."""
    holder: list[Agent] = []

    async def _type(inp: TypeIn, ctx: ToolContext) -> ToolOutput:
        if inp.text:
            holder[0].inject(inp.text)
        return ToolOutput(content="typed")

    registry = ToolRegistry([Tool("type", "Types.", TypeIn, _type, meta=ToolMeta(read_only=True))])
    provider = ScriptProvider(write_script(tmp_path / "script.json", turns))
    agent = Agent(provider, registry, tmp_path, system="test")
    holder.append(agent)
    return agent, provider


def call(text: str, id: str = "t1") -> dict[str, object]:
    return {"name": "type", "id": id, "arguments": {"text": text}}


async def run(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run(prompt)]


def test_inbox_is_first_in_first_out_and_withdraws_by_id() -> None:
    inbox = Inbox()
    first = inbox.put("one")
    second = inbox.put("two", "mine")
    assert second == "mine"
    assert [p.text for p in inbox.pending()] == ["one", "two"]
    assert inbox.withdraw(first)
    assert not inbox.withdraw(first)
    assert len(inbox) == 1
    assert [(p.id, p.text) for p in inbox.drain()] == [("mine", "two")]
    assert len(inbox) == 0


def test_inbox_takes_puts_from_other_threads() -> None:
    inbox = Inbox()
    threads = [
        threading.Thread(target=lambda n=n: [inbox.put(f"{n}-{i}") for i in range(200)])
        for n in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({p.id for p in inbox.drain()}) == 800


async def test_an_injected_message_follows_the_tool_results_before_the_next_request(
    tmp_path: Path,
) -> None:
    agent, provider = make_agent(
        tmp_path,
        [{"text": "Typing.", "tool_calls": [call("also check the tests")]}, {"text": "Ok."}],
    )
    events = await run(agent, "start")
    kinds = [e.type for e in events]
    assert kinds.index("tool_result") < kinds.index("user_injected") < kinds.index("turn_end")
    injected = next(e for e in events if isinstance(e, UserInjected))
    assert injected.text == "also check the tests"
    assert injected.id
    second = provider.requests[1].messages
    assert [(m.role, m.content) for m in second[-2:]] == [
        ("tool", "typed"),
        ("user", "also check the tests"),
    ]
    assert second[-1].injected
    assert len(agent.inbox) == 0
    # OpenAI format: a user message after the tool messages (legal there)
    wire = to_openai_messages("", second)
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "user"]
    # Anthropic format: the text joins the user turn that carries the tool_result blocks,
    # after them (roles must alternate; tool results come first in their turn)
    anthropic = to_anthropic_messages(second)
    assert [m["role"] for m in anthropic] == ["user", "assistant", "user"]
    assert [b["type"] for b in anthropic[-1]["content"]] == ["tool_result", "text"]
    assert anthropic[-1]["content"][1]["text"] == "also check the tests"


async def test_without_a_boundary_left_the_message_waits_for_the_next_turn(
    tmp_path: Path,
) -> None:
    agent, _provider = make_agent(tmp_path, [{"text": "No tools."}, {"text": "Then."}])
    agent.inject("later")
    events = await run(agent, "start")
    assert not [e for e in events if isinstance(e, UserInjected)]
    assert [p.text for p in agent.inbox.pending()] == ["later"]
    assert all(m.role != "user" or m.content == "start" for m in agent.messages)


async def test_max_turns_leaves_the_message_in_the_inbox(tmp_path: Path) -> None:
    agent, _provider = make_agent(tmp_path, [{"text": "", "tool_calls": [call("late")]}])
    agent.max_turns = 1
    events = await run(agent, "start")
    assert events[-1].type == "turn_end"
    assert not [e for e in events if isinstance(e, UserInjected)]
    assert [p.text for p in agent.inbox.pending()] == ["late"]


async def test_a_new_conversation_empties_the_inbox(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path, [])
    agent.inject("for the old one")
    await agent.new_session()
    assert len(agent.inbox) == 0


async def test_the_transcript_tells_an_injected_message_as_part_of_its_turn(
    tmp_path: Path,
) -> None:
    agent, _ = make_agent(
        tmp_path, [{"text": "", "tool_calls": [call("and this")]}, {"text": "Done."}]
    )
    await run(agent, "start")
    kinds = [e.type for e in transcript_events(agent.messages)]
    assert kinds.count("user_message") == 1
    assert kinds.count("turn_end") == 1
    assert kinds.index("tool_result") < kinds.index("user_injected")
    turns = list_turns(agent.messages, [], tmp_path)
    assert [t.prompt for t in turns] == ["start"]
