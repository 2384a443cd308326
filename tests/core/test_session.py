"""Sessions: JSONL appended as the loop runs, resumed by id or as the latest of a directory."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.agent import Agent
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.session import SessionLog, SessionStore
from agent_tui.core.tools import ToolRegistry
from agent_tui.core.transcript import Message, ToolCall
from tests.core.helpers import collect, write_script


async def test_loop_appends_each_message_as_it_happens(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, "script:x")
    provider = ScriptProvider(write_script(tmp_path / "s.json", [{"text": "hello"}]))
    agent = Agent(provider, ToolRegistry(), tmp_path, session=session)
    await collect(agent, "hi")
    lines = [json.loads(line) for line in session.path.read_text().splitlines()]
    assert lines[0]["type"] == "meta"
    assert lines[0]["cwd"] == str(tmp_path)
    messages = [entry["message"] for entry in lines[1:] if entry["type"] == "message"]
    assert [message["role"] for message in messages] == ["user", "assistant"]
    # the turn's checkpoint begins before its message, under the id the message carries
    assert lines[1]["type"] == "checkpoint"
    assert lines[1]["entry"]["kind"] == "turn"
    assert lines[1]["entry"]["turn"] == messages[0]["turn"]
    reloaded = SessionLog.load(session.path)
    assert [m.content for m in reloaded.messages] == ["hi", "hello"]


def test_latest_picks_the_newest_session_of_the_directory(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    first = store.new(a, "demo")
    first.append(Message.user("first"))
    other = store.new(b, "demo")
    other.append(Message.user("elsewhere"))
    latest = store.latest(a)
    assert latest is not None
    assert latest.id == first.id
    assert store.latest(tmp_path) is None
    found = store.find(other.id[:5])
    assert found is not None
    assert found.messages[0].content == "elsewhere"
    assert store.find("zzzz") is None


def test_resume_repairs_calls_left_without_results_and_skips_broken_lines(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, "demo")
    session.append(Message.user("go"))
    session.append(Message.assistant("", [ToolCall(id="x", name="run_shell")]))
    with session.path.open("a") as fh:
        fh.write('{"type": "message", "message": {"role": "assis')  # crash mid-write
    loaded = SessionLog.load(session.path)
    assert loaded.skipped_lines == 1
    assert [m.role for m in loaded.messages] == ["user", "assistant", "tool"]
    assert loaded.messages[-1].tool_call_id == "x"
    assert loaded.messages[-1].is_error
