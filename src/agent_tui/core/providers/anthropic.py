"""Anthropic Messages API with streaming.

Configuration: ``ANTHROPIC_API_KEY`` (required), ``ANTHROPIC_BASE_URL`` (default
``https://api.anthropic.com``) and ``ANTHROPIC_MODEL`` when the model name is empty.

``Usage.input_tokens`` counts every prompt token (uncached + cache reads + cache writes), as
OpenAI's ``prompt_tokens`` does, so totals mean the same thing for both providers;
``cache_read_tokens`` is the cached part of it.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx2

from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    ProviderError,
    StreamItem,
    TextDelta,
    ToolCallReady,
)
from agent_tui.core.providers.http import (
    DEFAULT_TIMEOUT,
    EnvHints,
    HttpTransport,
    RetryPolicy,
    display_url,
)
from agent_tui.core.providers.image_parts import anthropic_blocks
from agent_tui.core.providers.sse import iter_sse
from agent_tui.core.transcript import Message, ToolCall, Usage

__all__ = ["ANTHROPIC_VERSION", "DEFAULT_BASE_URL", "AnthropicProvider", "to_anthropic_messages"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
HINTS = EnvHints(
    label="anthropic",
    base_url_var="ANTHROPIC_BASE_URL",
    api_key_var="ANTHROPIC_API_KEY",
    example_url=DEFAULT_BASE_URL,
)
_RETRYABLE_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error"})


def _blocks(
    message: Message,
    ran: dict[str, ToolCall] | None = None,
    images: Mapping[str, str] | None = None,
    vision: bool = True,
) -> tuple[str, list[dict[str, Any]]]:
    pictures = anthropic_blocks(message.images, images or {}, vision) if message.images else []
    if message.role == "tool":
        content: str | list[dict[str, Any]] = message.content
        if pictures:
            text = [{"type": "text", "text": message.content}] if message.content.strip() else []
            content = [*text, *pictures]
        result = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": content,
            "is_error": message.is_error,
        }
        return "user", [result]
    # The API rejects empty or whitespace-only text blocks; images go first (its advice).
    blocks: list[dict[str, Any]] = [
        *pictures,
        *([{"type": "text", "text": message.content}] if message.content.strip() else []),
    ]
    if message.role == "assistant":
        for sent in message.tool_calls:
            call = (ran or {}).get(sent.id, sent)
            arguments = call.parsed_arguments()
            blocks.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments or {}}
            )
    return message.role, blocks


def to_anthropic_messages(
    messages: list[Message], images: Mapping[str, str] | None = None, vision: bool = True
) -> list[dict[str, Any]]:
    """The ``messages`` array: content blocks, tool results as user turns, roles alternating;
    images as ``image`` blocks (``images``: base64 by digest).

    Consecutive messages of the same wire role (several tool results, or tool results then the
    user's next prompt) are merged into one message; messages with no content are dropped.
    """
    out: list[dict[str, Any]] = []
    # A call the model made by another tool's name (Claude Code's ``Bash``) is sent as the
    # call of ours it ran as (its record): this API checks each ``tool_use`` name against the
    # request's tools, which name ours only. A call through a proxy (``run_tool``) is sent as
    # the model made it: the proxy is among the request's tools, its target may not be.
    ran = {
        m.tool_call_id: m.record.call
        for m in messages
        if m.tool_call_id is not None
        and m.record is not None
        and m.record.call is not None
        and m.record.via is None
    }
    for message in messages:
        role, blocks = _blocks(message, ran, images, vision)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


@dataclass
class _Block:
    type: str
    id: str = ""
    name: str = ""
    json_parts: list[str] = field(default_factory=list)


class _ResponseState:
    """Accumulates one streamed message from its events."""

    def __init__(self, transport: HttpTransport, url: str) -> None:
        self._transport = transport
        self._url = url
        self._blocks: dict[int, _Block] = {}
        self.text: list[str] = []
        self.calls: list[ToolCall] = []
        self.tokens = {"input": 0, "cache_read": 0, "cache_creation": 0, "output": 0}
        self.stop_reason: str | None = None
        self.stopped = False

    def feed(self, data: dict[str, Any]) -> list[StreamItem]:
        kind = data.get("type")
        if kind == "message_start":
            message = data.get("message") or {}
            self._take_usage(message.get("usage") or {})
        elif kind == "content_block_start":
            return self._start_block(_int(data.get("index")), data.get("content_block") or {})
        elif kind == "content_block_delta":
            return self._delta(_int(data.get("index")), data.get("delta") or {})
        elif kind == "content_block_stop":
            return self._stop_block(_int(data.get("index")))
        elif kind == "message_delta":
            delta = data.get("delta") or {}
            if delta.get("stop_reason"):
                self.stop_reason = str(delta["stop_reason"])
            self._take_usage(data.get("usage") or {})
        elif kind == "message_stop":
            self.stopped = True
        elif kind == "error":
            error = data.get("error") or {}
            error_type = str(error.get("type") or "error")
            message = error.get("message") or "no details"
            raise self._transport.error(
                f"stream error from {self._url}: {error_type}: {message}",
                retryable=error_type in _RETRYABLE_ERRORS,
            )
        return []  # ping and unknown events

    def _take_usage(self, usage: dict[str, Any]) -> None:
        for key, name in (
            ("input", "input_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_creation", "cache_creation_input_tokens"),
            ("output", "output_tokens"),
        ):
            if isinstance(usage.get(name), int):
                self.tokens[key] = usage[name]  # message_delta counts are cumulative

    def _start_block(self, index: int, block: dict[str, Any]) -> list[StreamItem]:
        kind = str(block.get("type") or "")
        self._blocks[index] = _Block(
            type=kind, id=str(block.get("id") or ""), name=str(block.get("name") or "")
        )
        if kind == "text" and block.get("text"):
            return self._text(str(block["text"]))
        return []

    def _delta(self, index: int, delta: dict[str, Any]) -> list[StreamItem]:
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            return self._text(str(delta["text"]))
        if kind == "input_json_delta":
            block = self._blocks.setdefault(index, _Block(type="tool_use"))
            block.json_parts.append(str(delta.get("partial_json") or ""))
        return []  # thinking and signature deltas are not part of the transcript

    def _stop_block(self, index: int) -> list[StreamItem]:
        block = self._blocks.pop(index, None)
        if block is None or block.type != "tool_use":
            return []
        arguments = "".join(block.json_parts).strip() or "{}"
        call = ToolCall(id=block.id, name=block.name, arguments=arguments)
        self.calls.append(call)
        return [ToolCallReady(call)]

    def _text(self, text: str) -> list[StreamItem]:
        self.text.append(text)
        return [TextDelta(text)]

    def feed_whole(self, data: dict[str, Any]) -> list[StreamItem]:
        """A non-streamed ``message`` body, as a server that ignored ``stream`` returns it."""
        if data.get("type") == "error":
            return self.feed(data)
        items: list[StreamItem] = []
        for block in data.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and block.get("text"):
                items.extend(self._text(str(block["text"])))
            elif block.get("type") == "tool_use":
                arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
                call = ToolCall(
                    id=str(block.get("id") or ""),
                    name=str(block.get("name") or ""),
                    arguments=arguments,
                )
                self.calls.append(call)
                items.append(ToolCallReady(call))
        self._take_usage(data.get("usage") or {})
        self.stop_reason = str(data.get("stop_reason") or "end_turn")
        self.stopped = True
        return items

    def completion(self) -> Completion:
        t = self.tokens
        usage = Usage(
            input_tokens=t["input"] + t["cache_read"] + t["cache_creation"],
            output_tokens=t["output"],
            cache_read_tokens=t["cache_read"],
        )
        return Completion(
            text="".join(self.text),
            tool_calls=list(self.calls),
            usage=usage,
            stop_reason=self.stop_reason or "end_turn",
        )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class AnthropicProvider:
    """The Messages API with streaming, over ``httpx2``."""

    kind: Literal["anthropic"] = "anthropic"

    def __init__(
        self,
        model: str = "",
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | httpx2.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = 3,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 30.0,
        client: httpx2.AsyncClient | None = None,
    ) -> None:
        """``None`` for ``base_url`` / ``api_key`` and ``""`` for ``model`` read the env."""
        self.model = model or os.environ.get("ANTHROPIC_MODEL", "")
        if not self.model:
            raise ProviderError(
                "anthropic: no model name. Use --model anthropic:MODEL or set ANTHROPIC_MODEL."
            )
        if api_key is None:
            api_key = os.environ.get("ANTHROPIC_API_KEY", "")
        if not api_key:
            raise ProviderError("anthropic: no API key. Set ANTHROPIC_API_KEY.")
        if base_url is None:
            base_url = os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        self.name = f"anthropic:{self.model}"
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        retry = RetryPolicy(max_retries, retry_base_delay, retry_max_delay)
        self._http = HttpTransport(
            HINTS, timeout=timeout, retry=retry, client=client, secrets=[api_key]
        )

    @classmethod
    def from_env(cls, model: str = "", **kwargs: Any) -> AnthropicProvider:
        """A provider configured from ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``."""
        return cls(model, None, None, **kwargs)

    @property
    def url(self) -> str:
        if self.base_url.endswith("/v1"):
            return f"{self.base_url}/messages"
        return f"{self.base_url}/v1/messages"

    def build_headers(self) -> dict[str, str]:
        return {
            "x-api-key": self._api_key,
            "anthropic-version": ANTHROPIC_VERSION,
            "content-type": "application/json",
        }

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": request.max_tokens}
        if request.system:
            body["system"] = request.system
        body["messages"] = to_anthropic_messages(request.messages, request.images, request.vision)
        tools = request.tools.anthropic_tools()
        if tools:
            body["tools"] = tools
        body["stream"] = True
        return body

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        state = _ResponseState(self._http, display_url(self.url))
        async with self._http.post_stream(
            self.url,
            json_body=self.build_body(request),
            headers=self.build_headers(),
            on_retry=request.on_retry,
            max_retry_wait=request.max_retry_wait,
        ) as response:
            if "application/json" in response.headers.get("content-type", "").lower():
                text = (await response.aread()).decode("utf-8", errors="replace")
                for item in state.feed_whole(self._parse(text)):
                    yield item
            else:
                async for event in iter_sse(response.aiter_bytes()):
                    data = self._parse(event.data)
                    data.setdefault("type", event.event)
                    for item in state.feed(data):
                        yield item
                    if state.stopped:
                        break
            if not state.stopped:
                raise self._http.error(
                    f"the stream from {display_url(self.url)} ended before message_stop; "
                    "the response is incomplete. Try again."
                )
        yield state.completion()

    def _parse(self, text: str) -> dict[str, Any]:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if not isinstance(data, dict):
            excerpt = text if len(text) <= 200 else text[:200] + "…"
            raise self._http.error(
                f"{display_url(self.url)} sent an event that is not a JSON object: {excerpt!r}"
            )
        return data

    async def aclose(self) -> None:
        await self._http.aclose()
