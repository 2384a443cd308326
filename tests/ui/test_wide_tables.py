"""A wide Markdown table in an answer shows every cell whole: cells wrap (a long word folds)
when the columns fit the width, and a table with too many columns for it is laid out as
records (each row's column names beside its values). Nothing is cut to ``col…``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.ui.chat import AssistantReply
from agent_tui.ui.chat.markdown_lines import palette, render

from .helpers import make_agent, make_app, submit, wait_for, wait_idle

SnapCompare = Callable[..., bool]

HEADS = ["id", "name", "status", "owner", "created", "updated", "priority", "region",
         "latency_ms", "errors", "retries", "version", "checksum", "notes"]  # fmt: skip
ROWS = [
    [
        str(i),
        f"service-{i}",
        "active",
        "alice@example.com",
        f"2026-01-0{i}",
        "2026-02-01",
        "high",
        "eu-west-1",
        f"{120 + i}",
        "0",
        "2",
        "v1.2.3",
        f"abcdef012{i}",
        "a longer free text note",
    ]
    for i in range(1, 4)
]
TABLE = "\n".join(
    ["Here are the services:", "", "| " + " | ".join(HEADS) + " |", "|" + "---|" * len(HEADS)]
    + ["| " + " | ".join(row) + " |" for row in ROWS]
    + ["", "All three are up."]
)


def _cells() -> Counter[str]:
    return Counter(("".join(HEADS) + "".join("".join(row) for row in ROWS)).replace(" ", ""))


@pytest.mark.parametrize("width", [40, 76, 100, 110, 136, 200])
def test_every_character_of_every_cell_is_shown(width: int) -> None:
    shown = render(TABLE, width, palette({}, True)).plain
    assert "…" not in shown
    assert all(len(line) <= width for line in shown.splitlines())
    have = Counter(shown.replace(" ", "").replace("\n", ""))
    missing = _cells() - have
    assert not missing, f"cut at width {width}: {missing}"


def test_a_table_that_fits_keeps_its_rows_and_words_whole() -> None:
    shown = render(TABLE, 200, palette({}, True)).plain
    assert "alice@example.com" in shown
    assert "a longer free text note" in shown
    narrow = render(TABLE, 76, palette({}, True)).plain  # records: one value a line
    assert "latency_ms  121" in narrow
    assert "notes       a longer free text note" in narrow


def _answer_turn() -> list[dict[str, Any]]:
    return [{"text": TABLE}]


async def test_the_chat_shows_the_whole_table_at_both_sizes(tmp_path: Path) -> None:
    for size, whole in (((80, 24), "alice@example.com"), ((140, 40), "latency_ms")):
        app = make_app(make_agent(tmp_path, _answer_turn()))
        async with app.run_test(size=size) as pilot:
            await submit(pilot, "list the services")
            await wait_idle(pilot)
            reply = app.main.chat.query(AssistantReply).last()
            await wait_for(pilot, lambda r=reply: r.source == TABLE, "the answer drawn")
            lines = reply.render_lines(reply.region.reset_offset)  # type: ignore[arg-type]
            text = "\n".join(line.text for line in lines)
            assert "…" not in text
            assert whole in text


@pytest.mark.parametrize(
    ("size", "lane"),
    [((80, 24), True), ((140, 40), True), ((140, 40), False)],
    ids=["80x24", "140x40", "140x40-lane-hidden"],
)
def test_wide_table_snapshot(
    snap_compare: SnapCompare, tmp_path: Path, size: tuple[int, int], lane: bool
) -> None:
    """Records in a chat too narrow for 14 columns; the table itself, cells wrapped, in the
    whole width of a 140-column terminal with the lane hidden."""
    app = make_app(make_agent(tmp_path, _answer_turn()), clock=lambda: 1000.0)

    async def ask(pilot: Pilot[Any]) -> None:
        if not lane:
            await app.run_action("toggle_lane")
        await submit(pilot, "list the services")
        await wait_idle(pilot)
        reply = app.main.chat.query(AssistantReply).last()
        await wait_for(pilot, lambda: reply.source == TABLE, "the answer drawn")
        app.main.chat.scroll_home(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=ask)
