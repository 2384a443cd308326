"""A /compact that would save nothing (issue 41, item 7): the chat says "Nothing to compact"
and why, muted (not a failure), and the lane gets no mark — one mark per compaction that
happened, never one for a compaction that changed nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widget import Widget

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.chat.compaction_block import CompactionBlock
from agent_tui.ui.lane.compaction_mark import CompactionMark

from .helpers import make_app, submit, wait_for, wait_idle

SnapCompare = Callable[..., bool]

LONG = "It reads the tokens, builds the tree and reports each error with its line. " * 12
TURNS: list[dict[str, Any]] = [
    {"text": "The parser lives in src/parse.py. " + LONG},
    {"text": "I would split tokenize() out of parse(). " + LONG},
    {"text": "## Goal\nRefactor the parser."},  # the first summary: shorter
    {"text": "Done: tokenize() is in src/lexer.py now."},
    {"text": "Yes."},
]


def _agent(tmp_path: Path) -> Agent:
    work = tmp_path / "work"
    work.mkdir()
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": TURNS}), encoding="utf-8")
    return Agent(
        ScriptProvider(script), default_registry(), work,
        sessions=SessionStore(tmp_path / "sessions"), system="test",
    )  # fmt: skip


async def _compact_twice(pilot: Pilot[Any]) -> None:
    app: Any = pilot.app
    for prompt in ("where is the parser?", "how would you split it?"):
        await submit(pilot, prompt)
        await wait_idle(pilot)
    assert app.compact()
    await wait_idle(pilot)
    await submit(pilot, "do it")
    await wait_idle(pilot)
    assert app.compact()  # the summary and the kept turn: nothing new to fold
    await wait_idle(pilot)
    await wait_for(pilot, lambda: len(app.main.chat.query(CompactionBlock)) == 2, "two blocks")


async def test_a_compact_with_nothing_to_gain_says_so_and_leaves_no_mark(tmp_path: Path) -> None:
    app = make_app(_agent(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await _compact_twice(pilot)
        first, second = app.main.chat.query(CompactionBlock)
        assert first.event.phase == "end"
        assert second.event.skipped
        title = str(second.query_one(".title", Widget).render())
        assert title == "Nothing to compact (/compact)"
        message = str(second.query_one(".message", Widget).render())
        assert message.startswith("Nothing to compact: what could be folded is the summary")
        assert not second.has_class("-failed")
        assert [m.event.phase for m in app.main.lane.query(CompactionMark)] == ["end"]


def test_snapshot_of_a_compact_with_nothing_to_gain(
    snap_compare: SnapCompare, tmp_path: Path
) -> None:
    app = make_app(_agent(tmp_path))
    assert snap_compare(app, terminal_size=(100, 30), run_before=_compact_twice)


def test_a_compaction_that_saved_nothing_says_so_once() -> None:
    from agent_tui.core.events import CompactionEvent
    from agent_tui.ui.chat.compaction_block import headline
    from agent_tui.ui.lane.compaction_mark import mark_text

    same = CompactionEvent(phase="end", folded=2, tokens_before=5200, tokens_after=5300)
    assert headline(same).endswith("~5.2k → ~5.3k tokens: it saved nothing (/compact)")
    assert mark_text(same).endswith("· saved nothing")
    less = CompactionEvent(phase="end", folded=2, tokens_before=5200, tokens_after=1300)
    assert "saved nothing" not in headline(less) + mark_text(less)
