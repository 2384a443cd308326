"""Regressions of the lane seen in real use: a tall turn folding must never leave the lane
blank, and the lane's keys must never end up typed into the prompt."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widget import Widget

from agent_tui.core.events import TurnEnd, UserMessage
from agent_tui.ui.calls.state import AutoExpand
from agent_tui.ui.lane import GroupCard, ToolCard, ToolLane
from agent_tui.ui.shell.events_bridge import AgentEvent

from .helpers import burst, make_agent, make_app, submit, wait_for, wait_idle

READS = 30


def _tall_then_short(cwd: Path) -> list[dict[str, object]]:
    for i in range(READS):
        (cwd / f"f{i}.txt").write_text(f"line {i}\n", encoding="utf-8")
    reads = [
        {"id": f"r{i}", "name": "read_file", "arguments": {"path": f"f{i}.txt"}}
        for i in range(READS)
    ]
    return [
        {"text": "Reading everything.", "tool_calls": reads},
        {"text": "Read them all."},
        {
            "text": "One more.",
            "tool_calls": [{"id": "s1", "name": "read_file", "arguments": {"path": "f1.txt"}}],
        },
        {"text": "Done."},
    ]


def _in_viewport(lane_region: Region, widget: Widget) -> bool:
    """The widget is painted inside the lane's viewport (and the lane is scrolled sanely)."""
    lane = widget.query_ancestor(ToolLane)
    region = widget.region
    return (
        bool(region.height)
        and lane_region.contains_region(region)
        and 0 <= lane.scroll_y <= lane.max_scroll_y
    )


@pytest.mark.parametrize("scrolled", ["at the bottom", "scrolled up"])
@pytest.mark.parametrize("expand", ["never", "always"])
async def test_the_second_turn_is_visible_after_a_tall_turn_folds(
    tmp_path: Path, scrolled: str, expand: AutoExpand
) -> None:
    agent = make_agent(tmp_path, _tall_then_short(tmp_path))
    agent.settings.ui.auto_expand = expand
    app = make_app(agent)
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, "read all")
        await wait_idle(pilot)
        lane = app.main.lane
        await wait_for(pilot, lambda: len(lane.groups) == 1, "one group card (issue 41)")
        await lane.settle()
        await wait_for(pilot, lambda: lane.max_scroll_y > 1, "the tall turn to overflow")
        if scrolled == "scrolled up":  # the user reads the middle of the tall turn

            def in_the_middle() -> bool:
                """Scrolled between the top and the bottom; else scroll there (again: a layout
                still settling may have moved the lane, or had it barely overflowing when the
                middle was taken: ``max_scroll_y // 2`` was 0)."""
                if 0 < lane.scroll_y < lane.max_scroll_y:
                    return True
                lane.scroll_to(y=max(1, lane.max_scroll_y // 2), animate=False)
                return False

            await wait_for(pilot, in_the_middle, "a scroll to the middle")
        await submit(pilot, "one more")
        await wait_idle(pilot)
        await lane.settle()
        await wait_for(pilot, lambda: "s1" in lane.cards, "the second turn's card")
        card = lane.cards["s1"]
        await wait_for(
            pilot,
            lambda: _in_viewport(lane.content_region, card),
            "the second turn's card in the lane's viewport",
        )
        first, second = lane.blocks
        assert first.folded
        assert not second.folded
        assert _in_viewport(lane.content_region, first.header)


async def test_lane_keys_go_to_the_lane_after_a_tall_turn_folds(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, _tall_then_short(tmp_path)))
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, "read all")
        await wait_idle(pilot)
        lane = app.main.lane
        await wait_for(pilot, lambda: lane.max_scroll_y > 0, "the tall turn to overflow")
        await pilot.press("tab", "tab")  # prompt → chat → lane
        await wait_for(
            pilot,
            lambda: isinstance(app.focused, (ToolCard, GroupCard)),
            "a card to have focus",
        )
        await submit(pilot, "one more")
        await wait_idle(pilot)
        await lane.settle()
        await pilot.press("tab", "tab")
        await wait_for(pilot, lambda: lane.has_focus_within, "the lane to have focus")
        await pilot.press("k", "j")
        assert app.main.prompt.text == ""
        card = lane.cards["s1"]
        await wait_for(pilot, lambda: _in_viewport(lane.content_region, card), "the card in view")


async def test_typed_text_lands_in_the_prompt_wherever_the_focus_is(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=(140, 40)) as pilot:
        app.main.chat.focus()
        await pilot.press(*"hello")
        assert app.main.prompt.text == "hello"
        assert app.focused is app.main.prompt
        app.set_focus(None)  # e.g. after a screen closed
        await pilot.press(*" world")
        assert app.main.prompt.text == "hello world"


async def test_an_event_after_the_main_screen_is_gone_is_dropped(tmp_path: Path) -> None:
    """A turn still ending while the app shuts down: its events find no chat, and must not
    raise (it was ``NoMatches('#chat')`` inside ``on_agent_event``)."""
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main
        await app.pop_screen()  # what shutting down does to the screen stack
        await wait_for(pilot, lambda: not main.is_attached, "the main screen to go")
        await app.on_agent_event(AgentEvent(UserMessage(text="late")))
        await app.on_agent_event(AgentEvent(TurnEnd(reason="interrupted", turns=1)))


async def test_a_fast_burst_typed_on_a_card_all_lands_in_the_prompt(tmp_path: Path) -> None:
    """A word typed fast while a card has the focus: its first letter moves the focus to the
    prompt, and the letters queued behind it (``o`` and space are card keys) follow it there."""
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    read = {"id": "r", "name": "read_file", "arguments": {"path": "a.txt"}}
    app = make_app(make_agent(tmp_path, [{"tool_calls": [read]}, {"text": "ok"}]))
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, "read")
        await wait_idle(pilot)
        assert app.main.lane.focus_lane()
        await wait_for(pilot, lambda: isinstance(app.focused, ToolCard), "the card's focus")
        await burst(pilot, *"slowtool test")
        await wait_for(pilot, lambda: app.main.prompt.text == "slowtool test", "the whole word")
