"""Streaming a reply fast: deltas travel batched (a message a frame, not a token, see
``events_bridge.DeltaBatcher``) and the chat writes them at most once a frame; nothing is lost,
reordered or cut on the way, across part splits, tool calls and an interrupt."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.events import AssistantDelta, Event, ToolUse, UserMessage
from agent_tui.ui.chat import AssistantReply, freezer
from agent_tui.ui.chat.frozen_gap import FrozenGap
from agent_tui.ui.chat.notice import Notice
from agent_tui.ui.chat.part_splitter import PART_CHARS
from agent_tui.ui.chat.tool_line import ToolLine
from agent_tui.ui.chat.user_prompt import UserPrompt
from agent_tui.ui.shell.events_bridge import AgentEvent, DeltaBatcher, forward

from .helpers import (
    SIZE,
    QuietApp,
    drawn,
    fence_codes,
    make_agent,
    submit,
    table_count,
    wait_for,
    wait_idle,
)


class CountingApp(QuietApp):
    """Counts the delta messages the app receives."""

    delta_messages = 0

    def on_agent_event(self, message: AgentEvent) -> None:  # QuietApp's runs next
        if isinstance(message.event, AssistantDelta):
            self.delta_messages += 1


def counting_app(tmp_path: Path, turns: list[dict[str, Any]], **kwargs: Any) -> CountingApp:
    return CountingApp(agent=make_agent(tmp_path, turns, **kwargs), cwd_label="~/project")


def chat_text(app: QuietApp) -> str:
    chat = app.main.chat
    return "".join(c.text for c in chat.children if isinstance(c, (AssistantReply, FrozenGap)))


def rendered(app: QuietApp) -> str:
    return "".join(r.source for r in app.main.chat.query(AssistantReply))


TABLE = (
    "| tool | calls | time |\n|------|-------|------|\n| read | 3 | 12 ms |\n| edit | 1 | 4 ms |\n"
)
FENCE = "```python\ndef step():\n\n    return 1\n```\n"


def answer(blocks: int) -> str:
    """Paragraphs, tables and code fences, long enough for several parts."""
    out = []
    for n in range(blocks):
        out.append(f"Paragraph {n}: " + "the agent reads files and explains " * 4 + "\n")
        if n % 3 == 1:
            out.append(TABLE.replace("read", f"read{n}"))
        if n % 4 == 2:
            out.append(FENCE.replace("step", f"step{n}"))
    return "\n".join(out)


# -- the bridge on its own -----------------------------------------------------------------


class Collect:
    """Stands in for the app: keeps every message posted to it."""

    def __init__(self) -> None:
        self.messages: list[AgentEvent] = []

    def post_message(self, message: AgentEvent) -> bool:
        self.messages.append(message)
        return True

    def call_after_refresh(self, callback: Callable[[], object]) -> bool:
        callback()  # no screen: a prompt is painted as soon as it is posted
        return True


def texts(messages: list[AgentEvent]) -> list[str]:
    return [
        m.event.text if isinstance(m.event, AssistantDelta) else f"<{m.event.type}>"
        for m in messages
    ]


async def test_deltas_merge_into_the_message_the_app_has_not_read_and_never_pass_an_event() -> None:
    target = Collect()

    async def events() -> AsyncIterator[Event]:
        for word in ["a", "b", "c"]:
            yield AssistantDelta(text=word)
        yield ToolUse(id="t1", name="read_file", input={"path": "x"})
        for word in ["d", "e"]:
            yield AssistantDelta(text=word)
        yield UserMessage(text="next")

    count = await forward(events(), target)  # type: ignore[arg-type]
    assert count == 7
    # nothing read the messages while they were posted: each run of deltas is one message
    assert texts(target.messages) == ["abc", "<tool_use>", "de", "<user_message>"]


async def test_a_delta_the_app_has_read_takes_no_more_text_and_held_ones_go_on_a_timer() -> None:
    target = Collect()
    batcher = DeltaBatcher(target, interval=0.05)  # type: ignore[arg-type]
    batcher.add("a")  # the first goes at once
    assert texts(target.messages) == ["a"]  # (read here: ``taken``)
    batcher.add("b")  # too soon after the last post: held
    batcher.add("c")
    assert len(target.messages) == 1
    await asyncio.sleep(0.2)  # the timer posts them
    assert texts(target.messages) == ["a", "bc"]
    batcher.add("d")  # long enough after: at once
    batcher.add("e")  # merged into "d", which nobody has read yet
    assert texts(target.messages) == ["a", "bc", "de"]
    assert batcher.messages == 3


async def test_deltas_held_when_the_stream_is_cancelled_are_posted() -> None:
    target = Collect()
    gate = asyncio.Event()

    async def events() -> AsyncIterator[Event]:
        yield AssistantDelta(text="first ")
        await asyncio.sleep(0)
        assert target.messages[0].event  # the app reads it: what follows is held for a frame
        yield AssistantDelta(text="kept")
        await gate.wait()  # an interrupt arrives here
        yield AssistantDelta(text="never")

    task = asyncio.create_task(forward(events(), target))  # type: ignore[arg-type]
    await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert texts(target.messages) == ["first ", "kept"]


# -- through the app -----------------------------------------------------------------------


async def test_a_fast_stream_of_single_characters_renders_the_exact_markdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of one-character deltas reach the app in far fewer messages, and what the
    chat renders is exactly the reply."""
    monkeypatch.setattr(freezer, "SCREENS", 1000)  # every part stays mounted, to be read
    text = answer(12)
    chunks = list(text)
    app = counting_app(tmp_path, [{"chunks": chunks}])
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_idle(pilot)
        await wait_for(pilot, lambda: chat_text(app) == text, "the whole reply in the chat")
        await wait_for(pilot, lambda: rendered(app) == text, "every part rendered")
        assert 0 < app.delta_messages <= len(chunks) // 3


async def test_a_reply_with_tables_and_fences_is_whole_across_part_splits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(freezer, "SCREENS", 1000)
    text = answer(60)
    assert len(text) > 3 * PART_CHARS
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    app = counting_app(tmp_path, [{"chunks": chunks}])
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "tables")
        await wait_idle(pilot)
        chat = app.main.chat
        await wait_for(pilot, lambda: chat_text(app) == text, "the whole reply in the chat")
        await wait_for(pilot, lambda: rendered(app) == text, "every part rendered")
        parts = list(chat.query(AssistantReply))
        assert len(parts) >= 3
        tables = [t for t in text.split("\n\n") if t.startswith("| tool")]
        for table in tables:  # no part ends inside a table
            assert sum(part.text.count(table) for part in parts) == 1
        assert table_count(parts) == len(tables)
        codes = fence_codes(parts)
        assert codes == [f"def step{n}():\n\n    return 1" for n in range(60) if n % 4 == 2]
        shown = "\n".join(drawn(part) for part in parts)
        assert len(re.findall(r"tool +calls +time", shown)) == len(tables)  # each table drawn
        assert all(f"def step{n}():" in shown for n in range(60) if n % 4 == 2)


async def test_tool_calls_between_streamed_replies_stay_in_order(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    before = "Let me look at the file first. " * 30
    after = "The file says alpha. " * 30
    turns = [
        {
            "chunks": list(before),
            "tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "a.txt"}}],
        },
        {"chunks": list(after)},
    ]
    app = counting_app(tmp_path, turns, allow=("read_file",))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "read it")
        await wait_idle(pilot)
        chat = app.main.chat
        kinds = [
            type(c)
            for c in chat.children
            if isinstance(c, (UserPrompt, AssistantReply, ToolLine, FrozenGap))
        ]
        assert kinds == [UserPrompt, AssistantReply, ToolLine, AssistantReply]
        replies = list(chat.query(AssistantReply))
        assert [r.text for r in replies] == [before, after]
        assert app.delta_messages < (len(before) + len(after)) // 3


async def test_an_interrupt_mid_stream_keeps_every_delta_that_streamed(tmp_path: Path) -> None:
    words = [f"word{i} " for i in range(2000)]
    app = counting_app(tmp_path, [{"chunks": words, "delay": 0.002}])
    streamed: list[str] = []
    run = app.agent.run

    async def recording(*args: Any, **kwargs: Any) -> AsyncIterator[Event]:
        async for event in run(*args, **kwargs):
            if isinstance(event, AssistantDelta):
                streamed.append(event.text)
            yield event

    app.agent.run = recording  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "talk")
        await wait_for(pilot, lambda: "word300 " in app.main.chat.reply_text, "streaming")
        await pilot.press("escape")
        await wait_idle(pilot)
        notices = [n.text for n in app.main.chat.query(Notice)]
        assert notices[-1] == "Interrupted"
        shown = chat_text(app)
        assert shown == "".join(streamed)  # not a delta lost, however they were batched
        assert "word1999" not in shown
        await wait_for(pilot, lambda: rendered(app) == shown, "what streamed rendered")
