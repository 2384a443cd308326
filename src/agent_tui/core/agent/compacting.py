"""The agent's compaction: fold the start of the transcript into a summary its model writes.

``fold`` runs one compaction of an ``Agent`` (``agent``): the ``PreCompact`` hook, the
summarizer request to the session's model (``summary_answer``, interruptible), the record in
the session file, then the swap of the folded messages for the summary; it yields the
``compaction`` events. A failure at any step leaves the transcript as it was. The algorithm
(where to cut, the summary's prompt, token estimates) is ``core.compaction``; when to compact
(``over_threshold``, an overflow, ``/compact``) is the agent's loop. ``nested_memory`` says
which nested memory files a transcript's reads carry (what a fold takes out of the context).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Literal

from agent_tui.core.conversation.compaction import (
    Compacted,
    estimate_tokens,
    fold_point,
    summarize,
    summary_message,
)
from agent_tui.core.events import CompactionEvent, ToolResult
from agent_tui.core.providers.base import Completion, ModelRequest, ProviderError, TextDelta
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import Message

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent

SUMMARY_MAX_TOKENS = 4096
"""The most a compaction's summary may take (the summarizer asks for under 600 words)."""


def over_threshold(agent: Agent) -> bool:
    """The context fills more of the window than the compaction threshold allows."""
    threshold = agent.settings.compaction.threshold
    if threshold == "off":
        return False
    return agent.context().percent >= round(float(threshold) * 100)


async def fold(
    agent: Agent, focus: str, reason: Literal["manual", "threshold", "overflow"]
) -> AsyncGenerator[CompactionEvent, None]:
    """Inside a turn (threshold, overflow) or for ``compact``; raises ``Interrupted``."""
    end = fold_point(agent.messages, agent.settings.compaction.keep_turns)
    before = agent.context().tokens
    if end and agent.hooks is not None and agent.hooks.has("PreCompact"):
        trigger = "manual" if reason == "manual" else "auto"
        verdict = await agent.hooks.run(
            "PreCompact", {"trigger": trigger, "custom_instructions": focus}
        )
        if verdict.blocked or verdict.stop:
            yield CompactionEvent(
                phase="failed",
                reason=reason,
                tokens_before=before,
                message="A PreCompact hook blocked the compaction "
                f"({verdict.reason or verdict.stop_reason}); the conversation is unchanged.",
            )
            return
    if end == 0:
        yield CompactionEvent(
            phase="failed",
            reason=reason,
            tokens_before=before,
            message="Nothing to compact yet: the conversation is one exchange long.",
        )
        return
    yield CompactionEvent(
        phase="start",
        reason=reason,
        folded=end,
        kept=len(agent.messages) - end,
        tokens_before=before,
    )
    try:
        summary = await agent._guard(
            summarize(
                list(agent.messages),
                end,
                partial(summary_answer, agent),
                window_tokens=agent.context_window(),
                focus=focus,
            )
        )
    except ProviderError as exc:
        yield CompactionEvent(
            phase="failed",
            reason=reason,
            tokens_before=before,
            message=f"The summary request failed, so the conversation is unchanged: {exc}",
        )
        return
    kept = list(agent.messages[end:])
    after = max(0, before - estimate_tokens(agent.messages[:end])) + estimate_tokens(
        [summary.message]
    )
    record = Compacted(
        folded=end,
        kept=len(kept),
        summary=summary.message.content,
        reason=reason,
        focus=focus,
        at=datetime.now(UTC).isoformat(timespec="seconds"),
        tokens_before=before,
        tokens_after=after,
    )
    message = summary_message(record)
    if agent.session is not None:
        try:
            await asyncio.to_thread(agent.session.compact, record)
        except OSError as exc:
            yield CompactionEvent(
                phase="failed",
                reason=reason,
                tokens_before=before,
                message=f"The session file could not record the compaction ({exc}), so "
                "the conversation is unchanged. Free some disk space and try again.",
            )
            return
    agent.folded.extend(agent.messages[:end])
    agent.messages[:end] = [message]
    # the nested memory the folded reads carried is gone from the context: added again
    # at the next read below its directory
    agent.memory.folded_away(nested_memory(agent.messages))
    agent.file_state.clear()  # the model keeps a summary of what it read, not the text
    yield CompactionEvent(
        phase="end",
        reason=reason,
        folded=end,
        kept=len(kept),
        tokens_before=before,
        tokens_after=after,
        requests=summary.requests,
        summary=message.content,
    )


async def summary_answer(agent: Agent, system: str, text: str) -> AsyncIterator[str]:
    """One summarizer request to the session's model, its text streamed."""
    request = ModelRequest(
        system=system,
        messages=[Message.user(text)],
        tools=ToolRegistry(),
        max_tokens=SUMMARY_MAX_TOKENS,
        purpose="summary",
    )
    streamed = False
    async for item in agent.provider.stream(request):
        if isinstance(item, TextDelta):
            streamed = True
            yield item.text
        elif isinstance(item, Completion):
            agent.usage = agent.usage + item.usage
            if not streamed:
                yield item.text


def nested_memory(messages: Sequence[Message]) -> list[str]:
    """The nested memory files a transcript's reads already carry (``data["memory"]``)."""
    found: list[str] = []
    for message in messages:
        end = message.record.end if message.record is not None else None
        if isinstance(end, ToolResult):
            names = end.data.get("memory")
            if isinstance(names, list):
                found += [n for n in names if isinstance(n, str)]
    return found


__all__ = ["SUMMARY_MAX_TOKENS", "fold", "nested_memory", "over_threshold", "summary_answer"]
