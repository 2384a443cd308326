"""The budget inside the agent loop: events, order, transcript, and paging a spill back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.browse import list_spills
from agent_tui.core.executor import HELD_MESSAGE, STARTED_MESSAGE
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools import (
    ProgressUpdate,
    Tool,
    ToolContext,
    ToolFailure,
    ToolInput,
    ToolMeta,
    ToolOutput,
    ToolRegistry,
)
from agent_tui.core.tools.builtin import read_file
from tests.core.budget.helpers import read_back
from tests.core.helpers import collect, of_type, write_script


class EmitIn(ToolInput):
    size: int = 0
    json_line: bool = False
    fail: bool = False


def make_text(inp: EmitIn) -> str:
    if inp.json_line:  # one huge line of JSON, as `cat export.json` prints it
        rows = [{"id": n, "name": f"user_{n}", "note": 'naïve ☃ "quoted"'} for n in range(inp.size)]
        return json.dumps({"rows": rows}, ensure_ascii=False)
    line = "output line with some words in it .............................\n"
    return (line * (inp.size // len(line) + 1))[: inp.size]


def text_of(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


async def _emit(inp: EmitIn, ctx: ToolContext) -> ToolOutput:
    return ToolOutput(make_text(inp), is_error=inp.fail)


async def _hang(inp: EmitIn, ctx: ToolContext) -> ToolOutput:
    ctx.progress(ProgressUpdate(message="hanging"))
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def _explode(inp: EmitIn, ctx: ToolContext) -> ToolOutput:
    raise ToolFailure("timeout", "Killed. Last lines of output:\n" + make_text(inp) + "\nBOOM")


READ_ONLY = ToolMeta(read_only=True)  # allowed without asking; still one call at a time


def registry() -> ToolRegistry:
    return ToolRegistry(
        [
            Tool("emit", "Print size characters.", EmitIn, _emit, meta=READ_ONLY),
            Tool("explode", "Fail with a long message.", EmitIn, _explode, meta=READ_ONLY),
            Tool("hang", "Never finishes.", EmitIn, _hang, meta=READ_ONLY),
            read_file.TOOL,
        ]
    )


def agent_for(tmp_path: Path, calls: list[dict[str, object]]) -> Agent:
    script = write_script(tmp_path / "script.json", [{"tool_calls": calls}, {"text": "done"}])
    return Agent(ScriptProvider(script), registry(), tmp_path, settings=Settings())


def emit(call_id: str, **arguments: object) -> dict[str, object]:
    return {"id": call_id, "name": "emit", "arguments": arguments}


async def test_a_turn_over_budget_spills_the_largest_and_keeps_the_order(tmp_path: Path) -> None:
    agent = agent_for(
        tmp_path,
        [
            emit("a", size=30_000),
            emit("b", size=70_000),
            emit("c", size=30_000),
            emit("d", size=30_000),
        ],
    )
    events = await collect(agent, "go")
    kinds = ("tool_result", "spill", "tool_progress")
    tools = [e for e in events if e.type in kinds and getattr(e, "message", "") != STARTED_MESSAGE]
    summary = [(e.type, e.id) for e in tools]
    # a waits (it might stay whole); b is over the cap: spilled at once; a, b, c then d are
    # released in order once the turn is known.
    assert summary == [
        ("tool_progress", "a"),
        ("spill", "b"),
        ("tool_progress", "c"),
        ("tool_result", "a"),
        ("tool_result", "b"),
        ("tool_result", "c"),
        ("tool_result", "d"),
    ]
    assert tools[0].message == HELD_MESSAGE
    spill = tools[1]
    assert (spill.chars, spill.reason) == (70_000, "budget")
    assert text_of(spill.abs_path) == make_text(EmitIn(size=70_000))
    results = of_type(events, "tool_result")
    assert [r.spill is not None for r in results] == [False, True, False, False]
    assert results[1].spill.path == spill.path
    assert results[1].spill.lines == spill.lines
    assert len(results[1].content) < 3_000
    assert spill.path in results[1].content
    # the transcript holds exactly what the events showed
    tool_messages = [m for m in agent.messages if m.role == "tool"]
    assert [m.content for m in tool_messages] == [r.content for r in results]


async def test_a_long_tool_error_is_spilled_tail_first(tmp_path: Path) -> None:
    agent = agent_for(tmp_path, [{"id": "x", "name": "explode", "arguments": {"size": 80_000}}])
    events = await collect(agent, "go")
    [error] = of_type(events, "tool_error")
    [spill] = of_type(events, "spill")
    assert error.spill is not None
    assert error.spill.path == spill.path
    assert error.code == "timeout"
    assert error.message.count("BOOM") == 1
    assert len(error.message) < 3_000
    message = next(m for m in agent.messages if m.role == "tool")
    model_view = json.loads(message.content)
    assert model_view["code"] == "timeout"
    assert spill.path in model_view["error"]
    assert text_of(spill.abs_path).endswith("\nBOOM")


async def test_a_spill_keeps_a_one_line_summary_of_its_calls_input(tmp_path: Path) -> None:
    agent = agent_for(
        tmp_path,
        [emit("big", size=70_000), {"id": "x", "name": "explode", "arguments": {"size": 80_000}}],
    )
    await collect(agent, "go")
    # Listed without the transcript (a later session): the summaries come from the index.
    entries = {e.call_id: e for e in list_spills(agent.spills)}
    assert entries["big"].summary == '{"size": 70000}'  # what the call's card shows
    assert entries["x"].summary == '{"size": 80000}'  # a failed call's spill too


async def test_a_2mb_single_line_spill_is_readable_to_its_end(tmp_path: Path) -> None:
    agent = agent_for(tmp_path, [emit("j", size=31_000, json_line=True)])
    events = await collect(agent, "go")
    [spill] = of_type(events, "spill")
    [result] = of_type(events, "tool_result")
    text = make_text(EmitIn(size=31_000, json_line=True))
    assert len(text) > 2_000_000
    assert "\n" not in text
    assert result.spill.lines == 1
    assert result.spill.chars == len(text)
    assert "offset=1" in result.content
    first = await read_file.TOOL.call(
        read_file.ReadFileInput(path=spill.path), ToolContext(cwd=tmp_path)
    )
    footer = first.content.rsplit("\n", 1)[1]
    assert f'read on with read_file(path="{spill.path}", offset=1, char_offset=2000)' in footer
    # every window, as the footers direct, until the end: the exact text
    assert await read_back(ToolContext(cwd=tmp_path), spill.path) == text


async def test_read_file_results_are_never_spilled(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text(("w" * 1990 + "\n") * 300)
    agent = agent_for(
        tmp_path,
        [
            {"id": "r", "name": "read_file", "arguments": {"path": "wide.txt"}},
            emit("e", size=20_000),
        ],
    )
    events = await collect(agent, "go")
    read, emitted = of_type(events, "tool_result")
    assert read.spill is None
    assert len(read.content) > 90_000
    assert emitted.spill is not None  # the turn is over 100,000: the spillable one goes


async def test_close_deletes_spills_nothing_refers_to(tmp_path: Path) -> None:
    agent = agent_for(tmp_path, [emit("a", size=60_000), emit("b", size=60_000)])
    events = await collect(agent, "go")
    kept, dropped = (Path(e.abs_path) for e in of_type(events, "spill"))
    # the transcript shrinks (as compaction would): the second pointer is gone
    agent.messages = [m for m in agent.messages if dropped.name not in m.content]
    report = await agent.collect_spills(grace=0)
    assert report.deleted == [dropped]
    assert not dropped.exists()
    assert kept.exists()
    agent.messages = []
    assert (await agent.collect_spills()).young == [kept]  # too young: kept for now
    assert kept.exists()
    await agent.close()
    assert agent.closed
    assert await agent.close() is None


async def test_an_interrupt_releases_a_held_result_whole(tmp_path: Path) -> None:
    agent = agent_for(tmp_path, [emit("a", size=30_000), {"id": "h", "name": "hang"}])
    events = []
    async for event in agent.run("go"):
        events.append(event)
        if event.type == "tool_progress" and event.message == "hanging":
            agent.interrupt()
    kinds = [(e.type, getattr(e, "id", None)) for e in events if e.type.startswith("tool_")]
    assert ("tool_progress", "a") in kinds  # held while the next call ran
    assert kinds[-2:] == [("tool_result", "a"), ("tool_error", "h")]
    assert events[-1].type == "turn_end"
    assert events[-1].reason == "interrupted"
    contents = {m.tool_call_id: m.content for m in agent.messages if m.role == "tool"}
    assert contents["a"] == make_text(EmitIn(size=30_000))
    assert "interrupted" in contents["h"]
