"""The SSE decoder, alone and over httpx's line splitting with arbitrary chunk boundaries."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

from agent_tui.core.providers.sse import SSEDecoder, SSEEvent, iter_sse

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


def feed_all(lines: list[str]) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events = [e for line in lines if (e := decoder.feed(line)) is not None]
    last = decoder.flush()
    return [*events, *([last] if last else [])]


def test_decoder_field_rules() -> None:
    lines = STREAM.decode().replace("\r\n", "\n").split("\n")
    assert feed_all(lines) == EXPECTED


def test_field_without_colon_and_empty_data() -> None:
    assert feed_all(["data", "", "data:", "data:", ""]) == [
        SSEEvent(data=""),
        SSEEvent(data="\n"),
    ]


async def events_from_chunks(chunks: list[bytes]) -> list[SSEEvent]:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    response = httpx.Response(200, content=body())
    return [event async for event in iter_sse(response.aiter_lines())]


async def test_every_two_way_split_gives_the_same_events() -> None:
    for cut in range(1, len(STREAM)):
        assert await events_from_chunks([STREAM[:cut], STREAM[cut:]]) == EXPECTED, cut


async def test_one_byte_chunks_and_bare_cr_line_endings() -> None:
    assert await events_from_chunks([bytes([b]) for b in STREAM]) == EXPECTED
    cr_only = STREAM.replace(b"\r\n", b"\r")
    assert await events_from_chunks([bytes([b]) for b in cr_only]) == EXPECTED


async def test_over_a_real_connection_in_tiny_fragments(server) -> None:
    server.add_sse(STREAM, chunk_size=3)
    async with (
        httpx.AsyncClient() as client,
        client.stream("POST", f"{server.url}/events", json={}) as response,
    ):
        assert [e async for e in iter_sse(response.aiter_lines())] == EXPECTED
