"""Compaction in the TUI: the chat shows it running, then how much was folded with the summary
behind a toggle; a resumed session shows the same blocks in the same places, the folded turns
above them; Esc during the summary leaves the conversation as it was."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widget import Widget

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.chat.compaction_block import CompactionBlock
from agent_tui.ui.chat.user_prompt import UserPrompt
from agent_tui.ui.lane.compaction_mark import CompactionMark

from .helpers import make_app, submit, wait_for, wait_idle

SnapCompare = Callable[..., bool]

TURNS: list[dict[str, Any]] = [
    {
        # long enough that its summary is shorter (a compaction that saves nothing is skipped)
        "text": "The parser lives in src/parse.py. "
        + "It reads the tokens, builds the tree and reports each error with its line. " * 12
    },
    {"text": "I would split tokenize() out of parse()."},
    {"text": "Done: tokenize() is in src/lexer.py now."},
    {"text": "## Goal\nRefactor the parser.\n\n## Decisions and findings\n- tokenize() moves"},
    {"text": "Yes, the tests still pass."},
]


def _agent(cwd: Path, store: SessionStore, session: SessionLog | None) -> Agent:
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": TURNS}), encoding="utf-8")
    return Agent(
        ScriptProvider(script), default_registry(), cwd, session=session, sessions=store,
        system="test",
    )  # fmt: skip


def _chat(app: Any) -> list[str]:
    """The chat's rows that matter here: user prompts and compaction blocks, in order; then
    the lane's compaction marks."""
    rows: list[str] = []
    for widget in app.main.chat.children:
        if isinstance(widget, UserPrompt):
            rows.append(f"user: {widget.text}")
        elif isinstance(widget, CompactionBlock):
            rows.append(f"compaction: {widget.event.phase} {widget.event.folded}")
    rows += [f"lane: {mark.event.folded}" for mark in app.main.lane.query(CompactionMark)]
    return rows


async def _three_turns_and_compact(pilot: Pilot[Any]) -> None:
    for prompt in ("where is the parser?", "how would you split it?", "do it"):
        await submit(pilot, prompt)
        await wait_idle(pilot)
    app = pilot.app
    assert app.compact()  # type: ignore[attr-defined]
    await wait_idle(pilot)


async def test_compaction_shows_in_the_chat_and_a_resumed_session_shows_the_same(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    store = SessionStore(tmp_path / "sessions")
    session = store.new(work, "script")
    live_app = make_app(_agent(work, store, session))
    async with live_app.run_test(size=(120, 40)) as pilot:
        await _three_turns_and_compact(pilot)
        await submit(pilot, "still green?")
        await wait_idle(pilot)
        live = _chat(live_app)
        block = live_app.main.chat.query_one(CompactionBlock)
        title = str(block.query_one(".title", Widget).render())
    assert live == [
        "user: where is the parser?",
        "user: how would you split it?",
        "user: do it",
        "compaction: end 2",
        "user: still green?",
        "lane: 2",
    ]
    assert "2 messages folded into a summary" in title
    assert "/compact" in title
    assert live_app.agent.messages[0].folded == 2

    resumed_app = make_app(_agent(work, store, SessionLog.load(session.path)))
    async with resumed_app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: len(_chat(resumed_app)) == 6, "the resumed chat")
        resumed = _chat(resumed_app)
    assert resumed == live


def test_snapshot_of_a_compaction_in_the_chat(snap_compare: SnapCompare, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    app = make_app(_agent(work, SessionStore(tmp_path / "sessions"), None))
    assert snap_compare(app, terminal_size=(100, 30), run_before=_three_turns_and_compact)
