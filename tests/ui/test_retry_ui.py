"""A retry is visible in the TUI (issue 38, item 10): the chat says which retry, how long
and why; the status bar counts the wait down; Esc stops it and the turn ends interrupted.
A broken stream keeps the text that arrived (item 2), with the error beneath it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.providers.openai import OpenAIProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.chat.assistant_reply import AssistantReply
from agent_tui.ui.chat.error_block import ErrorBlock
from agent_tui.ui.chat.notice import Notice
from agent_tui.ui.shell.activity import Activity
from tests.core.providers.conftest import FakeServer

from .helpers import SIZE, make_app, submit, wait_for, wait_idle


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def _agent(server: FakeServer, tmp_path: Path) -> Agent:
    provider = OpenAIProvider("test-model", base_url=f"{server.url}/v1", api_key="k")
    return Agent(provider, default_registry(), tmp_path, system="sys")


def _chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    delta = {"content": text}
    return {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _chat(app: Any) -> list[str]:
    """The chat's blocks as text: notices, errors, replies."""
    out = []
    for child in app.main.chat.children:
        if isinstance(child, ErrorBlock):
            out.append(f"{child.title}: {child.message}")
        elif isinstance(child, (Notice, AssistantReply)):
            out.append(child.text)
    return out


def _label(app: Any, label_id: str) -> str:
    return str(app.main.status.query_one(f"#{label_id}").content)


async def test_a_retry_counts_down_and_esc_stops_it(server: FakeServer, tmp_path: Path) -> None:
    server.add_json(503, {"error": {"message": "overloaded"}}, headers={"Retry-After": "120"})
    agent = _agent(server, tmp_path)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: app.activity is Activity.RETRYING, "the retry")
        await wait_for(pilot, lambda: "retrying in 1" in _label(app, "activity"), "the countdown")
        first = _label(app, "activity")
        await wait_for(pilot, lambda: _label(app, "activity") != first, "the countdown ticks")
        assert any(
            "Retry 1 of 3 in 120 s (as the server asked): HTTP 503" in text and "overloaded" in text
            for text in _chat(app)
        )
        await pilot.press("escape")
        await wait_idle(pilot)
        assert "retrying" not in _label(app, "activity")
        assert len(server.requests) == 1
    await agent.provider.aclose()


async def test_a_broken_stream_shows_what_arrived_and_the_error(
    server: FakeServer, tmp_path: Path
) -> None:
    body = server.sse_bytes(_chunk("The answer "), _chunk("is forty"))
    server.add_sse(body, reset_after_chunks=True)
    agent = _agent(server, tmp_path)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hi")
        await wait_idle(pilot)
        assert agent.messages[-1].cut_off is not None
        shown = "\n".join(_chat(app))
        assert "The answer is forty" in shown
        assert "reset the connection" in shown
    await agent.provider.aclose()
