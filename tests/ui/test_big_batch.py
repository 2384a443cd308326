"""A batch bigger than ``max_parallel`` is one group (issue 41, item 7): sixty reads of one
message run ten at a time but show as one group card in the lane and one row in the chat, not
six "Read 10 files"; and a group whose rows were spread over two chat lines is one row."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.content import Content

from agent_tui.core.events import (
    Event,
    PermissionRequest,
    ToolGroup,
    ToolProgress,
    ToolResult,
    UserMessage,
)
from agent_tui.ui.calls.state import CallState
from agent_tui.ui.chat import ToolLine, tool_line
from agent_tui.ui.chat.tool_line import MAX_ROWS
from agent_tui.ui.common.format import NAMES_SHOWN
from agent_tui.ui.lane import GroupCard
from agent_tui.ui.lane.group_card import MEMBER_CARDS

from .helpers import SIZE, feed, make_agent, make_app, submit, use, wait_for

READS = 60


async def test_sixty_reads_are_one_group_in_the_lane_and_one_row_in_the_chat(
    tmp_path: Path,
) -> None:
    for n in range(READS):
        (tmp_path / f"f{n}.txt").write_text(f"file {n}\n")
    calls = [{"name": "read_file", "arguments": {"path": f"f{n}.txt"}} for n in range(READS)]
    agent = make_agent(
        tmp_path,
        [{"text": "Reading.", "tool_calls": calls}, {"text": "Done."}],
        allow=("read_file",),
    )
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "read them all")
        await wait_for(pilot, lambda: not app.busy, "the turn to end")
        await app.main.lane.settle()
        (group,) = app.main.lane.query(GroupCard)
        assert len(group.calls) == READS
        assert group.head.render().plain.startswith(f"▾ Read {READS} files")
        rows = [row for line in app.main.chat.query(ToolLine) for row in line.rows]
        assert [len(row) for row in rows] == [READS]
        (line,) = app.main.chat.query(ToolLine)
        shown = str(line.build_content())
        assert shown.startswith(f"● Read {READS} files f0.txt, f1.txt")
        assert f"{READS} ok" in shown


def use_read(call_id: str) -> Event:
    return use(call_id, "read_file", path=f"{call_id}.py")


async def test_a_group_spread_over_two_chat_lines_is_one_row(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        ids = [f"c{n}" for n in range(MAX_ROWS + 10)]
        await feed(app, [UserMessage(text="many"), *[use_read(i) for i in ids]])
        assert len(app.main.chat.query(ToolLine)) == 2  # a line holds MAX_ROWS rows
        await feed(app, [ToolGroup(ids=ids)])
        (line,) = app.main.chat.query(ToolLine)
        assert [len(row) for row in line.rows] == [len(ids)]
        await pilot.pause()


@pytest.mark.timeout(600)  # a thousand calls through the app: minutes on a loaded machine
async def test_a_thousand_member_group_is_drawn_per_paint_not_per_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each member's every change marks its row; the row is drawn at the next paint, not once
    per event (it was: 2,000 events drew a row of 1,000 names 2,000 times), and draws at most
    ``NAMES_SHOWN`` characters of names."""
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        ids = [f"c{n}" for n in range(1000)]
        await feed(app, [UserMessage(text="many"), *[use_read(i) for i in ids], ToolGroup(ids=ids)])
        drawn: list[int] = []
        original = tool_line.row_content

        def counting(calls: list[CallState]) -> Content:
            drawn.append(len(calls))
            return original(calls)

        monkeypatch.setattr(tool_line, "row_content", counting)
        began = time.perf_counter()
        events: list[Event] = [
            ToolProgress(id=i, name="read_file", elapsed=0.0, message="started") for i in ids
        ]
        events += [ToolResult(id=i, name="read_file", content="1\tx", elapsed=0.01) for i in ids]
        await feed(app, events)
        await pilot.pause()
        took = time.perf_counter() - began
        print(f"2,000 member updates of a 1,000-member group: {took:.2f} s, {len(drawn)} draws")
        (line,) = app.main.chat.query(ToolLine)
        shown = str(line.build_content())
        assert "1000 ok" in shown
        assert len(shown) < NAMES_SHOWN + 100
        assert 0 < len(drawn) < 100


async def test_a_member_beyond_a_big_groups_cards_gets_one_when_it_asks(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        ids = [f"c{n}" for n in range(MEMBER_CARDS + 10)]
        await feed(app, [UserMessage(text="many"), *[use_read(i) for i in ids], ToolGroup(ids=ids)])
        lane = app.main.lane
        (group,) = lane.query(GroupCard)
        assert len(group.cards) == MEMBER_CARDS  # the rest is one line
        assert str(group.more.render()).startswith("+10 more: c30.py, c31.py")
        last = ids[-1]
        assert last not in lane.cards
        await feed(app, [PermissionRequest(id=last, name="read_file", reason="outside")])
        await wait_for(pilot, lambda: last in lane.cards, "the asking member's card")
        assert lane.cards[last] in group.cards
        assert lane.cards[last].is_mounted
