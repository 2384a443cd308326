"""A compaction that saves nothing (issue 41, item 7): it ran and left a mark each time, a
second /compact re-summarizing the first one's summary (two marks, the second for nothing).
Now: nothing to fold but the last summary -> no request, a "nothing to compact" notice and no
mark; a summary no shorter than what it replaces is kept (its request was made) and its one
event says it saved nothing."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import CompactionEvent

from .helpers import make_agent, run


def said(text: str, n: int = 0) -> dict[str, object]:
    return {"text": text, "usage": {"input_tokens": 5000 + n, "output_tokens": 50}}


async def compactions(agent: object) -> list[CompactionEvent]:
    return [e async for e in agent.compact() if isinstance(e, CompactionEvent)]  # type: ignore[attr-defined]


async def test_a_summary_no_shorter_than_what_it_folds_says_it_saved_nothing(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    work = tmp_path / "work"
    work.mkdir()
    long = "word " * 200
    agent = make_agent(work, store, [said("ok", 1), said("ok", 2), said(long, 3), said("x", 4)])
    await run(agent, "one")
    await run(agent, "two")
    events = await compactions(agent)
    assert [e.phase for e in events] == ["start", "end"]
    assert events[-1].saved_nothing
    assert events[-1].tokens_after >= events[-1].tokens_before
    assert agent.session is not None
    assert SessionLog.load(agent.session.path).messages[0].compaction is not None


async def test_nothing_but_the_last_summary_to_fold_is_not_sent(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    work = tmp_path / "work"
    work.mkdir()
    long = "word " * 200
    turns = [said(long, 1), said(long, 2), said("short", 3), said("ok", 4), said("never", 5)]
    agent = make_agent(work, store, turns)
    await run(agent, "one")
    await run(agent, "two")
    assert [e.phase for e in await compactions(agent)] == ["start", "end"]
    await run(agent, "three")
    usage = agent.usage
    again = await compactions(agent)  # the summary, then the kept turn: nothing new to fold
    assert [(e.phase, e.skipped) for e in again] == [("failed", True)]
    assert again[0].message.startswith("Nothing to compact: what could be folded is the summary")
    assert agent.usage == usage  # no request was made
