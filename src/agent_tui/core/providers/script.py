"""The ``script:PATH`` provider: replays a JSON file of assistant turns, one per model request.

Format (documented in docs/headless.md)::

    {"turns": [
      {"text": "Let me look.", "tool_calls": [
         {"name": "read_file", "arguments": {"path": "README.md"}},
         {"name": "edit_file", "raw_arguments": "{\\"path\\": oops"}]},
      {"text": "Done.", "usage": {"input_tokens": 1200, "output_tokens": 40}}
    ]}

A bare list of turns is accepted too. Per turn: ``text`` (streamed word by word, or ``chunks``
to choose the pieces), ``tool_calls`` (``id`` optional, ``arguments`` an object, or
``raw_arguments`` sent verbatim — for invalid JSON), ``usage`` (estimated when absent),
``delay`` (seconds between chunks), ``error`` (the request fails with that message).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from agent_tui.core.empty import empty_list
from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    ProviderError,
    StreamItem,
    ToolCallReady,
)
from agent_tui.core.providers.chunking import estimate_usage, split_words, stream_text
from agent_tui.core.schema_errors import format_validation_error
from agent_tui.core.transcript import ToolCall, Usage


class ScriptCall(BaseModel):
    id: str | None = None
    name: str
    arguments: dict[str, Any] | None = None
    raw_arguments: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ScriptCall:
        if self.arguments is not None and self.raw_arguments is not None:
            raise ValueError("give either 'arguments' or 'raw_arguments', not both")
        return self


class ScriptTurn(BaseModel):
    text: str = ""
    chunks: list[str] | None = None
    tool_calls: list[ScriptCall] = Field(default_factory=empty_list)
    usage: Usage | None = None
    delay: float = 0.0
    error: str | None = None


class Script(BaseModel):
    turns: list[ScriptTurn]


def load_script(path: Path) -> Script:
    """Read and validate a script file; problems become a ProviderError naming the file."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProviderError(f"script file not found: {path}") from None
    except json.JSONDecodeError as exc:
        raise ProviderError(
            f"script file {path} is not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}"
        ) from None
    if isinstance(raw, list):
        raw = {"turns": raw}
    try:
        return Script.model_validate(raw)
    except ValidationError as exc:
        raise ProviderError(
            f"script file {path} does not match the script format:\n" + format_validation_error(exc)
        ) from None


class ScriptProvider:
    kind: Literal["script"] = "script"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.script = load_script(path)
        self.name = f"script:{path}"
        self.played = 0
        self.requests: list[ModelRequest] = []
        """Every request it was sent, in order (tests check what the model got)."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        async for item in self.play(request):
            yield item

    async def play(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """The next scripted turn's answer to ``request`` (not recorded: ``stream`` does)."""
        if self.played >= len(self.script.turns):
            yield Completion(text="", stop_reason="script_end")
            return
        index = self.played
        turn = self.script.turns[index]
        self.played += 1
        if turn.error:
            raise ProviderError(f"script turn {index + 1}: {turn.error}")
        chunks = turn.chunks if turn.chunks is not None else split_words(turn.text)
        async for delta in stream_text(chunks, turn.delay):
            yield delta
        calls = []
        for n, spec in enumerate(turn.tool_calls):
            raw = spec.raw_arguments
            if raw is None:
                raw = json.dumps(spec.arguments or {}, ensure_ascii=False)
            call = ToolCall(
                id=spec.id or f"call_{index + 1}_{n + 1}", name=spec.name, arguments=raw
            )
            calls.append(call)
            yield ToolCallReady(call)
        text = "".join(chunks)
        usage = turn.usage or estimate_usage(request, len(text))
        yield Completion(
            text=text,
            tool_calls=calls,
            usage=usage,
            stop_reason="tool_calls" if calls else "stop",
        )

    async def aclose(self) -> None:
        return None
