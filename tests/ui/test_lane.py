"""The lane's behaviour: keys on cards, opening policy, approvals never hidden, folded turns,
links from the chat, and a bounded widget count with 1,000 calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.events import (
    Event,
    PermissionRequest,
    SpillPointer,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolResult,
    TurnEnd,
    UserMessage,
)
from agent_tui.core.settings import Settings, UISettings
from agent_tui.ui.calls.book import CallStatus
from agent_tui.ui.chat import ToolLine
from agent_tui.ui.lane import GroupCard, ToolCard
from agent_tui.ui.lane.earlier_line import EarlierLine
from agent_tui.ui.lane.lane_entries import LIVE_CARDS
from agent_tui.ui.lane.turn_header import TurnHeader

from .helpers import SIZE, feed, make_agent, make_app, use, wait_for

SMALL = (100, 24)
"""The 1,000-call tests paint a smaller screen (they count widgets; painting is not tested)."""


def ok(call_id: str, name: str = "read_file", content: str = "1\tx", **data: object) -> ToolResult:
    return ToolResult(id=call_id, name=name, content=content, elapsed=0.01, data=dict(data))


def failed(call_id: str) -> ToolErrorEvent:
    return ToolErrorEvent(id=call_id, name="read_file", code="not_found", message="gone")


async def test_j_k_space_c_and_o_on_cards(tmp_path: Path) -> None:
    from agent_tui.ui.spills.browser import SpillBrowser

    agent = make_agent(tmp_path, [])
    record = agent.spills.write("".join(f"out {n}\n" for n in range(2_000)), "run_shell", "s")
    pointer = SpillPointer(path=record.shown, chars=record.chars, lines=record.lines)
    events: list[Event] = [
        UserMessage(text="go"),
        use("a", "read_file", path="a.py"),
        ok("a", content="1\talpha\n2\tbeta"),
        use("s", "run_shell", command="make"),
        ToolResult(id="s", name="run_shell", content="…tail", data={"exit_code": 0}, spill=pointer),
    ]
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await feed(app, events)
        lane = app.main.lane
        assert lane.focus_lane()
        await pilot.pause()
        cards = lane.cards
        assert app.focused is cards["s"]
        await pilot.press("k")
        assert app.focused is cards["a"]
        await pilot.press("k")
        assert isinstance(app.focused, TurnHeader)
        await pilot.press("j", "space")
        assert app.focused is cards["a"]
        assert cards["a"].expanded
        assert cards["a"].body is not None
        await pilot.press("space")
        assert not cards["a"].expanded
        assert cards["a"].body is None
        await pilot.press("c")
        assert app.clipboard == "1\talpha\n2\tbeta"
        await pilot.press("o")  # no spill here: the key does nothing
        assert app.screen is app.main
        await pilot.press("down", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, SpillBrowser), "the spill browser")
        browser = app.screen
        assert isinstance(browser, SpillBrowser)
        assert browser.view.path == record.path  # the spill of that call, from line 1
        assert browser.view.window is not None
        assert browser.view.window.offset == 1


@pytest.mark.parametrize(
    ("policy", "opened"),
    [
        ("never", set()),
        ("always", {"good", "bad"}),
        ("failures", {"bad"}),
        ("success", {"good"}),
    ],
)
async def test_which_cards_open_by_themselves_is_a_setting(
    tmp_path: Path, policy: str, opened: set[str]
) -> None:
    agent = make_agent(tmp_path, [])
    agent.settings = Settings(ui=UISettings(auto_expand=policy))  # type: ignore[arg-type]
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await feed(app, [use("good", "read_file", path="a"), use("bad", "read_file", path="b")])
        await feed(app, [ok("good"), failed("bad")])
        await pilot.pause()
        cards = app.main.lane.cards
        assert {i for i, card in cards.items() if card.expanded} == opened
        assert {i for i, card in cards.items() if card.body is not None} == opened


async def test_an_ask_is_never_hidden_in_a_folded_group(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            app,
            [
                use("r1", "read_file", path="a"),
                use("r2", "mcp__docs__fetch", url="x"),
                ToolGroup(ids=["r1", "r2"]),
            ],
        )
        (group,) = app.main.lane.query(GroupCard)
        group.focus()
        await pilot.pause()
        await pilot.press("enter")
        assert group.folded
        assert app.main.lane.cards["r2"] not in app.main.lane.items()
        await feed(app, [PermissionRequest(id="r2", name="mcp__docs__fetch", reason="asks")])
        await pilot.pause()
        assert not group.folded
        assert app.main.lane.cards["r2"] in app.main.lane.items()
        assert app.main.lane.cards["r2"].call.status is CallStatus.APPROVAL


async def test_finished_turns_fold_and_a_chat_line_reveals_its_card(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await feed(app, [UserMessage(text="first"), use("a", "read_file", path="a.py"), ok("a")])
        await feed(app, [TurnEnd(reason="completed", turns=1)])
        await feed(app, [UserMessage(text="second"), use("b", "read_file", path="b.py")])
        lane = app.main.lane
        first, second = lane.blocks
        assert first.folded
        assert not second.folded
        assert "a" not in lane.cards
        assert "b" in lane.cards
        await wait_for(pilot, lambda: first.header.size.width > 20, "the lane laid out")
        header = first.header.render().plain
        assert header.startswith("▸ first")
        assert "1 call: 1 ok" in header
        line = next(w for w in app.main.chat.query(ToolLine) if w.rows[0][0].id == "a")
        await pilot.pause()  # the chat's layout is up to date
        assert await pilot.click(line, offset=(4, 0))
        await wait_for(pilot, lambda: app.focused is lane.cards.get("a"), "the card to show")
        assert not first.folded


@pytest.mark.timeout(600)  # a thousand calls through the app: minutes on a loaded machine
async def test_a_thousand_calls_in_one_turn_keep_the_lane_bounded(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SMALL) as pilot:
        await feed(app, [UserMessage(text="many")])
        for batch in range(100):
            ids = [f"c{batch}-{i}" for i in range(10)]
            events: list[Event] = [use(i, "read_file", path=f"{i}.py") for i in ids]
            events.append(ToolGroup(ids=ids))
            events += [ok(i) for i in ids]
            await feed(app, events, settle=batch % 5 == 4)  # the lane settles now and then
        await pilot.pause()
        lane = app.main.lane
        (block,) = lane.blocks
        assert len(app.calls.calls) == 1000
        mounted = list(lane.query(ToolCard))
        assert len(mounted) <= LIVE_CARDS + 10
        assert len(lane.cards) == len(mounted)
        assert len(list(lane.query("*"))) < 12 * (LIVE_CARDS + 10)
        assert block.earlier.display
        assert block.hidden_calls() == 1000 - len(mounted)
        assert lane.border_subtitle == "1,000 calls"
        # updating one call touches one card
        updates: list[str] = []
        original = ToolCard.update_view

        def counting(card: ToolCard) -> None:
            updates.append(card.call.id)
            original(card)

        ToolCard.update_view = counting  # type: ignore[method-assign]
        try:
            await feed(app, [use("last", "run_shell", command="sleep 1")])
            updates.clear()
            await feed(app, [ToolProgress(id="last", name="run_shell", elapsed=0.5)])
        finally:
            ToolCard.update_view = original  # type: ignore[method-assign]
        assert updates == ["last"]
        # the earlier-calls line brings a page back
        earlier = block.earlier
        earlier.focus()
        await pilot.pause()
        before = len(list(lane.query(ToolCard)))
        await pilot.press("enter")
        await pilot.pause()
        assert len(list(lane.query(ToolCard))) > before
        assert isinstance(earlier, EarlierLine)


@pytest.mark.timeout(600)  # a thousand calls through the app: minutes on a loaded machine
async def test_a_thousand_calls_over_many_turns_fold_into_one_line_each(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SMALL) as pilot:
        for turn in range(20):
            await feed(app, [UserMessage(text=f"turn {turn}")])
            for batch in range(5):
                ids = [f"t{turn}-{batch}-{i}" for i in range(10)]
                events: list[Event] = [use(i, "read_file", path=f"{i}.py") for i in ids]
                events += [ToolGroup(ids=ids), *[ok(i) for i in ids]]
                await feed(app, events, settle=batch == 4)
        await pilot.pause()
        lane = app.main.lane
        assert len(app.calls.calls) == 1000
        assert len(lane.blocks) == 20
        assert [b.folded for b in lane.blocks] == [True] * 19 + [False]
        assert len(list(lane.query(ToolCard))) == LIVE_CARDS  # the open turn, bounded
        assert len(list(lane.query(GroupCard))) == LIVE_CARDS // 10
        assert len(list(lane.query("*"))) < 20 * 3 + 5 * LIVE_CARDS
        last_folded = lane.blocks[-2]
        assert "50 calls: 50 ok" in last_folded.header.render().plain
        last_folded.header.focus()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert not last_folded.folded
        assert len(list(lane.query(ToolCard))) == 2 * LIVE_CARDS
