"""Text that is not valid UTF-8, end to end: ``agent-tui -p`` in a real subprocess, its tools
on real files, against an OpenAI-format server on 127.0.0.1 that decodes every request
strictly (as a real API does).

A file in latin-1 edited once used to put a lone surrogate into the transcript: stream-json
crashed (``surrogates not allowed``) and every later request failed with
``UnicodeEncodeError``, ``--continue`` included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import parse_event
from agent_tui.core.state.seals import seal_file
from agent_tui.core.text.utf8 import first_surrogate
from agent_tui.core.transcript import Message
from tests.core.providers.conftest import FakeServer


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def run_cli(server: FakeServer, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    env["AGENT_BASE_URL"] = f"{server.url}/v1"
    env["AGENT_API_KEY"] = "test-key"
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", "--model", "openai:test-model", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def reply_calls(server: FakeServer, *calls: tuple[str, str, dict[str, Any] | str]) -> None:
    """Queue a reply that asks for ``calls`` (id, tool, arguments: an object or raw JSON)."""
    deltas = [
        _chunk(
            {
                "tool_calls": [
                    {
                        "index": n,
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": name,
                            "arguments": args if isinstance(args, str) else json.dumps(args),
                        },
                    }
                ]
            }
        )
        for n, (call_id, name, args) in enumerate(calls)
    ]
    server.add_sse(server.sse_bytes(*deltas, _chunk({}, "tool_calls"), "[DONE]"))


def reply_text(server: FakeServer, text: str) -> None:
    server.add_sse(server.sse_bytes(_chunk({"content": text}, "stop"), "[DONE]"))


def strict_bodies(server: FakeServer) -> list[dict[str, Any]]:
    """Every request body, decoded strictly as UTF-8 JSON; none holds a lone surrogate."""
    bodies = []
    for request in server.requests:
        body = json.loads(request.body.decode("utf-8"))
        assert first_surrogate(body) is None, request.body[:2000]
        bodies.append(body)
    return bodies


def stream(done: subprocess.CompletedProcess[str]) -> list[Any]:
    assert done.returncode == 0, done.stderr
    return [parse_event(line) for line in done.stdout.splitlines()]


LEGACY = b"# caf\xe9 cr\xe8me: a comment saved in latin-1 long ago\nx = 1\n"


def test_a_non_utf8_edit_leaves_a_session_that_streams_and_resumes(
    server: FakeServer, workspace: Path
) -> None:
    target = workspace / "legacy.py"
    target.write_bytes(LEGACY)
    reply_calls(server, ("r", "read_file", {"path": "legacy.py"}))
    reply_calls(
        server,
        ("e", "edit_file", {"path": "legacy.py", "old_string": "x = 1", "new_string": "x = 2"}),
        ("g", "grep", {"pattern": "caf", "path": "."}),
    )
    reply_text(server, "Edited.")
    first = run_cli(
        server,
        "-p",
        "edit it",
        "--output-format",
        "stream-json",
        "--allow",
        "edit_file",
        cwd=workspace,
    )
    events = stream(first)
    assert events[-1].type == "turn_end"
    assert events[-1].reason == "completed"
    results = {e.id: e for e in events if e.type == "tool_result"}
    assert "caf\\xe9 cr\\xe8me" in results["r"].content
    assert "not valid UTF-8: 2 bytes shown as \\xNN" in results["r"].content
    edit = results["e"].content
    assert "not valid UTF-8 (2 bytes shown as \\xNN)" in edit
    assert " # caf\\xe9 cr\\xe8me: a comment saved in latin-1 long ago\n-x = 1\n+x = 2" in edit
    assert "legacy.py:1:# caf\\xe9 cr\\xe8me: a comment" in results["g"].content
    # Only the replaced span changed: the bytes that are not UTF-8 are as they were.
    assert (
        target.read_bytes() == b"# caf\xe9 cr\xe8me: a comment saved in latin-1 long ago\nx = 2\n"
    )

    reply_text(server, "Still here.")
    again = run_cli(
        server, "-p", "and now?", "--continue", "--output-format", "stream-json", cwd=workspace
    )
    events = stream(again)
    assert events[0].type == "session_start"
    assert events[0].resumed
    assert events[-1].text == "Still here."

    bodies = strict_bodies(server)
    assert len(bodies) == 4
    resumed = bodies[-1]["messages"]
    assert resumed[-1] == {"role": "user", "content": "and now?"}
    sent = {m.get("tool_call_id"): m["content"] for m in resumed if m["role"] == "tool"}
    assert "+x = 2" in sent["e"]
    assert "caf\\xe9" in sent["r"]


def test_a_session_saved_with_lone_surrogates_resumes_cleaned(
    server: FakeServer, workspace: Path
) -> None:
    """A session file as the old version wrote it (JSON escapes of lone surrogates in a tool
    result, a user prompt from a non-UTF-8 argv) resumes, streams and is sent as UTF-8."""
    store = SessionStore()
    session = store.new(workspace, "openai:test-model")
    session.append(Message.user("hi"))
    with session.path.open("a", encoding="utf-8") as fh:
        broken = {"role": "assistant", "content": "caf\udce9 and \ud800"}
        fh.write(json.dumps({"type": "message", "message": broken}) + "\n")
    assert "\\udce9" in session.path.read_text()
    seal_file(session.path)  # an old version's file has no seal: the user accepted it
    reply_text(server, "Fine.")
    done = run_cli(
        server, "-p", "go on", "--continue", "--output-format", "stream-json", cwd=workspace
    )
    assert stream(done)[-1].text == "Fine."
    messages = strict_bodies(server)[0]["messages"]
    assert messages[2] == {"role": "assistant", "content": "caf\\xe9 and \ufffd"}


def test_a_lone_surrogate_from_the_model_is_refused_and_cleaned(
    server: FakeServer, workspace: Path
) -> None:
    """The model can spell a lone surrogate in JSON (``\\udce9``): a call with one in its
    arguments is refused (writing it would need a byte no text holds), the text is cleaned,
    and nothing breaks."""
    target = workspace / "a.txt"
    target.write_text("x\n")
    reply_calls(server, ("w", "write_file", '{"path": "a.txt", "content": "caf\\udce9\\n"}'))
    server.add_sse(
        server.sse_bytes(_chunk({"content": "Odd \\ud83d text"}, "stop"), "[DONE]").replace(
            b"\\\\ud83d", b"\\ud83d"
        )
    )
    done = run_cli(
        server,
        "-p",
        "write",
        "--output-format",
        "stream-json",
        "--allow",
        "write_file",
        cwd=workspace,
    )
    events = stream(done)
    error = next(e for e in events if e.type == "tool_error")
    assert error.code == "invalid_arguments"
    assert "\\udce9" in error.message
    assert target.read_text() == "x\n"
    use = next(e for e in events if e.type == "tool_use")
    assert use.input == {"path": "a.txt", "content": "caf\\xe9\n"}
    assert events[-1].text == "Odd \ufffd text"
    strict_bodies(server)


def test_file_names_that_are_not_utf8_are_listed_escaped(
    server: FakeServer, workspace: Path
) -> None:
    (workspace / os.fsdecode(b"caf\xe9.txt")).write_text("hello\n")
    reply_calls(server, ("l", "list_dir", {"path": "."}), ("g", "glob", {"pattern": "*.txt"}))
    reply_text(server, "Listed.")
    done = run_cli(server, "-p", "list", "--output-format", "stream-json", cwd=workspace)
    results = {e.id: e.content for e in stream(done) if e.type == "tool_result"}
    assert "caf\\xe9.txt" in results["l"]
    assert "caf\\xe9.txt" in results["g"]
    strict_bodies(server)
