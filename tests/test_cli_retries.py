"""Waiting is visible in headless runs against a real 127.0.0.1 server (issue 38, item 10):
each retry is a ``retry`` line of ``stream-json`` and a line on stderr in text mode; a broken
stream's partial answer is kept in the session (item 2)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.events import ErrorEvent, ModelRetry, parse_event
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import _chunk, run_cli


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def test_stream_json_has_a_retry_event_per_retry(server: FakeServer, tmp_path: Path) -> None:
    server.add_json(503, {"error": {"message": "warming up"}}, headers={"Retry-After": "0.2"})
    server.add_sse(server.sse_bytes(_chunk({"content": "ok"}, "stop"), "[DONE]"))
    done = run_cli(server, "-p", "hi", "--output-format", "stream-json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [parse_event(line) for line in done.stdout.splitlines()]
    retries = [e for e in events if isinstance(e, ModelRetry)]
    assert len(retries) == 1
    assert (retries[0].attempt, retries[0].wait, retries[0].retry_after) == (1, 0.2, True)
    assert "HTTP 503" in retries[0].reason
    assert "warming up" in retries[0].reason


def test_text_mode_says_each_retry_on_stderr(server: FakeServer, tmp_path: Path) -> None:
    server.add_json(502, {"error": {"message": "bad gateway"}}, headers={"Retry-After": "0"})
    server.add_sse(server.sse_bytes(_chunk({"content": "fine"}, "stop"), "[DONE]"))
    done = run_cli(server, "-p", "hi", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fine"
    assert "↻ retry 1 of 3 in 0.0s (as the server asked): HTTP 502" in done.stderr


def test_a_partial_answer_is_in_the_saved_session(server: FakeServer, tmp_path: Path) -> None:
    body = server.sse_bytes(_chunk({"content": "half an "}), _chunk({"content": "answer"}))
    server.add_sse(body, reset_after_chunks=True)
    done = run_cli(server, "-p", "hi", "--output-format", "stream-json", cwd=tmp_path)
    assert done.returncode != 0
    events = [parse_event(line) for line in done.stdout.splitlines()]
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert "reset the connection" in error.message
    data = Path(os.environ["AGENT_TUI_DATA_DIR"])
    saved = SessionLog.load(next(data.rglob("*.jsonl")))
    assert [m.role for m in saved.messages] == ["user", "assistant"]
    assert saved.messages[1].content.startswith("half an answer")
    assert saved.messages[1].cut_off == error.message
