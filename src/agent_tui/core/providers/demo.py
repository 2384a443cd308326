"""The offline ``demo`` model: deterministic, no key, clearly labelled.

It understands a few plain requests — read/list/search files, run a command, edit a file — and
a ``tour`` that walks through reading, a parallel group, an edit that needs approval and a
large output. It is stateless: the step to play is the number of assistant messages since the
last user message, so it also works after ``--continue``.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any, Literal

from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    StreamItem,
    ToolCallReady,
)
from agent_tui.core.providers.chunking import estimate_usage, split_words, stream_text
from agent_tui.core.providers.demo_plans import Step, plan_for
from agent_tui.core.transcript import Message, ToolCall

DEFAULT_DELAY = 0.012


def _delay() -> float:
    try:
        return float(os.environ.get("AGENT_DEMO_DELAY", DEFAULT_DELAY))
    except ValueError:
        return DEFAULT_DELAY


def _turn_state(messages: list[Message]) -> tuple[str, int, list[Message]]:
    """The last user prompt, how many assistant steps followed it, and the tool results."""
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    prompt = messages[last_user].content if last_user >= 0 else ""
    after = messages[last_user + 1 :]
    steps = sum(1 for m in after if m.role == "assistant")
    results = [m for m in after if m.role == "tool"]
    return prompt, steps, results


class DemoProvider:
    kind: Literal["demo"] = "demo"
    name = "demo"

    def __init__(self, delay: float | None = None) -> None:
        self.delay = _delay() if delay is None else delay

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        prompt, step_index, results = _turn_state(request.messages)
        steps = plan_for(prompt)
        if _was_denied(results, step_index):
            step = Step(text="You denied that call, so I'll stop here. Nothing else was run.")
        elif step_index < len(steps):
            step = steps[step_index]
        else:
            step = Step(text=_fallback(results))
        text = step.render_text(results)
        async for delta in stream_text(split_words(text), self.delay):
            yield delta
        calls: list[ToolCall] = []
        for n, (name, arguments) in enumerate(step.render_calls(results)):
            call = ToolCall(
                id=f"demo_{len(request.messages)}_{n + 1}",
                name=name,
                arguments=_encode(arguments),
            )
            calls.append(call)
            yield ToolCallReady(call)
        yield Completion(
            text=text,
            tool_calls=calls,
            usage=estimate_usage(request, len(text)),
            stop_reason="tool_calls" if calls else "stop",
        )

    async def aclose(self) -> None:
        return None


def _encode(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _was_denied(results: list[Message], step_index: int) -> bool:
    """True when the user denied a call of the previous step."""
    return step_index > 0 and any(
        r.is_error and r.content.startswith("Permission denied") for r in results[-3:]
    )


def _fallback(results: list[Message]) -> str:
    failed = sum(1 for r in results if r.is_error)
    if failed:
        return f"Done — {failed} of {len(results)} call(s) did not succeed; see the lane."
    return "Done."
