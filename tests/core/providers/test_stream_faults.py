"""Faults of a real 127.0.0.1 model server, as a user meets them (issue 38, items 2 and 10).

A stream that breaks after some text (a reset connection, an end without ``[DONE]``, data that
is not JSON, a read timeout) keeps what arrived, marked as cut off with the error: the next
request carries it and a resumed session shows it. Retries are events (``retry``) with their
attempt, wait and reason; a server's ``Retry-After`` is honoured up to ``model.max_retry_wait``
and a longer one fails at once, saying so; a stream that brings no content (keep-alives only)
ends after ``model.idle_timeout``; Esc stops a retry's wait.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import ErrorEvent, Event, ModelRetry, TurnEnd, parse_event
from agent_tui.core.providers.openai import OpenAIProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools.builtin import default_registry


def _chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "x",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }


def _agent(server: Any, tmp_path: Path, **settings: Any) -> Agent:
    provider = OpenAIProvider(
        "test-model",
        base_url=f"{server.url}/v1",
        api_key="k",
        retry_base_delay=0.01,
        timeout=httpx2.Timeout(10.0, read=settings.pop("read_timeout", 10.0)),
    )
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, provider.name)
    model = {"idle_timeout": 60.0, **settings}
    return Agent(
        provider,
        default_registry(),
        tmp_path,
        session=session,
        system="sys",
        settings=Settings.model_validate({"model": model}),
    )


async def _run(agent: Agent, prompt: str) -> list[Event]:
    async with asyncio.timeout(60):
        return [event async for event in agent.run(prompt)]


PARTIAL = "The answer is forty"


def _partial_then(server: Any, **fault: Any) -> None:
    server.add_sse(server.sse_bytes(_chunk("The answer "), _chunk("is forty")), **fault)


FAULTS = {
    "reset": {"reset_after_chunks": True},
    "eof without [DONE]": {"cut_after_chunks": True},
    "read timeout": {"hang_after_chunks": True},
}


@pytest.mark.parametrize("fault", [*FAULTS, "malformed data"])
async def test_a_broken_stream_keeps_what_arrived(server: Any, tmp_path: Path, fault: str) -> None:
    agent = _agent(server, tmp_path, read_timeout=0.5)
    if fault == "malformed data":
        body = server.sse_bytes(_chunk("The answer "), _chunk("is forty"), "{not json")
        server.add_sse(body)
    else:
        _partial_then(server, **FAULTS[fault])
    events = await _run(agent, "what is it?")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1, events
    assert events[-1] == TurnEnd(reason="error", turns=1, text=PARTIAL)
    # kept in the transcript, marked as cut off with the error the user saw
    kept = agent.messages[-1]
    assert kept.role == "assistant"
    assert kept.content.startswith(PARTIAL)
    assert kept.cut_off == errors[0].message
    assert "[cut off" in kept.content
    if fault == "reset":
        assert "reset the connection" in errors[0].message
    # the next request carries it
    server.add_sse(server.sse_bytes(_chunk("forty-two.", "stop"), "[DONE]"))
    await _run(agent, "go on")
    sent = server.requests[-1].json["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"].startswith(PARTIAL)
    assert "cut off" in sent[2]["content"]
    # a resumed session shows it, and the error after it, as live
    assert agent.session is not None
    resumed = SessionLog.load(agent.session.path)
    told = list(transcript_events(resumed.messages))
    texts = [e.text for e in told if e.type == "assistant_message"]
    assert texts[0] == PARTIAL
    assert [e.message for e in told if isinstance(e, ErrorEvent)] == [errors[0].message]
    await agent.provider.aclose()


async def test_a_break_before_any_text_keeps_no_empty_reply(server: Any, tmp_path: Path) -> None:
    agent = _agent(server, tmp_path)
    server.add_sse(b"", cut_after_chunks=True)
    events = await _run(agent, "hi")
    assert events[-1].type == "turn_end"
    assert [m.role for m in agent.messages] == ["user"]
    await agent.provider.aclose()


async def test_retries_are_events_with_attempt_wait_and_reason(server: Any, tmp_path: Path) -> None:
    agent = _agent(server, tmp_path)
    server.add_json(503, {"error": {"message": "overloaded, come back later"}})
    server.add_json(503, {"error": {"message": "still overloaded"}})
    server.add_sse(server.sse_bytes(_chunk("fine", "stop"), "[DONE]"))
    events = await _run(agent, "hi")
    retries = [e for e in events if isinstance(e, ModelRetry)]
    assert [(r.attempt, r.retries) for r in retries] == [(1, 3), (2, 3)]
    assert "HTTP 503" in retries[0].reason
    assert "overloaded, come back later" in retries[0].reason
    assert not retries[0].reason.startswith("openai:")
    assert all(r.wait >= 0 for r in retries)
    assert parse_event(retries[0].to_json()) == retries[0]  # a stream-json line
    assert events[-1] == TurnEnd(reason="completed", turns=1, text="fine")
    await agent.provider.aclose()


async def test_retry_after_is_honoured_beyond_the_backoff_cap(server: Any, tmp_path: Path) -> None:
    """The backoff is capped (30 s by default, 0.01 s here); the server's own Retry-After is
    not cut to it."""
    agent = _agent(server, tmp_path)
    provider = agent.provider
    assert isinstance(provider, OpenAIProvider)
    provider._http.retry = type(provider._http.retry)(3, 0.01, 0.01)
    server.add_json(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"})
    server.add_sse(server.sse_bytes(_chunk("ok", "stop"), "[DONE]"))
    events = await _run(agent, "hi")
    retries = [e for e in events if isinstance(e, ModelRetry)]
    assert [(r.wait, r.retry_after) for r in retries] == [(1.0, True)]
    assert events[-1].type == "turn_end"
    await agent.provider.aclose()


async def test_a_retry_after_longer_than_the_maximum_fails_at_once_saying_so(
    server: Any, tmp_path: Path
) -> None:
    agent = _agent(server, tmp_path, max_retry_wait=60)
    server.add_json(429, {"error": {"message": "quota"}}, headers={"Retry-After": "900"})
    events = await _run(agent, "hi")
    assert not [e for e in events if isinstance(e, ModelRetry)]
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert "asked to wait 15m" in error.message or "asked to wait 900" in error.message
    assert "max_retry_wait" in error.message
    assert len(server.requests) == 1
    await agent.provider.aclose()


async def test_interrupt_stops_a_retry_wait(server: Any, tmp_path: Path) -> None:
    agent = _agent(server, tmp_path)
    server.add_json(503, {"error": {"message": "busy"}}, headers={"Retry-After": "120"})
    seen: list[Event] = []

    async def run() -> None:
        async for event in agent.run("hi"):
            seen.append(event)
            if isinstance(event, ModelRetry):
                agent.interrupt()

    async with asyncio.timeout(30):  # the wait was 120 s
        await run()
    assert isinstance(seen[-1], TurnEnd)
    assert seen[-1].reason == "interrupted"
    assert len(server.requests) == 1
    await agent.provider.aclose()


async def test_a_stream_of_keep_alives_ends_after_the_idle_timeout(
    server: Any, tmp_path: Path
) -> None:
    agent = _agent(server, tmp_path, idle_timeout=0.5)
    _partial_then(server, keepalive_after_chunks=True)
    events = await _run(agent, "hi")
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert "no content from the model for 0.5 s" in error.message
    assert "idle_timeout" in error.message
    assert agent.messages[-1].content.startswith(PARTIAL)  # what came before is kept
    await agent.provider.aclose()
