"""Compaction through the whole loop against a real OpenAI-wire server on 127.0.0.1: an
overflow error is compacted and sent again once; a second overflow is a clear error with the
transcript valid; ``/compact`` folds the conversation and a resumed session rebuilds it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import CompactionEvent, ErrorEvent, Event, TurnEnd, UsageEvent
from agent_tui.core.providers.openai import OpenAIProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools.builtin import default_registry

OVERFLOW = {
    "error": {
        "message": "This model's maximum context length is 8192 tokens. However, your "
        "messages resulted in 9000 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
}
SPILL = "/tmp/spills/20261202T061500Z-run_shell-c1-ab12.txt"


def _reply(server: Any, text: str, prompt_tokens: int = 100) -> None:
    chunk = {
        "id": "x",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
    end = {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    usage = {
        "id": "x",
        "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 5},
    }
    server.add_sse(server.sse_bytes(chunk, end, usage, "[DONE]"))


def _agent(server: Any, tmp_path: Path, session: SessionLog | None = None) -> Agent:
    provider = OpenAIProvider(
        "test-model", base_url=f"{server.url}/v1", api_key="k", retry_base_delay=0.01
    )
    return Agent(provider, default_registry(), tmp_path, session=session, system="sys")


async def _run(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run(prompt)]


async def test_an_overflow_is_compacted_and_sent_again_once(server: Any, tmp_path: Path) -> None:
    agent = _agent(server, tmp_path)
    _reply(server, "one")
    _reply(server, f"two; the log is in {SPILL}")
    await _run(agent, "first")
    await _run(agent, "second")
    server.add_json(400, OVERFLOW)
    _reply(server, "## Goal\nthe scripted summary")
    _reply(server, "three")
    events = await _run(agent, "third")
    await agent.provider.aclose()

    steps = [e for e in events if isinstance(e, CompactionEvent)]
    assert [(s.phase, s.reason) for s in steps] == [("start", "overflow"), ("end", "overflow")]
    assert steps[1].folded == 2
    end = events[-1]
    assert isinstance(end, TurnEnd)
    assert (end.reason, end.text) == ("completed", "three")
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    summary_request = server.requests[3].json
    assert "tools" not in summary_request or not summary_request["tools"]
    assert "<conversation>" in summary_request["messages"][-1]["content"]
    assert "first" in summary_request["messages"][-1]["content"]
    retry = server.requests[4].json["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "user", "assistant", "user"]
    assert "the scripted summary" in retry[1]["content"]
    assert [m["content"] for m in retry[2:]] == ["second", f"two; the log is in {SPILL}", "third"]
    assert agent.messages[0].folded == 2


async def test_a_second_overflow_is_a_clear_error_and_the_transcript_stays_valid(
    server: Any, tmp_path: Path
) -> None:
    agent = _agent(server, tmp_path)
    _reply(server, "one")
    _reply(server, "two")
    await _run(agent, "first")
    await _run(agent, "second")
    server.add_json(400, OVERFLOW)
    _reply(server, "the summary")
    server.add_json(400, OVERFLOW)
    events = await _run(agent, "third")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1
    assert "even after compacting it" in errors[0].message
    assert "/clear" in errors[0].message
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].reason == "error"
    # valid: the summary, the kept turn, the unanswered prompt — the next request works
    assert [m.role for m in agent.messages] == ["user", "user", "assistant", "user"]
    _reply(server, "fine now")
    after = await _run(agent, "fourth")
    await agent.provider.aclose()
    assert isinstance(after[-1], TurnEnd)
    assert after[-1].text == "fine now"


async def test_a_summary_request_that_fails_changes_nothing(server: Any, tmp_path: Path) -> None:
    agent = _agent(server, tmp_path)
    _reply(server, "one")
    _reply(server, "two")
    await _run(agent, "first")
    await _run(agent, "second")
    before = list(agent.messages)
    server.add_json(401, {"error": {"message": "bad key"}})
    steps = [e async for e in agent.compact()]
    await agent.provider.aclose()
    assert [s.phase for s in steps if isinstance(s, CompactionEvent)] == ["start", "failed"]
    failed = steps[-1]
    assert isinstance(failed, CompactionEvent)
    assert "unchanged" in failed.message
    assert agent.messages == before


async def test_compact_folds_and_a_resumed_session_shows_the_same(
    server: Any, tmp_path: Path
) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, "openai:test-model")
    agent = _agent(server, tmp_path, session)
    for n in range(3):
        _reply(server, f"answer {n}; see {SPILL}" if n == 0 else f"answer {n}")
        await _run(agent, f"prompt {n}")
    _reply(server, "## Goal\nkeep going")
    steps = [e async for e in agent.compact("the spill")]
    await agent.provider.aclose()
    end = steps[-1]
    assert isinstance(end, CompactionEvent)
    assert end.phase == "end"
    assert (end.folded, end.kept, end.reason) == (2, 4, "manual")
    assert "the spill" in server.requests[-1].json["messages"][-1]["content"]
    assert SPILL in agent.messages[0].content  # the pointer is listed by the code itself
    resumed = SessionLog.load(session.path)
    assert resumed.messages == agent.messages
    assert [m.content for m in resumed.folded] == ["prompt 0", f"answer 0; see {SPILL}"]


async def test_the_threshold_compacts_before_the_next_request(server: Any, tmp_path: Path) -> None:
    """The meter's figure comes from the server's usage: past 80% of the window, the next
    request is preceded by a compaction; with "off", it never is."""
    settings = Settings.model_validate({"model": {"context_window": 8192}})
    provider = OpenAIProvider("test-model", base_url=f"{server.url}/v1", api_key="k")
    agent = Agent(provider, default_registry(), tmp_path, system="sys", settings=settings)
    _reply(server, "one", prompt_tokens=7_000)  # 85% of 8192 after this answer
    first = await _run(agent, "first")
    usage = [e for e in first if isinstance(e, UsageEvent)][-1]
    assert (usage.context_window, usage.estimated) == (8192, False)
    assert usage.percent >= 80
    _reply(server, "## Goal\nthe summary")
    _reply(server, "two", prompt_tokens=900)
    events = await _run(agent, "second")
    steps = [e for e in events if isinstance(e, CompactionEvent)]
    assert [(s.phase, s.reason) for s in steps] == [("start", "threshold"), ("end", "threshold")]
    assert steps[1].tokens_before >= 7_000
    assert server.requests[1].json.get("tools") in (None, [])  # the summary request
    assert [m["role"] for m in server.requests[2].json["messages"]] == ["system", "user", "user"]
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "two"

    off = Settings.model_validate(
        {"model": {"context_window": 8192}, "compaction": {"threshold": "off"}}
    )
    quiet = Agent(provider, default_registry(), tmp_path, system="sys", settings=off)
    _reply(server, "one", prompt_tokens=7_900)
    _reply(server, "two")
    await _run(quiet, "first")
    later = await _run(quiet, "second")
    await provider.aclose()
    assert not [e for e in later if isinstance(e, CompactionEvent)]
