"""The provider protocol: one streamed model request, in provider-neutral terms.

A provider turns (system prompt, transcript, tool registry) into a stream of ``TextDelta`` and
``ToolCallReady`` items, then exactly one ``Completion``. Wire-format details (SSE, fragments of
tool-call arguments, usage chunks) stay inside each provider.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import Message, ToolCall, Usage


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallReady:
    """A tool call whose name and full argument text have arrived."""

    call: ToolCall


@dataclass(frozen=True)
class Completion:
    """The end of one model response."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = "stop"


@dataclass(frozen=True)
class Retrying:
    """The request failed before its response began and is sent again after ``wait``
    seconds: retry ``attempt`` of ``retries`` (both counted from 1), because of ``reason``
    (the error, as the user would read it)."""

    attempt: int
    retries: int
    wait: float
    reason: str
    retry_after: bool = False
    """The wait is the server's own (``Retry-After``), not our backoff."""


StreamItem = TextDelta | ToolCallReady | Completion


@dataclass(frozen=True)
class ModelRequest:
    system: str
    messages: list[Message]
    tools: ToolRegistry
    max_tokens: int = 8192
    purpose: Literal["turn", "summary"] = "turn"
    """``summary``: a compaction's summarizer request (no tools; the demo model answers it
    with a summary of its own)."""
    on_retry: Callable[[Retrying], None] | None = field(default=None, compare=False)
    """Told before each wait for a retry (the agent shows it: status, event)."""
    max_retry_wait: float | None = None
    """The longest ``Retry-After`` the request honours (None: the transport's default);
    a server asking for more ends the request with an error that says so."""
    images: Mapping[str, str] = field(default_factory=dict)
    """The base64 of the images the messages name, by digest (``core.images.store``); an
    image missing here is sent as a text note (``ImageRef.note``)."""
    vision: bool = True
    """The model takes images (``core.images.vision``): when False each is a text note."""


Frontend = Literal["tui", "headless"]
"""The front end a run is shown in: the TUI (cards in a lane, approval prompts) or headless
(``agent-tui -p``: a line per call on stderr or JSON events, no one to ask). Only a provider
that talks about the app itself (the demo) needs to know it; it is passed, never guessed."""


class ProviderError(Exception):
    """A model request failed in a way the user must see (with the server's own message)."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False):
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class Provider(Protocol):
    """What the agent loop needs from a model."""

    name: str
    """The model spec as the user wrote it, e.g. ``openai:gpt-4o`` or ``demo``."""

    @property
    def kind(self) -> Literal["demo", "script", "openai", "anthropic"]: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Stream one response; the last item is always a ``Completion``."""
        ...

    async def aclose(self) -> None: ...
