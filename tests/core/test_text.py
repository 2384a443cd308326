"""core.text: what enters the transcript, the events and the wire encodes as UTF-8."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from agent_tui.core.calls import ToolCall
from agent_tui.core.events import ToolUse, parse_event
from agent_tui.core.providers.http import encode_body
from agent_tui.core.text.utf8 import (
    clean,
    clean_json_text,
    clean_text,
    decode_escaped,
    first_surrogate,
)
from agent_tui.core.transcript import Message


def test_bytes_that_are_not_utf8_show_as_hex_other_surrogates_as_the_replacement() -> None:
    assert clean_text(b"caf\xe9 \xff".decode("utf-8", "surrogateescape")) == "caf\\xe9 \\xff"
    assert clean_text("a \ud800 b") == "a \ufffd b"
    assert clean_text("\ud83d\ude00") == "😀"  # a pair split across two JSON strings, joined
    same = "plain ✓ text"
    assert clean_text(same) is same


def test_decode_escaped_counts_the_bytes() -> None:
    assert decode_escaped(b"ok \xe9\xe8 \xe2\x9c\x93") == ("ok \\xe9\\xe8 ✓", 2)
    assert decode_escaped(b"fine") == ("fine", 0)


def test_json_text_keeps_its_meaning_and_becomes_encodable() -> None:
    raw = '{"a": "caf\udce9"}'
    cleaned = clean_json_text(raw)
    cleaned.encode("utf-8")
    assert json.loads(cleaned) == json.loads(raw)


def test_first_surrogate_looks_inside_objects() -> None:
    assert first_surrogate({"a": ["ok", {"b": "x\udce9"}]}) == "\udce9"
    assert first_surrogate({"a": ["ok", 1, None]}) is None
    assert clean({"k\udce9": ("v\ud800",)}) == {"k\\xe9": ("v\ufffd",)}


def test_messages_events_and_calls_are_cleaned_as_they_are_made() -> None:
    message = Message.model_validate({"role": "user", "content": "caf\udce9"})
    assert message.content == "caf\\xe9"
    call = ToolCall(id="c", name="write_file", arguments='{"content": "\udce9"}')
    call.arguments.encode("utf-8")
    assert call.parsed_arguments() == {"content": "\\xe9"}
    event = ToolUse(id="c", name="n", input={"path": "caf\udce9"}, raw_arguments="\ud800")
    line = event.to_json()
    assert parse_event(line) == ToolUse(
        id="c", name="n", input={"path": "caf\\xe9"}, raw_arguments="\ufffd"
    )


def test_a_request_body_is_always_utf8() -> None:
    body = {"messages": [{"role": "system", "content": "cwd: /home/caf\udce9"}]}
    assert json.loads(encode_body(body)) == {
        "messages": [{"role": "system", "content": "cwd: /home/caf\\xe9"}]
    }
    assert encode_body({"a": "é"}) == '{"a":"é"}'.encode()


def test_every_cleaned_field_is_cleaned_from_python_and_read_alike_from_json() -> None:
    """``CleanStr`` fields clean Python input and leave JSON input (which cannot hold a lone
    surrogate) as parsed: both give the same message for the same text."""
    data = {
        "role": "tool",
        "content": "caf\udce9",
        "tool_call_id": "a\ud800",
        "name": "n\udcff",
        "typed": "t\udc80",
        "tool_calls": [{"id": "i\udce9", "name": "w\udce9", "arguments": '{"a": "\udce9"}'}],
    }
    message = Message.model_validate(data)
    assert (message.content, message.tool_call_id, message.name, message.typed) == (
        "caf\\xe9",
        "a\ufffd",
        "n\\xff",
        "t\\x80",
    )
    call = message.tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("i\\xe9", "w\\xe9", '{"a": "\\udce9"}')
    again = Message.model_validate_json(message.model_dump_json())
    assert again == message
    pair = Message.model_validate_json('{"role": "user", "content": "\\ud83d\\ude00 caf\\u00e9"}')
    assert pair.content == "\U0001f600 café" == Message.model_validate(pair.model_dump()).content
    with pytest.raises(ValidationError):  # a lone surrogate escape is not taken from JSON
        Message.model_validate_json('{"role": "user", "content": "\\udce9"}')
