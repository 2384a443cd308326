"""Compaction's pieces (``core.compaction``) and its record in a real session file."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.conversation.compaction import (
    Compacted,
    chunks,
    facts_of,
    fold_point,
    is_context_overflow,
    summarize,
)
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.transcript import Message, ToolCall

SPILL = "/data/spills/20261202T061500Z-run_shell-c1-ab12.txt"


def _turn(n: int, *, tool: bool = True) -> list[Message]:
    out = [Message(role="user", content=f"prompt {n}")]
    if tool:
        call = ToolCall(id=f"c{n}", name="read_file", arguments=json.dumps({"path": f"f{n}.py"}))
        out.append(Message(role="assistant", content="", tool_calls=[call]))
        result = Message(role="tool", content=f"body {n}", tool_call_id=f"c{n}", name="read_file")
        out.append(result)
    out.append(Message(role="assistant", content=f"answer {n}"))
    return out


def test_the_fold_ends_before_the_last_turns() -> None:
    messages = [*_turn(1), *_turn(2), *_turn(3)]
    point = fold_point(messages, keep_turns=2)
    assert messages[point].content == "prompt 2"
    assert fold_point(messages, keep_turns=1) == 8  # before "prompt 3"
    # fewer turns than asked to keep: keeps fewer, still folds something
    assert messages[fold_point(messages[:8], keep_turns=5)].content == "prompt 2"


def test_one_long_turn_folds_inside_it_never_between_a_call_and_its_result() -> None:
    messages = [Message(role="user", content="do it all")]
    for n in range(4):
        call = ToolCall(id=f"c{n}", name="read_file", arguments=json.dumps({"path": f"f{n}"}))
        messages.append(Message(role="assistant", tool_calls=[call]))
        messages.append(Message(role="tool", content="x", tool_call_id=f"c{n}", name="read_file"))
    point = fold_point(messages)
    assert messages[point].role == "assistant"
    kept = messages[point:]
    ids = {c.id for m in kept for c in m.tool_calls}
    assert ids == {m.tool_call_id for m in kept if m.role == "tool"}
    # an unanswered call at the end (the turn is still running) is never where it splits
    last = messages[-1]
    unanswered = [*messages[:-1]]
    point = fold_point(unanswered)
    assert unanswered[point].tool_calls[0].id != last.tool_call_id
    assert fold_point([Message(role="user", content="only")]) == 0


def test_facts_list_the_files_and_spills_the_folded_calls_touched() -> None:
    write = ToolCall(id="w", name="write_file", arguments=json.dumps({"path": "src/a.py"}))
    messages = [
        *_turn(1),
        Message(role="assistant", tool_calls=[write]),
        Message(role="tool", content=f"saved; full output in {SPILL}", tool_call_id="w"),
    ]
    facts = facts_of(messages)
    assert facts.read == ("f1.py",)
    assert facts.changed == ("src/a.py",)
    assert facts.spills == (SPILL,)


def test_chunks_fit_the_window_and_cap_each_tool_result() -> None:
    messages = [
        Message(role="user", content="go"),
        Message(role="tool", content="y" * 50_000, tool_call_id="1", name="run_shell"),
        *[Message(role="assistant", content="z" * 3_000) for _ in range(40)],
    ]
    pieces = chunks(messages, window_tokens=8_000)
    assert len(pieces) > 1
    assert all(len(p) <= 8_000 * 0.6 * 4 + 8_200 for p in pieces)
    assert "48,000 more characters not shown" in pieces[0]


async def test_summarize_carries_the_summary_from_chunk_to_chunk() -> None:
    asked: list[str] = []

    async def ask(system: str, text: str) -> AsyncIterator[str]:
        asked.append(text)
        yield f"summary {len(asked)}"

    messages = [*_turn(1), *[Message(role="assistant", content="z" * 5_000) for _ in range(10)]]
    messages += [Message(role="tool", content=f"see {SPILL}", tool_call_id="x")]
    messages += _turn(2)
    end = fold_point(messages, keep_turns=1)
    summary = await summarize(messages, end, ask, window_tokens=8_000, focus="the parser bug")
    assert summary.requests == len(asked) > 1
    assert "summary 1" in asked[1]  # the running summary goes into the next request
    assert all("the parser bug" in a for a in asked)
    content = summary.message.content
    assert f"summary {len(asked)}" in content
    assert SPILL in content  # the pointer survives, whatever the model wrote
    assert "read: f1.py" in content
    assert summary.message.folded == end


@pytest.mark.parametrize(
    ("message", "status", "overflow"),
    [
        ("This model's maximum context length is 128000 tokens. However, ...", 400, True),
        ('{"error": {"code": "context_length_exceeded"}}', 400, True),
        ("prompt is too long: 210000 tokens > 200000 maximum", 400, True),
        ("the input length exceeds the context length", 500, True),
        ("the request exceeds the available context size", 400, True),
        ("rate limit exceeded", 429, False),
        ("maximum context length", 401, False),
        ("invalid api key", 401, False),
    ],
)
def test_overflow_spellings(message: str, status: int, overflow: bool) -> None:
    assert is_context_overflow(message, status) is overflow


def test_a_compaction_record_rebuilds_the_transcript_when_the_file_is_read(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, "demo")
    for message in [*_turn(1), *_turn(2), *_turn(3)]:
        session.append(message)
    end = fold_point(session.messages, keep_turns=1)
    summary = session.compact(Compacted(folded=end, summary=f"what happened; {SPILL}"))
    assert summary.folded == end
    assert session.messages[0] == summary
    assert [m.content for m in session.messages[1:]] == ["prompt 3", "", "body 3", "answer 3"]
    session.append(Message(role="user", content="prompt 4"))
    loaded = SessionLog.load(session.path)
    assert loaded.messages == session.messages
    assert [m.content for m in loaded.folded][:1] == ["prompt 1"]
    assert len(loaded.folded) == end
    assert loaded.compactions[0].folded == end
    # the file still has every message
    lines = [json.loads(x) for x in session.path.read_text().splitlines()]
    assert sum(1 for x in lines if x["type"] == "message") == 13


async def test_tools_search_tool_found_stay_unmasked_after_compaction(tmp_path: Path) -> None:
    """A peer's regression: after compaction the deferred tools found earlier were masked
    again, and the model's next call of one failed."""
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.disclosure import Disclosure
    from agent_tui.core.providers.script import ScriptProvider
    from tests.core.disclosure.catalog import catalog_tools, registry_with

    search = {"name": "search_tool", "arguments": {"query": "weather forecast"}}
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "turns": [
                    {"tool_calls": [{"id": "s1", **search}]},
                    {"text": "found it"},
                    {"text": "second answer"},
                    {"text": "## Goal\nthe summary"},
                ]
            }
        )
    )
    registry = registry_with(catalog_tools())
    disclosure = Disclosure(registry, protocol="strict")
    agent = Agent(ScriptProvider(script), registry, tmp_path, disclosure=disclosure, system="t")
    [e async for e in agent.run("find a weather tool")]
    [e async for e in agent.run("and then?")]
    assert "mcp__weather__get_forecast" in disclosure.unmasked
    steps = [e async for e in agent.compact()]
    assert steps[-1].type == "compaction"
    assert steps[-1].phase == "end"  # type: ignore[union-attr]
    assert agent.messages[0].folded
    assert "mcp__weather__get_forecast" in disclosure.unmasked
    disclosure.protocol = "strict"
    assert "mcp__weather__get_forecast" in disclosure.view().anthropic_tools_json()


async def test_a_spilled_output_stays_readable_after_compaction(tmp_path: Path) -> None:
    """The folded result pointed to a spill file; the summary lists it, so the cleanup keeps
    the file (nothing but the summary refers to it here: no session file), whole."""
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.permissions import SimplePolicy
    from agent_tui.core.providers.script import ScriptProvider
    from agent_tui.core.settings import Settings
    from agent_tui.core.tools.builtin import default_registry

    shell = {"name": "run_shell", "arguments": {"command": "seq 1 200000"}}
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "turns": [
                    {"tool_calls": [{"id": "s1", **shell}]},
                    {"text": "a long list"},
                    {"text": "ok"},
                    {"text": "## Goal\ncount"},
                ]
            }
        )
    )
    work = tmp_path / "work"
    work.mkdir()
    settings = Settings.model_validate(
        {"sandbox": {"mode": "off"}, "budget": {"spill_dir": str(tmp_path / "spills")}}
    )
    agent = Agent(
        ScriptProvider(script),
        default_registry(),
        work,
        policy=SimplePolicy(["run_shell"]),
        settings=settings,
        system="t",
    )
    events = [e async for e in agent.run("count")]
    (spill,) = [e for e in events if e.type == "spill"]
    path = Path(spill.abs_path)  # type: ignore[attr-defined]
    [e async for e in agent.run("and?")]
    [e async for e in agent.compact()]
    assert agent.messages[0].folded
    assert str(path) in agent.messages[0].content
    report = await agent.collect_spills(grace=0)
    assert path not in report.deleted
    text = await asyncio.to_thread(path.read_text, encoding="utf-8")
    assert text.splitlines()[-1] == "200000"  # there, and whole, as spilled
