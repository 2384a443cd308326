"""A fork's token totals (issue 41, item 7): the same after ``/fork`` as after ``--continue`` of
that fork. They were not: the live total counts the summarizer requests of a compaction, the
total read back from the session file summed the assistant messages (and subagents) only, so a
fork (or any resume) of a compacted session lost them. A session's total is everything spent
on its conversation: a fork is that conversation going on, so it includes the parent's turns
(and compactions) up to the fork, as both paths now show. A rewind counted the transcript only,
without what compactions folded (a fork after it showed 5.6k, its resume 158.7k): it counts
what a resume counts now, the conversation as it stands."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session import SessionLog, session_usage
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import UsageEvent
from agent_tui.core.transcript import Usage

from .helpers import make_agent, run


def said(n: int) -> dict[str, object]:
    text = "A short summary." if n == 3 else f"Answer {n}. " + "word " * 60
    return {"text": text, "usage": {"input_tokens": 5000 + 100 * n, "output_tokens": 50}}


async def test_the_totals_after_fork_and_after_continue_agree(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    work = tmp_path / "work"
    work.mkdir()
    agent = make_agent(work, store, [said(n) for n in range(8)])
    for prompt in ("one", "two", "three"):
        await run(agent, prompt)
    async for event in agent.compact():  # a summarizer request: said(3)
        assert event.type != "compaction" or event.phase != "failed"
    await run(agent, "four")
    spent = Usage(input_tokens=sum(5000 + 100 * n for n in range(5)), output_tokens=250)
    assert agent.usage == spent  # the compaction's request counted live
    await agent.fork()
    assert agent.usage == spent  # a fork goes on with the conversation's totals
    assert agent.session is not None
    resumed = SessionLog.load(agent.session.path)
    assert session_usage([*resumed.folded, *resumed.messages]) == spent
    again = make_agent(work, store, [said(9)], session=resumed)
    assert again.usage == spent
    replayed = [e for e in transcript_events(again.history()) if isinstance(e, UsageEvent)]
    assert replayed[-1].session == spent  # what the status bar shows of a resumed session


async def test_a_rewind_after_a_compaction_counts_what_a_resume_counts(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    work = tmp_path / "work"
    work.mkdir()
    agent = make_agent(work, store, [said(n) for n in range(8)])
    for prompt in ("one", "two", "three"):
        await run(agent, prompt)
    async for _ in agent.compact():
        pass
    await run(agent, "four")
    await run(agent, "five")
    last = agent.turns()[-1]
    await agent.rewind(last.id, "conversation")
    rewound = Usage(input_tokens=sum(5000 + 100 * n for n in range(5)), output_tokens=250)
    assert agent.usage == rewound  # the turn rewound away is no longer the conversation's
    await agent.fork()
    assert agent.session is not None
    resumed = SessionLog.load(agent.session.path)
    assert session_usage([*resumed.folded, *resumed.messages]) == agent.usage
