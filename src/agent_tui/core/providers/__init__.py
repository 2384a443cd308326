"""LLM providers: OpenAI-compatible, Anthropic, the offline demo and the script replayer."""

from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    Provider,
    ProviderError,
    StreamItem,
    TextDelta,
    ToolCallReady,
)

__all__ = [
    "Completion",
    "ModelRequest",
    "Provider",
    "ProviderError",
    "StreamItem",
    "TextDelta",
    "ToolCallReady",
]
