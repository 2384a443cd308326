"""Sessions: JSONL appended as the loop runs, resumed by id or as the latest of a directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.providers.script import ScriptProvider
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


def test_a_torn_last_line_is_skipped_reported_and_the_next_append_starts_fresh(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, "demo")
    session.append(Message.user("first"))
    torn = '{"type": "message", "message": {"role": "assistant", "content": "an ans'
    with session.path.open("a") as fh:
        fh.write(torn)  # the disk filled up mid-line
    loaded = SessionLog.load(session.path)
    assert [m.content for m in loaded.messages] == ["first"]
    assert loaded.torn_tail == len(torn)
    assert loaded.problems() == [
        f"{session.path.name}: its last line was cut off ({len(torn)} bytes: a write that did "
        "not finish — disk full, or a crash) and is skipped"
    ]
    loaded.append(Message.user("second"))
    lines = session.path.read_text().split("\n")
    assert lines[-3:] == [torn, lines[-2], ""]  # the torn line ended, the new one whole
    assert json.loads(lines[-2])["message"]["content"] == "second"
    again = SessionLog.load(session.path)
    assert [m.content for m in again.messages] == ["first", "second"]
    assert again.torn_tail == 0
    assert again.problems() == [
        f"{session.path}: 1 unreadable line(s) skipped (line 3); the rest of the session is here"
    ]


def test_a_prompt_written_onto_a_torn_line_by_an_older_version_is_recovered(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, "demo")
    session.append(Message.user("first"))
    whole = json.dumps({"type": "message", "message": Message.user("kept").model_dump()})
    with session.path.open("a") as fh:
        fh.write('{"type": "message", "message": {"role": "assistant", "con' + whole + "\n")
    loaded = SessionLog.load(session.path)
    assert [m.content for m in loaded.messages] == ["first", "kept"]
    assert (loaded.skipped_lines, loaded.recovered, loaded.torn_tail) == (1, 1, 0)
    assert "1 message(s) recovered" in loaded.problems()[-1]


def test_a_result_whose_call_was_lost_is_dropped_on_resume(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, "demo")
    session.append(Message.user("go"))
    with session.path.open("a") as fh:
        fh.write('{"type": "message", "message": {"role": "assistant", "tool_ca\n')
    session.append(Message.tool(ToolCall(id="lost", name="read_file"), "text"))
    session.append(Message.user("again"))
    loaded = SessionLog.load(session.path)
    assert [(m.role, m.content) for m in loaded.messages] == [("user", "go"), ("user", "again")]


_FULL_DISK = """
import json, resource, sys
from pathlib import Path
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.transcript import Message

store = SessionStore(Path(sys.argv[1]))
session = store.new(Path(sys.argv[1]), "demo")
session.append(Message.user("before"))
size = session.path.stat().st_size
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100, hard))  # room for part of a line
session.append(Message.assistant("x" * 5000))  # the write stops at the limit: EFBIG
report = {"problem": session.take_problem(), "again": session.take_problem(),
          "unsaved": len(session.unsaved), "size": session.path.stat().st_size, "before": size}
session.append(Message.user("while full"))
report["unsaved_then"] = len(session.unsaved)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # space again
session.append(Message.user("after"))
session.sync()
report["unsaved_after"] = len(session.unsaved)
report["problem_after"] = session.problem
print(json.dumps(report))
"""


def test_a_failed_append_is_cut_back_kept_and_written_with_the_next_one(tmp_path: Path) -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    done = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, str(tmp_path)],
        env={**os.environ, "PYTHONPATH": src, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    report = json.loads(done.stdout)
    assert report["size"] == report["before"]  # the partial line was taken back off
    assert report["unsaved"] == 1
    assert "could not be saved" in report["problem"]
    assert "File too large" in report["problem"]
    assert report["again"] is None  # reported once
    assert report["unsaved_then"] == 2
    assert (report["unsaved_after"], report["problem_after"]) == (0, None)
    (path,) = tmp_path.glob("*.jsonl")
    assert path.read_bytes().endswith(b"\n")
    loaded = SessionLog.load(path)
    assert [m.content[:5] for m in loaded.messages] == ["befor", "xxxxx", "while", "after"]
    assert loaded.problems() == []
