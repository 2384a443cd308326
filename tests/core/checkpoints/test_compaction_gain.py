"""A compaction that would save nothing does not happen (issue 41, item 7): it ran, replaced
the transcript with a summary as long as what it folded and left a mark each time (two marks
for two such /compact). Now: nothing to fold but the last summary -> no request, a "nothing to
compact" notice; a summary no shorter than what it replaces -> the transcript is unchanged,
nothing is recorded, and its request is not in the totals (a resume could not count it)."""

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


async def test_a_summary_no_shorter_than_what_it_folds_changes_nothing(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    work = tmp_path / "work"
    work.mkdir()
    long = "word " * 200
    agent = make_agent(work, store, [said("ok", 1), said("ok", 2), said(long, 3), said("x", 4)])
    await run(agent, "one")
    await run(agent, "two")
    before, usage = [m.model_dump() for m in agent.messages], agent.usage
    events = await compactions(agent)
    assert [e.phase for e in events] == ["start", "failed"]
    assert events[-1].skipped
    assert events[-1].message.startswith("Nothing to compact: the summary (~")
    assert [m.model_dump() for m in agent.messages] == before
    assert agent.usage == usage
    assert agent.session is not None
    assert '"compacted"' not in agent.session.path.read_text()
    assert SessionLog.load(agent.session.path).folded == []


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
