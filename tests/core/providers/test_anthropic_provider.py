"""AnthropicProvider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agent_tui.core.providers.anthropic import AnthropicProvider, to_anthropic_messages
from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    ProviderError,
    StreamItem,
    TextDelta,
    ToolCallReady,
)
from agent_tui.core.tools import ToolRegistry
from agent_tui.core.transcript import Message, ToolCall, Usage

KEY = "sk-ant-test-secret-987654"


def message_start(input_tokens: int, cache_read: int = 0, cache_write: int = 0) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-test",
            "stop_reason": None,
            "usage": {
                "input_tokens": input_tokens,
                "cache_read_input_tokens": cache_read,
                "cache_creation_input_tokens": cache_write,
                "output_tokens": 1,
            },
        },
    }


def text_block(index: int, *pieces: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        *[
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": piece},
            }
            for piece in pieces
        ],
        {"type": "content_block_stop", "index": index},
    ]


def tool_block(index: int, id: str, name: str, *partials: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}},
        },
        *[
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": partial},
            }
            for partial in partials
        ],
        {"type": "content_block_stop", "index": index},
    ]


def message_end(stop_reason: str, output_tokens: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


def make_provider(server_url: str, **kwargs: Any) -> AnthropicProvider:
    kwargs.setdefault("retry_base_delay", 0.001)
    return AnthropicProvider("claude-test", server_url, KEY, **kwargs)


async def collect(
    provider: AnthropicProvider, request: ModelRequest, seen: list[StreamItem] | None = None
) -> list[StreamItem]:
    """Every item of one response (also appended to ``seen``, kept if the stream fails)."""
    seen = [] if seen is None else seen
    async with asyncio.timeout(10):
        async for item in provider.stream(request):
            seen.append(item)
    return seen


@pytest.fixture
def request_(registry: ToolRegistry) -> ModelRequest:
    return ModelRequest(
        system="Be brief.", messages=[Message.user("hi")], tools=registry, max_tokens=1024
    )


async def test_text_and_tool_use_blocks(server, request_) -> None:
    events = [
        message_start(10, cache_read=5, cache_write=2),
        {"type": "ping"},
        *text_block(0, "I'll ", "read ", "it."),
        *tool_block(1, "toolu_1", "read_file", '{"pa', 'th": "src/', 'a.py"}'),
        *tool_block(2, "toolu_2", "grep"),
        *message_end("tool_use", 42),
    ]
    server.add_sse(server.sse_bytes(*events, event_names=True), chunk_size=9)
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    calls = [
        ToolCall(id="toolu_1", name="read_file", arguments='{"path": "src/a.py"}'),
        ToolCall(id="toolu_2", name="grep", arguments="{}"),
    ]
    assert items == [
        TextDelta("I'll "),
        TextDelta("read "),
        TextDelta("it."),
        ToolCallReady(calls[0]),
        ToolCallReady(calls[1]),
        Completion(
            text="I'll read it.",
            tool_calls=calls,
            usage=Usage(input_tokens=17, output_tokens=42, cache_read_tokens=5),
            stop_reason="tool_use",
        ),
    ]


async def test_request_headers_and_body(server, registry) -> None:
    first = ToolCall(id="toolu_a", name="read_file", arguments='{"path": "x"}')
    second = ToolCall(id="toolu_b", name="grep", arguments='{"pattern": ')  # truncated JSON
    messages = [
        Message.user("look"),
        Message.assistant("Checking.", [first, second]),
        Message.tool(first, "x contents"),
        Message.tool(second, "bad arguments", is_error=True),
        Message.user("and?"),
    ]
    server.add_sse(
        server.sse_bytes(message_start(3), *text_block(0, "ok"), *message_end("end_turn", 1))
    )
    provider = make_provider(server.url)
    await collect(
        provider, ModelRequest(system="SYS", messages=messages, tools=registry, max_tokens=2048)
    )
    await provider.aclose()

    (recorded,) = server.requests
    assert recorded.path == "/v1/messages"
    assert recorded.headers["x-api-key"] == KEY
    assert recorded.headers["anthropic-version"] == "2023-06-01"
    assert recorded.headers["content-type"] == "application/json"
    assert "authorization" not in recorded.headers
    body = recorded.json
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 2048
    assert body["system"] == "SYS"
    assert body["stream"] is True
    assert body["tools"] == registry.anthropic_tools()
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "look"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {"path": "x"}},
                {"type": "tool_use", "id": "toolu_b", "name": "grep", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_a",
                    "content": "x contents",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": "bad arguments",
                    "is_error": True,
                },
                {"type": "text", "text": "and?"},
            ],
        },
    ]


def test_conversion_merges_same_roles_and_drops_empty_messages() -> None:
    call = ToolCall(id="t", name="grep", arguments="{}")
    wire = to_anthropic_messages(
        [
            Message.user("one"),
            Message.user("two"),
            Message.assistant("   "),
            Message.assistant("", [call]),
            Message.tool(call, "r"),
        ]
    )
    assert [m["role"] for m in wire] == ["user", "assistant", "user"]
    assert wire[0]["content"] == [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]
    assert wire[1]["content"] == [{"type": "tool_use", "id": "t", "name": "grep", "input": {}}]


async def test_error_event_mid_stream(server, request_) -> None:
    events = [
        message_start(3),
        *text_block(0, "Hal")[:2],
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    server.add_sse(server.sse_bytes(*events, event_names=True))
    provider = make_provider(server.url)
    seen: list[StreamItem] = []
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_, seen)
    await provider.aclose()

    assert seen == [TextDelta("Hal")]
    assert "overloaded_error: Overloaded" in str(info.value)
    assert info.value.retryable
    assert len(server.requests) == 1


async def test_401_reads_the_anthropic_error_body(server, request_) -> None:
    server.add_json(
        401,
        {
            "type": "error",
            "error": {"type": "authentication_error", "message": f"invalid x-api-key {KEY}"},
        },
    )
    provider = make_provider(server.url)
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_)
    await provider.aclose()

    message = str(info.value)
    assert message.startswith(
        f"anthropic: HTTP 401 from {server.url}/v1/messages: invalid x-api-key"
    )
    assert "ANTHROPIC_API_KEY" in message
    assert KEY not in message
    assert len(server.requests) == 1


async def test_overloaded_529_is_retried(server, request_) -> None:
    server.add_json(
        529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    server.add_sse(
        server.sse_bytes(message_start(3), *text_block(0, "ok"), *message_end("end_turn", 1))
    )
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    assert len(server.requests) == 2
    assert isinstance(items[-1], Completion)
    assert items[-1].text == "ok"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
async def test_raw_line_separators_in_json_strings_complete_the_turn(
    server, request_, newline: str
) -> None:
    separators = "\u2028\u2029\u0085"  # line ends for str.splitlines, not for the stream
    pieces = [f"a{separators[0]}b", f"{separators[1]}c{separators[2]}"]
    partial = json.dumps({"pattern": f"x{separators}y"}, ensure_ascii=False)
    events = [
        message_start(3),
        *text_block(0, *pieces),
        *tool_block(1, "toolu_s", "grep", partial[:9], partial[9:]),
        *message_end("tool_use", 4),
    ]
    body = server.sse_bytes(*events, event_names=True, raw_unicode=True, newline=newline)
    server.add_sse(body, chunk_size=3)
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    call = ToolCall(id="toolu_s", name="grep", arguments=partial)
    assert items == [
        *[TextDelta(piece) for piece in pieces],
        ToolCallReady(call),
        Completion(
            text="".join(pieces),
            tool_calls=[call],
            usage=Usage(input_tokens=3, output_tokens=4),
            stop_reason="tool_use",
        ),
    ]
    assert call.parsed_arguments() == {"pattern": f"x{separators}y"}


async def test_stream_without_message_stop_is_an_error(server, request_) -> None:
    server.add_sse(server.sse_bytes(message_start(3), *text_block(0, "cut")))
    provider = make_provider(server.url)
    with pytest.raises(ProviderError, match="message_stop"):
        await collect(provider, request_)
    await provider.aclose()


async def test_connection_refused_names_the_env_var(refused_url, request_) -> None:
    provider = make_provider(refused_url, max_retries=0)
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_)
    await provider.aclose()
    assert f"{refused_url}/v1/messages" in str(info.value)
    assert "ANTHROPIC_BASE_URL" in str(info.value)


async def test_server_that_ignores_stream_returns_json(server, request_) -> None:
    server.add_json(
        200,
        {
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Sure."},
                {"type": "tool_use", "id": "toolu_9", "name": "grep", "input": {"pattern": "x"}},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 4, "output_tokens": 2},
        },
    )
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    call = ToolCall(id="toolu_9", name="grep", arguments='{"pattern": "x"}')
    assert items[:2] == [TextDelta("Sure."), ToolCallReady(call)]
    assert items[-1] == Completion(
        text="Sure.",
        tool_calls=[call],
        usage=Usage(input_tokens=4, output_tokens=2),
        stop_reason="tool_use",
    )


def test_env_configuration(monkeypatch) -> None:
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider.from_env("claude-x")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/v1/")
    provider = AnthropicProvider.from_env("claude-x")
    assert provider.name == "anthropic:claude-x"
    assert provider.kind == "anthropic"
    assert provider.url == "http://127.0.0.1:9/v1/messages"
    assert provider.build_headers()["x-api-key"] == "k-env"
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    assert AnthropicProvider.from_env("claude-x").url == "https://api.anthropic.com/v1/messages"
