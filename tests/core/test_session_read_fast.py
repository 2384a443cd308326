"""A session file's message lines read in one pass (JSON parsed straight into the models) give
exactly what the general way (``json.loads`` then validation) gives, for every kind of line:
well-formed, escaped or raw non-ASCII, lone surrogates, bytes that are not UTF-8, invalid,
torn, an entry run onto a torn line, and lines as older versions spelled them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.conversation import session_read
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_read import ReadBack, read_lines
from agent_tui.core.events import ToolResult
from agent_tui.core.transcript import CallRecord, Message, ToolCall


def _line(message: Message, *, ascii_only: bool = True) -> bytes:
    entry = {"type": "message", "message": message.model_dump(mode="json")}
    return json.dumps(entry, ensure_ascii=ascii_only).encode("utf-8")


def _transcript() -> bytes:
    call = ToolCall(id="c1", name="read_file", arguments='{"path": "caf\\u00e9.txt"}')
    end = ToolResult(
        id="c1", name="read_file", content="", summary="lines 1–2 of 2", data={"first": 1}
    )
    lines = [
        b'{"type": "meta", "id": "abcd1234", "cwd": "/tmp", "model": "demo", "created": "x"}',
        _line(Message.user("héllo 😀 wörld")),  # escaped, a surrogate pair among them
        _line(Message.user("raw ünïcode 😀"), ascii_only=False),
        _line(Message.assistant("reading", [call])),
        _line(Message.tool(call, "1\tcafé", record=CallRecord.of(end, group=["c1"]))),
        # a lone surrogate escape (a file name not valid UTF-8): cleaned as it always was
        b'{"type": "message", "message": {"role": "user", "content": "bad \\udce9 name"}}',
        b'{"type": "message", "message": {"role": "tool", "tool_call_id": "c1", "name": "x", '
        b'"content": "y", "record": {"end": {"type": "tool_result", "id": "c1", '
        b'"name": "x\\ud800", "content": ""}}}}',
        # bytes that are not UTF-8: replaced, the rest of the line read
        b'{"type": "message", "message": {"role": "assistant", "content": "caf\xe9"}}',
        # older spellings: no spaces, keys in another order, extra keys
        b'{"type":"message","message":{"role":"assistant","content":"compact"}}',
        b'{"message": {"role": "user", "content": "keys swapped"}, "type": "message"}',
        b'{"type": "message", "message": {"role": "user", "content": "x", "new_field": 1}, '
        b'"extra": true}',
        # invalid: a role that does not exist, a message that is not an object, NaN
        b'{"type": "message", "message": {"role": "system", "content": "no"}}',
        b'{"type": "message", "message": "text"}',
        b'{"type": "message", "message": {"role": "user", "content": "n", "is_error": NaN}}',
        b'{"type": "message", "message": {"role": "user", "content": 3}}',
        b'{"type": "message", "message": {"role": "user", "content": "trailing"}} junk',
        # an unfinished line an older version then wrote a whole entry onto
        b'{"type": "message", "message": {"role": "user", "con'
        b'{"type": "message", "message": {"role": "user", "content": "salvaged"}}',
        b"",
        b'{"type": "message", "message": {"role": "assistant", "content": "torn',
    ]
    return b"\n".join(lines)


def _general(data: bytes, monkeypatch: pytest.MonkeyPatch) -> ReadBack:
    with monkeypatch.context() as patch:
        patch.setattr(session_read, "_message", lambda raw: None)
        return read_lines(data)


def _same(fast: ReadBack, general: ReadBack) -> None:
    assert [m.model_dump() for m in fast.messages] == [m.model_dump() for m in general.messages]
    for name in ("meta", "skipped", "recovered", "torn", "skipped_at", "replaced_at"):
        assert getattr(fast, name) == getattr(general, name), name


def test_every_kind_of_line_reads_as_the_general_way_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = _transcript()
    fast, general = read_lines(data), _general(data, monkeypatch)
    _same(fast, general)
    contents = [m.content for m in fast.messages]
    assert contents[:3] == ["héllo 😀 wörld", "raw ünïcode 😀", "reading"]
    assert "bad \\xe9 name" in contents  # the undecodable byte shown, as it always was
    assert "caf\ufffd" in contents
    assert "salvaged" in contents
    assert "keys swapped" in contents
    ends = [m.record.end for m in fast.messages if m.record is not None]
    assert [end.name for end in ends] == ["read_file", "x\ufffd"]
    torn = data.rsplit(b"\n", 1)[1]
    assert (fast.skipped, fast.recovered, fast.torn) == (7, 1, len(torn))


def test_a_real_session_reads_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    call = ToolCall(id="a", name="run_shell", arguments='{"command": "ls"}')
    messages = [
        Message.user("list"),
        Message.assistant("", [call]),
        Message.tool(call, "out", record=CallRecord.of(ToolResult(id="a", name="x", content=""))),
        Message.assistant("done"),
    ]
    session = SessionLog("abcd1234", path, str(tmp_path), "demo", "now")
    path.write_bytes(b'{"type": "meta", "id": "abcd1234"}\n')
    for message in messages:
        session.append(message)
    data = path.read_bytes()
    _same(read_lines(data), _general(data, monkeypatch))
    assert SessionLog.load(path).messages == messages
