"""The offline ``demo`` model: deterministic, no key, clearly labelled.

It understands a few plain requests — read/list/search files, run a command, edit a file — and
a ``tour`` that walks through reading, a parallel group, an edit that needs approval and a
large output. What it says about the app fits the front end it is told it runs in (cards and
approvals in the TUI; stderr lines, JSON events and ``--allow`` headless). It is stateless:
the step to play is the number of assistant messages since the last user message, so it also
works after ``--continue``.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any, Literal

from agent_tui.core.providers.base import (
    Completion,
    Frontend,
    ModelRequest,
    StreamItem,
    ToolCallReady,
)
from agent_tui.core.providers.chunking import estimate_usage, split_words, stream_text
from agent_tui.core.providers.demo_plans import WORDS, Step, Words, plan_for
from agent_tui.core.transcript import Message, ToolCall

DEFAULT_DELAY = 0.012


def _delay() -> float:
    try:
        return float(os.environ.get("AGENT_DEMO_DELAY", DEFAULT_DELAY))
    except ValueError:
        return DEFAULT_DELAY


def _turn_state(messages: list[Message]) -> tuple[str, int, list[Message]]:
    """The last user prompt, how many assistant steps followed it, and the tool results."""
    last_user = max(
        (i for i, m in enumerate(messages) if m.role == "user" and not m.injected), default=-1
    )
    prompt = messages[last_user].content if last_user >= 0 else ""
    after = messages[last_user + 1 :]
    steps = sum(1 for m in after if m.role == "assistant")
    results = [m for m in after if m.role == "tool"]
    return prompt, steps, results


class DemoProvider:
    kind: Literal["demo"] = "demo"
    name = "demo"

    def __init__(self, delay: float | None = None, *, frontend: Frontend = "tui") -> None:
        self.delay = _delay() if delay is None else delay
        self.words = WORDS[frontend]
        """What it says about the app: cards and approvals in the TUI, stderr lines, JSON
        events and ``--allow`` headless."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        if request.purpose == "summary":
            text = demo_summary(request.messages[-1].content if request.messages else "")
            async for delta in stream_text(split_words(text), self.delay):
                yield delta
            yield Completion(text=text, usage=estimate_usage(request, len(text)))
            return
        prompt, step_index, results = _turn_state(request.messages)
        steps = plan_for(prompt, self.words)
        if (refusal := _refusal(results, step_index)) is not None:
            step = Step(text=self.words.refused(refusal))
        elif step_index < len(steps):
            step = steps[step_index]
        else:
            step = Step(text=_fallback(results, self.words))
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


def _refusal(results: list[Message], step_index: int) -> str | None:
    """The reason a call of the previous step was refused (``Permission denied: <reason>``),
    or None when none was."""
    if step_index == 0:
        return None
    for result in results[-3:]:
        if result.is_error and result.content.startswith("Permission denied"):
            first = result.content.splitlines()[0]
            return first.removeprefix("Permission denied").lstrip(": ").strip()
    return None


def _fallback(results: list[Message], words: Words) -> str:
    failed = sum(1 for r in results if r.is_error)
    if failed:
        return f"Done — {failed} of {len(results)} call(s) did not succeed; {words.failures}."
    return "Done."


def demo_summary(instruction: str) -> str:
    """The demo model's compaction summary: offline, it lists what the user asked (the
    ``[user]`` blocks of the conversation it was given) and the calls that were made."""
    asked: list[str] = []
    calls = 0
    lines = instruction.splitlines()
    for index, line in enumerate(lines):
        if line == "[user]" and index + 1 < len(lines):
            asked.append(lines[index + 1][:120])
        elif line.startswith("[tool call "):
            calls += 1
    goal = asked[-1] if asked else "(nothing asked yet)"
    done = "\n".join(f"- asked: {a}" for a in asked) or "- nothing yet"
    return (
        f"## Goal\n{goal}\n\n## Decisions and findings\n{done}\n- {calls} tool calls were "
        "made\n\n## Files\nListed below by the agent.\n\n## Open tasks\n- none recorded by "
        "the demo model\n\n## Next step\nWait for the next message."
    )
