"""OpenAIProvider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest

from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    ProviderError,
    StreamItem,
    TextDelta,
    ToolCallReady,
)
from agent_tui.core.providers.openai import OpenAIProvider, to_openai_messages
from agent_tui.core.tools import ToolRegistry
from agent_tui.core.transcript import Message, ToolCall, Usage

KEY = "sk-test-secret-key-123456"


def chunk(
    *,
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish: str | None = None,
) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def usage_chunk(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def fragment(index: int, arguments: str, *, id: str | None = None, name: str | None = None):
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    out: dict[str, Any] = {"index": index, "function": function}
    if id is not None:
        out.update(id=id, type="function")
    return out


def make_provider(server_url: str, **kwargs: Any) -> OpenAIProvider:
    kwargs.setdefault("retry_base_delay", 0.001)
    kwargs.setdefault("api_key", KEY)
    return OpenAIProvider("gpt-test", f"{server_url}/v1", **kwargs)


async def collect(
    provider: OpenAIProvider, request: ModelRequest, seen: list[StreamItem] | None = None
) -> list[StreamItem]:
    """Every item of one response (also appended to ``seen``, kept if the stream fails)."""
    seen = [] if seen is None else seen
    async with asyncio.timeout(10):
        async for item in provider.stream(request):
            seen.append(item)
    return seen


async def collect_error(provider: OpenAIProvider, request: ModelRequest) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await collect(provider, request)
    return info.value


@pytest.fixture
def request_(registry: ToolRegistry) -> ModelRequest:
    return ModelRequest(system="You are terse.", messages=[Message.user("hi")], tools=registry)


async def test_text_streamed_in_many_deltas(server, request_) -> None:
    words = ["Hel", "lo", ", ", "wor", "ld", "!"]
    body = server.sse_bytes(
        *[chunk(content=w) for w in words], chunk(finish="stop"), usage_chunk(12, 6), "[DONE]"
    )
    server.add_sse(body, chunk_size=7)
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    assert [i.text for i in items if isinstance(i, TextDelta)] == words
    completion = items[-1]
    assert isinstance(completion, Completion)
    assert completion.text == "Hello, world!"
    assert completion.stop_reason == "stop"
    assert completion.usage == Usage(input_tokens=12, output_tokens=6)
    assert sum(isinstance(i, Completion) for i in items) == 1


async def test_interleaved_tool_call_fragments_are_assembled_by_index(server, request_) -> None:
    body = server.sse_bytes(
        chunk(content="Looking."),
        chunk(tool_calls=[fragment(0, "", id="call_a", name="read_file")]),
        chunk(tool_calls=[fragment(1, '{"pat', id="call_b", name="grep")]),
        chunk(tool_calls=[fragment(0, '{"pa')]),
        chunk(tool_calls=[fragment(1, 'tern": "fo'), fragment(0, 'th": "a.py"')]),
        chunk(tool_calls=[fragment(1, 'o\\"bar"}')]),
        chunk(tool_calls=[fragment(0, "}")]),
        chunk(finish="tool_calls"),
        usage_chunk(100, 20, cached=64),
        "[DONE]",
    )
    server.add_sse(body, chunk_size=5)
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    expected = [
        ToolCall(id="call_a", name="read_file", arguments='{"path": "a.py"}'),
        ToolCall(id="call_b", name="grep", arguments='{"pattern": "foo\\"bar"}'),
    ]
    assert items[0] == TextDelta("Looking.")
    assert [i.call for i in items if isinstance(i, ToolCallReady)] == expected
    assert isinstance(items[-1], Completion)
    assert items[-1].tool_calls == expected
    assert items[-1].stop_reason == "tool_calls"
    assert items[-1].usage == Usage(input_tokens=100, output_tokens=20, cache_read_tokens=64)
    assert expected[1].parsed_arguments() == {"pattern": 'foo"bar'}


SEPARATORS = "\u2028\u2029\u0085"  # line ends for str.splitlines, not for the event stream


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
async def test_raw_line_separators_in_json_strings_complete_the_turn(
    server, request_, newline: str
) -> None:
    text = [f"a{SEPARATORS[0]}b", f"{SEPARATORS[1]}c{SEPARATORS[2]}", "d"]
    arguments = json.dumps({"pattern": f"x{SEPARATORS}y"}, ensure_ascii=False)
    body = server.sse_bytes(
        *[chunk(content=piece) for piece in text],
        chunk(tool_calls=[fragment(0, arguments[:9], id="call_s", name="grep")]),
        chunk(tool_calls=[fragment(0, arguments[9:])]),
        chunk(finish="tool_calls"),
        usage_chunk(5, 3),
        "[DONE]",
        raw_unicode=True,
        newline=newline,
    )
    assert "\u2028".encode() in body  # sent raw,
    assert b"\\u2028" not in body  # not escaped
    server.add_sse(body, chunk_size=3)  # chunk boundaries inside characters and CRLFs too
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    assert [i.text for i in items if isinstance(i, TextDelta)] == text
    completion = items[-1]
    assert isinstance(completion, Completion)
    assert completion.text == "".join(text)
    assert completion.stop_reason == "tool_calls"
    assert completion.tool_calls == [ToolCall(id="call_s", name="grep", arguments=arguments)]
    assert completion.tool_calls[0].parsed_arguments() == {"pattern": f"x{SEPARATORS}y"}
    assert completion.usage == Usage(input_tokens=5, output_tokens=3)


async def test_tool_call_without_id_or_arguments_gets_defaults(server, request_) -> None:
    body = server.sse_bytes(
        chunk(tool_calls=[{"index": 0, "function": {"name": "grep"}}]),
        chunk(finish="tool_calls"),
        "[DONE]",
    )
    server.add_sse(body)
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    (ready,) = [i for i in items if isinstance(i, ToolCallReady)]
    assert ready.call.id.startswith("call_")
    assert ready.call.name == "grep"
    assert ready.call.arguments == "{}"


async def test_request_body_and_bearer_header(server, registry) -> None:
    call = ToolCall(id="call_1", name="read_file", arguments='{"path": "x"}')
    messages = [
        Message.user("read x"),
        Message.assistant("", [call]),
        Message.tool(call, "contents of x"),
        Message.assistant("done"),
        Message.user("thanks"),
    ]
    server.add_sse(server.sse_bytes(chunk(content="ok", finish="stop"), "[DONE]"))
    provider = make_provider(server.url)
    await collect(provider, ModelRequest(system="SYS", messages=messages, tools=registry))
    await provider.aclose()

    (recorded,) = server.requests
    assert recorded.path == "/v1/chat/completions"
    assert recorded.headers["authorization"] == f"Bearer {KEY}"
    body = recorded.json
    assert body["model"] == "gpt-test"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["tools"] == registry.openai_tools()
    assert [t["function"]["name"] for t in body["tools"]] == ["grep", "read_file"]
    assert body["messages"] == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "read x"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "x"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "contents of x"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "thanks"},
    ]


async def test_no_key_means_no_authorization_and_no_tools_means_no_tools_key(server) -> None:
    server.add_sse(server.sse_bytes(chunk(content="ok", finish="stop"), "[DONE]"))
    provider = make_provider(server.url, api_key="")
    await collect(
        provider, ModelRequest(system="", messages=[Message.user("hi")], tools=ToolRegistry())
    )
    await provider.aclose()

    (recorded,) = server.requests
    assert "authorization" not in recorded.headers
    assert "tools" not in recorded.json
    assert recorded.json["messages"] == [{"role": "user", "content": "hi"}]


def test_assistant_text_is_kept_next_to_tool_calls() -> None:
    call = ToolCall(id="c", name="grep", arguments="{}")
    (wire,) = to_openai_messages("", [Message.assistant("Let me look.", [call])])
    assert wire["content"] == "Let me look."


async def test_server_that_ignores_stream_returns_json(server, request_) -> None:
    server.add_json(
        200,
        {
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "Sure.",
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "grep", "arguments": '{"pattern": "x"}'},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3},
        },
    )
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    call = ToolCall(id="c1", name="grep", arguments='{"pattern": "x"}')
    assert items == [
        TextDelta("Sure."),
        ToolCallReady(call),
        Completion(
            text="Sure.",
            tool_calls=[call],
            usage=Usage(input_tokens=5, output_tokens=3),
            stop_reason="tool_calls",
        ),
    ]


async def test_429_is_retried_honouring_retry_after(server, request_) -> None:
    server.add_json(
        429, {"error": {"message": "Rate limit reached"}}, headers={"Retry-After": "0.01"}
    )
    server.add_sse(server.sse_bytes(chunk(content="ok", finish="stop"), "[DONE]"))
    # Without Retry-After the backoff would be 60s; the 10s deadline proves it was honoured.
    provider = make_provider(server.url, retry_base_delay=60.0, retry_max_delay=60.0)
    items = await collect(provider, request_)
    await provider.aclose()

    assert len(server.requests) == 2
    assert isinstance(items[-1], Completion)
    assert items[-1].text == "ok"


async def test_500_after_max_retries_raises_with_server_message(server, request_) -> None:
    for _ in range(3):
        server.add_json(500, {"error": {"message": "The server had an error"}})
    provider = make_provider(server.url, max_retries=2)
    error = await collect_error(provider, request_)
    await provider.aclose()

    assert len(server.requests) == 3
    assert error.status == 500
    assert str(error).startswith(f"openai: HTTP 500 from {server.url}/v1/chat/completions: ")
    assert "The server had an error" in str(error)
    assert "gave up after 2 retries" in str(error)


async def test_401_is_not_retried_and_never_shows_the_key(server, request_) -> None:
    server.add_json(401, {"error": {"message": f"Invalid API key {KEY}", "type": "auth"}})
    provider = make_provider(server.url)
    error = await collect_error(provider, request_)
    await provider.aclose()

    assert len(server.requests) == 1
    assert error.status == 401
    assert not error.retryable
    message = str(error)
    assert message.startswith(
        f"openai: HTTP 401 from {server.url}/v1/chat/completions: Invalid API key"
    )
    assert "AGENT_API_KEY" in message
    assert KEY not in message


async def test_connection_refused_names_url_and_env_var(refused_url, request_) -> None:
    provider = make_provider(refused_url, max_retries=1)
    error = await collect_error(provider, request_)
    await provider.aclose()

    message = str(error)
    assert f"{refused_url}/v1/chat/completions" in message
    assert "cannot connect" in message
    assert "Connection refused" in message
    assert "(tried 2 times)" in message
    assert "AGENT_BASE_URL" in message
    assert KEY not in message


async def test_read_timeout_before_response_is_explained(server, request_) -> None:
    server.add_hang()
    provider = make_provider(server.url, max_retries=0, timeout=httpx2.Timeout(5.0, read=0.2))
    error = await collect_error(provider, request_)
    await provider.aclose()

    message = str(error)
    assert message.startswith("openai: read timeout:")
    assert f"{server.url}/v1/chat/completions" in message
    assert "0.2s" in message
    assert "AGENT_BASE_URL" in message


async def test_read_timeout_mid_stream_is_not_retried(server, request_) -> None:
    server.add_sse(server.sse_bytes(chunk(content="partial")), hang_after_chunks=True)
    provider = make_provider(server.url, timeout=httpx2.Timeout(5.0, read=0.5))
    seen: list[StreamItem] = []
    with pytest.raises(ProviderError, match="in the middle of the response"):
        await collect(provider, request_, seen)
    await provider.aclose()

    assert seen == [TextDelta("partial")]
    assert len(server.requests) == 1


async def test_dropped_connection_before_the_response_is_retried(server, request_) -> None:
    server.add_drop()
    server.add_sse(server.sse_bytes(chunk(content="ok", finish="stop"), "[DONE]"))
    provider = make_provider(server.url)
    items = await collect(provider, request_)
    await provider.aclose()

    assert len(server.requests) == 2
    assert items[-1] == Completion(text="ok")


async def test_connection_cut_mid_stream_is_a_readable_error(server, request_) -> None:
    server.add_sse(server.sse_bytes(chunk(content="par")), cut_after_chunks=True)
    provider = make_provider(server.url)
    seen: list[StreamItem] = []
    with pytest.raises(ProviderError, match="broke before the response finished"):
        await collect(provider, request_, seen)
    await provider.aclose()

    assert seen == [TextDelta("par")]
    assert len(server.requests) == 1


async def test_base_url_without_scheme_is_explained(request_) -> None:
    provider = OpenAIProvider("m", "localhost:11434/v1", KEY)
    error = await collect_error(provider, request_)
    await provider.aclose()
    assert "invalid URL 'localhost:11434/v1/chat/completions'" in str(error)
    assert "Set AGENT_BASE_URL to a full URL such as http://localhost:11434/v1" in str(error)


async def test_abandoning_the_stream_closes_the_response(server, request_) -> None:
    server.add_sse(server.sse_bytes(chunk(content="first")), hang_after_chunks=True)
    provider = make_provider(server.url)
    stream = provider.stream(request_)
    async with asyncio.timeout(10):
        assert await anext(stream) == TextDelta("first")
        await stream.aclose()  # e.g. the user pressed Esc
    await provider.aclose()


async def test_error_object_inside_the_stream(server, request_) -> None:
    server.add_sse(
        server.sse_bytes(chunk(content="a"), {"error": {"message": "upstream overloaded"}})
    )
    provider = make_provider(server.url)
    error = await collect_error(provider, request_)
    await provider.aclose()
    assert "upstream overloaded" in str(error)


async def test_stream_cut_short_is_an_error(server, request_) -> None:
    server.add_sse(server.sse_bytes(chunk(content="half an ans")))
    provider = make_provider(server.url)
    error = await collect_error(provider, request_)
    await provider.aclose()
    assert "ended before the response was complete" in str(error)


async def test_html_page_points_at_the_base_url(server, request_) -> None:
    server.add_text(200, b"<html>log in</html>", "text/html; charset=utf-8")
    provider = make_provider(server.url)
    error = await collect_error(provider, request_)
    await provider.aclose()
    assert "HTML page" in str(error)
    assert "AGENT_BASE_URL" in str(error)


async def test_404_html_body_is_summarised_not_dumped(server, request_) -> None:
    server.add_text(404, b"<!doctype html><html><body>Not here</body></html>", "text/html")
    provider = make_provider(server.url)
    error = await collect_error(provider, request_)
    await provider.aclose()
    assert str(error) == (
        f"openai: HTTP 404 from {server.url}/v1/chat/completions: Not Found "
        "(check the model name and AGENT_BASE_URL)"
    )


async def test_from_env(monkeypatch, server, request_) -> None:
    monkeypatch.setenv("AGENT_BASE_URL", f"{server.url}/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fallback")
    monkeypatch.setenv("AGENT_MODEL", "llama3")
    provider = OpenAIProvider.from_env("", retry_base_delay=0.001)
    assert provider.name == "openai:llama3"
    assert provider.kind == "openai"
    server.add_sse(server.sse_bytes(chunk(content="ok", finish="stop"), "[DONE]"))
    await collect(provider, request_)
    await provider.aclose()

    (recorded,) = server.requests
    assert recorded.path == "/v1/chat/completions"
    assert recorded.headers["authorization"] == "Bearer sk-fallback"
    assert recorded.json["model"] == "llama3"


def test_agent_api_key_wins_and_missing_model_is_an_error(monkeypatch) -> None:
    monkeypatch.setenv("AGENT_API_KEY", "sk-agent")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    provider = OpenAIProvider.from_env("gpt-x")
    assert provider.build_headers()["Authorization"] == "Bearer sk-agent"
    assert provider.url == "https://api.openai.com/v1/chat/completions"
    with pytest.raises(ProviderError, match="AGENT_MODEL"):
        OpenAIProvider.from_env("")


async def test_injected_client_is_not_closed(server, request_) -> None:
    async with httpx2.AsyncClient() as client:
        provider = make_provider(server.url, client=client)
        server.add_sse(server.sse_bytes(chunk(content="ok", finish="stop"), "[DONE]"))
        await collect(provider, request_)
        await provider.aclose()
        assert not client.is_closed
