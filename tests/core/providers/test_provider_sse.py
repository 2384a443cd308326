"""The SSE parser: bytes to lines to events, with chunk boundaries anywhere."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx2
import pytest

from agent_tui.core.providers.sse import SSEDecoder, SSEEvent, SSELineDecoder, SSEParser, iter_sse

STREAM = (
    b": keep-alive comment\r\n"
    b"event: content_block_delta\r\n"
    b'data: {"a":\r\n'
    b"data:1}\r\n"
    b"id: 7\r\n"
    b"retry: 100\r\n"
    b"\r\n"
    b"\r\n"
    b"data: second \xc3\xa9\r\n"
    b"\r\n"
    b"event: ignored-without-data\r\n"
    b"\r\n"
    b"data: [DONE]"  # no final blank line
)
EXPECTED = [
    SSEEvent(data='{"a":\n1}', event="content_block_delta", id="7"),
    SSEEvent(data="second é", event="message", id="7"),
    SSEEvent(data="[DONE]", event="message", id="7"),
]

SEPARATORS = "\u2028\u2029\u0085"
"""LINE SEPARATOR, PARAGRAPH SEPARATOR, NEXT LINE: line ends for ``str.splitlines`` (and so for
httpx2's ``aiter_lines``), plain characters for the event stream and for JSON strings."""


def feed_all(lines: list[str]) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events = [e for line in lines if (e := decoder.feed(line)) is not None]
    last = decoder.flush()
    return [*events, *([last] if last else [])]


def parse(chunks: list[bytes]) -> list[SSEEvent]:
    parser = SSEParser()
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    return [*events, *parser.flush()]


def splits(body: bytes) -> list[list[bytes]]:
    """The body whole, cut in two at every position, and one byte a chunk."""
    return [
        [body],
        *([body[:cut], body[cut:]] for cut in range(1, len(body))),
        [bytes([b]) for b in body],
    ]


def test_decoder_field_rules() -> None:
    lines = STREAM.decode().replace("\r\n", "\n").split("\n")
    assert feed_all(lines) == EXPECTED


def test_field_without_colon_and_empty_data() -> None:
    assert feed_all(["data", "", "data:", "data:", ""]) == [
        SSEEvent(data=""),
        SSEEvent(data="\n"),
    ]


@pytest.mark.parametrize("newline", [b"\r\n", b"\n", b"\r"], ids=["CRLF", "LF", "CR"])
def test_every_split_and_every_line_ending_gives_the_same_events(newline: bytes) -> None:
    body = STREAM.replace(b"\r\n", newline)
    for chunks in splits(body):
        assert parse(chunks) == EXPECTED, chunks


def test_mixed_line_endings_in_one_stream() -> None:
    body = b"data: a\rdata: b\ndata: c\r\n\r\ndata: d\n\r\r\n"
    expected = [SSEEvent(data="a\nb\nc"), SSEEvent(data="d")]
    for chunks in splits(body):
        assert parse(chunks) == expected, chunks


def test_a_cr_at_the_end_of_a_chunk_and_the_lf_that_follows_are_one_line_end() -> None:
    lines = SSELineDecoder()
    assert lines.feed(b"data: a\r") == ["data: a"]
    assert lines.feed(b"\ndata: b\r") == ["data: b"]  # the LF is not a second (blank) line
    assert lines.feed(b"\r") == [""]  # CR then CR: a blank line
    assert lines.feed(b"\n") == []  # the LF of that CRLF
    assert lines.feed(b"\n") == [""]  # a lone LF: another blank line
    assert lines.flush() == []
    assert parse([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [SSEEvent(data="a\nb")]


def test_separators_inside_json_strings_do_not_end_lines() -> None:
    payload = {"text": f"one{SEPARATORS[0]}two{SEPARATORS[1]}three{SEPARATORS[2]}four"}
    body = b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n"
    assert "\u2028".encode() in body  # sent raw, not as a \\u escape
    for chunks in splits(body):
        events = parse(chunks)
        assert len(events) == 1, chunks
        assert json.loads(events[0].data) == payload


def test_other_control_characters_do_not_end_lines_either() -> None:
    # str.splitlines also splits at VT, FF and the file/group/record separators.
    body = b"data: a\x0bb\x0cc\x1cd\x1de\x1ef\n\n"
    assert parse([body]) == [SSEEvent(data="a\x0bb\x0cc\x1cd\x1de\x1ef")]


def test_one_leading_bom_is_dropped_even_when_split() -> None:
    body = b"\xef\xbb\xbfdata: x\n\n"
    for chunks in splits(body):
        assert parse(chunks) == [SSEEvent(data="x")], chunks
    # Only one, and only at the very start of the stream.
    assert parse([b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n"]) == [SSEEvent(data="y")]
    assert parse([b"data: x\n\n\xef\xbb\xbfdata: y\n\n"]) == [SSEEvent(data="x")]


def test_utf8_split_between_chunks_and_invalid_bytes() -> None:
    body = "data: é€😀\n\n".encode()
    for chunks in splits(body):
        assert parse(chunks) == [SSEEvent(data="é€😀")], chunks
    assert parse([b"data: a\xffb\n\n"]) == [SSEEvent(data="a\ufffdb")]


def test_id_persists_ignores_nul_and_retry_takes_only_digits() -> None:
    decoder = SSEDecoder()
    lines = ["id: 1", "data: a", "", "id: x\0y", "data: b", "", "id", "data: c", ""]
    events = [e for line in lines if (e := decoder.feed(line)) is not None]
    assert [(e.data, e.id) for e in events] == [("a", "1"), ("b", "1"), ("c", "")]
    for value, expected in [("1500", 1500), (" 7", 7), ("+5", 7), ("1_0", 7), ("", 7), ("x", 7)]:
        decoder.feed(f"retry:{value}")
        assert decoder.retry == expected, value


def test_comments_and_unknown_fields_are_ignored() -> None:
    body = b":comment\n: another\nfoo: bar\ndata: x\n:\n\n"
    assert parse([body]) == [SSEEvent(data="x")]


async def test_iter_sse_over_an_async_iterable_of_chunks() -> None:
    async def body() -> AsyncIterator[bytes]:
        for b in STREAM:
            yield bytes([b])

    assert [event async for event in iter_sse(body())] == EXPECTED


async def test_over_a_real_connection_in_tiny_fragments(server) -> None:
    server.add_sse(STREAM, chunk_size=3)
    async with (
        httpx2.AsyncClient() as client,
        client.stream("POST", f"{server.url}/events", json={}) as response,
    ):
        assert [e async for e in iter_sse(response.aiter_bytes())] == EXPECTED
