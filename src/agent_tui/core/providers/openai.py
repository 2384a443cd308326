"""OpenAI-compatible Chat Completions (OpenAI, Ollama, DeepSeek, OpenRouter, vLLM, llama.cpp…).

Configuration: ``AGENT_BASE_URL`` (default ``https://api.openai.com/v1``), ``AGENT_API_KEY``
(falling back to ``OPENAI_API_KEY``; no key means no ``Authorization`` header, as Ollama wants)
and ``AGENT_MODEL`` when the model name is empty.
"""

from __future__ import annotations

import json
import os
import uuid
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
from agent_tui.core.providers.image_parts import openai_parts, tool_images_lead
from agent_tui.core.providers.sse import iter_sse
from agent_tui.core.transcript import Message, ToolCall, Usage

__all__ = ["DEFAULT_BASE_URL", "OpenAIProvider", "to_openai_messages"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
HINTS = EnvHints(
    label="openai",
    base_url_var="AGENT_BASE_URL",
    api_key_var="AGENT_API_KEY",
    example_url="http://localhost:11434/v1",
)


def to_openai_messages(
    system: str,
    messages: list[Message],
    images: Mapping[str, str] | None = None,
    vision: bool = True,
) -> list[dict[str, Any]]:
    """The ``messages`` array: the system prompt, then the transcript in wire format. Images
    (``images``: base64 by digest) are ``image_url`` parts; a tool result's follow the run of
    tool messages in a user message (``image_parts``)."""
    found = images or {}
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    pending: list[dict[str, Any]] = []  # the images of the tool results just sent
    for message in messages:
        if message.role != "tool" and pending:
            out.append({"role": "user", "content": pending})
            pending = []
        if message.role == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": message.tool_call_id or "",
                    "content": message.content,
                }
            )
            if message.images:
                lead = tool_images_lead(message.name, message.tool_call_id, message.images)
                pending.append({"type": "text", "text": lead})
                pending.extend(openai_parts(message.images, found, vision))
        elif message.role == "assistant" and message.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": message.content or None,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        }
                        for call in message.tool_calls
                    ],
                }
            )
        elif message.images:
            text = [{"type": "text", "text": message.content}] if message.content else []
            parts = [*text, *openai_parts(message.images, found, vision)]
            out.append({"role": message.role, "content": parts})
        else:
            out.append({"role": message.role, "content": message.content})
    if pending:
        out.append({"role": "user", "content": pending})
    return out


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    emitted: bool = False


class _ToolCallAssembler:
    """Tool-call fragments keyed by ``index``: id and name arrive once, arguments in pieces."""

    def __init__(self) -> None:
        self._calls: dict[int, _PartialCall] = {}
        self._suffix = uuid.uuid4().hex[:8]

    def add(self, fragment: dict[str, Any]) -> None:
        index = self._index_of(fragment)
        call = self._calls.setdefault(index, _PartialCall())
        if fragment.get("id") and not call.id:
            call.id = str(fragment["id"])
        function = fragment.get("function") or {}
        if function.get("name") and not call.name:
            call.name = str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif arguments is not None:  # a server that sends an object instead of JSON text
            call.arguments.append(json.dumps(arguments, ensure_ascii=False))

    def _index_of(self, fragment: dict[str, Any]) -> int:
        index = fragment.get("index")
        if isinstance(index, int):
            return index
        # No index (some servers): match by id, else a new id opens a new call, else the last.
        fragment_id = fragment.get("id")
        for known, call in self._calls.items():
            if fragment_id and call.id == fragment_id:
                return known
        if fragment_id or not self._calls:
            return max(self._calls, default=-1) + 1
        return max(self._calls)

    def take_ready(self) -> list[ToolCall]:
        """Every call not yet emitted, in index order."""
        ready: list[ToolCall] = []
        for index in sorted(self._calls):
            call = self._calls[index]
            if call.emitted:
                continue
            call.emitted = True
            ready.append(
                ToolCall(
                    id=call.id or f"call_{index}_{self._suffix}",
                    name=call.name,
                    arguments="".join(call.arguments) or "{}",
                )
            )
        return ready


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _usage(data: dict[str, Any]) -> Usage:
    details = data.get("prompt_tokens_details") or {}
    cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return Usage(
        input_tokens=_int(data.get("prompt_tokens")),
        output_tokens=_int(data.get("completion_tokens")),
        cache_read_tokens=cached or _int(data.get("prompt_cache_hit_tokens")),  # DeepSeek
    )


class _ResponseState:
    """Accumulates one response from stream chunks (or from one non-streamed body)."""

    def __init__(self, transport: HttpTransport, url: str) -> None:
        self._transport = transport
        self._url = url
        self.text: list[str] = []
        self.calls = _ToolCallAssembler()
        self.emitted: list[ToolCall] = []
        self.usage = Usage()
        self.stop_reason: str | None = None

    def feed(self, chunk: dict[str, Any], *, whole: bool = False) -> list[StreamItem]:
        error = chunk.get("error")
        if error:
            message = error.get("message") if isinstance(error, dict) else str(error)
            raise self._transport.error(f"error from {self._url}: {message or error}")
        if isinstance(chunk.get("usage"), dict):
            self.usage = _usage(chunk["usage"])
        items: list[StreamItem] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("message" if whole else "delta")
            if not isinstance(delta, dict):
                delta = {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                self.text.append(content)
                items.append(TextDelta(content))
            for position, fragment in enumerate(delta.get("tool_calls") or []):
                if whole and isinstance(fragment, dict):
                    fragment = {"index": position, **fragment}
                if isinstance(fragment, dict):
                    self.calls.add(fragment)
            if choice.get("finish_reason"):
                self.stop_reason = str(choice["finish_reason"])
                items.extend(self._ready())
        return items

    def _ready(self) -> list[StreamItem]:
        ready = self.calls.take_ready()
        self.emitted.extend(ready)
        return [ToolCallReady(call) for call in ready]

    def finish(self) -> list[StreamItem]:
        items = self._ready()
        completion = Completion(
            text="".join(self.text),
            tool_calls=list(self.emitted),
            usage=self.usage,
            stop_reason=self.stop_reason or "stop",
        )
        return [*items, completion]


class OpenAIProvider:
    """The Chat Completions API with streaming, over ``httpx2``."""

    kind: Literal["openai"] = "openai"

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
        self.model = model or os.environ.get("AGENT_MODEL", "")
        if not self.model:
            raise ProviderError(
                "openai: no model name. Use --model openai:MODEL or set AGENT_MODEL."
            )
        if base_url is None:
            base_url = os.environ.get("AGENT_BASE_URL") or DEFAULT_BASE_URL
        if api_key is None:
            api_key = os.environ.get("AGENT_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
        self.name = f"openai:{self.model}"
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        retry = RetryPolicy(max_retries, retry_base_delay, retry_max_delay)
        self._http = HttpTransport(
            HINTS, timeout=timeout, retry=retry, client=client, secrets=[api_key]
        )

    @classmethod
    def from_env(cls, model: str = "", **kwargs: Any) -> OpenAIProvider:
        """A provider configured from ``AGENT_BASE_URL``, ``AGENT_API_KEY``, ``AGENT_MODEL``."""
        return cls(model, None, None, **kwargs)

    @property
    def url(self) -> str:
        if self.base_url.endswith("/chat/completions"):
            return self.base_url
        return f"{self.base_url}/chat/completions"

    def build_headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(
                request.system, request.messages, request.images, request.vision
            ),
        }
        tools = request.tools.openai_tools()
        if tools:
            body["tools"] = tools
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
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
            content_type = response.headers.get("content-type", "").lower()
            if "application/json" in content_type:  # the server ignored "stream": true
                for item in state.feed(await self._read_json(response), whole=True):
                    yield item
            elif "text/html" in content_type:
                raise self._http.error(
                    f"{display_url(self.url)} answered with an HTML page, not a model response. "
                    "Check AGENT_BASE_URL (it usually ends in /v1)."
                )
            else:
                saw_done = False
                async for event in iter_sse(response.aiter_bytes()):
                    if event.data.strip() == "[DONE]":
                        saw_done = True
                        break
                    for item in state.feed(self._parse_chunk(event.data)):
                        yield item
                if not saw_done and state.stop_reason is None:
                    raise self._http.error(
                        f"the stream from {display_url(self.url)} ended before the response "
                        "was complete (no finish_reason and no [DONE]). Try again."
                    )
        for item in state.finish():
            yield item

    async def _read_json(self, response: httpx2.Response) -> dict[str, Any]:
        return self._parse_chunk((await response.aread()).decode("utf-8", errors="replace"))

    def _parse_chunk(self, text: str) -> dict[str, Any]:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            excerpt = text if len(text) <= 200 else text[:200] + "…"
            raise self._http.error(
                f"{display_url(self.url)} sent data that is not JSON: {excerpt!r}"
            ) from None
        if not isinstance(data, dict):
            raise self._http.error(
                f"{display_url(self.url)} sent JSON that is not an object: {text[:200]!r}"
            )
        return data

    async def aclose(self) -> None:
        await self._http.aclose()
