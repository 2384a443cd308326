"""Shared helpers for the offline providers: streaming text in chunks and estimating usage."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

from agent_tui.core.providers.base import ModelRequest, TextDelta
from agent_tui.core.transcript import Usage

_WORDS = re.compile(r"\S+\s*|\s+")


def split_words(text: str) -> list[str]:
    """Split text into word-sized pieces that concatenate back to ``text`` exactly."""
    return _WORDS.findall(text)


async def stream_text(chunks: list[str], delay: float) -> AsyncIterator[TextDelta]:
    for chunk in chunks:
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)
        yield TextDelta(chunk)


def estimate_usage(request: ModelRequest, output_chars: int) -> Usage:
    """About four characters a token: enough for a status bar when no server counts for us."""
    input_chars = len(request.system) + len(request.tools.openai_tools_json())
    input_chars += sum(
        len(m.content) + sum(len(c.arguments) for c in m.tool_calls) for m in request.messages
    )
    return Usage(input_tokens=input_chars // 4, output_tokens=max(1, output_chars // 4))
