"""The agent's compaction: fold the start of the transcript into a summary its model writes.

``Compactor.fold`` runs one compaction: the ``PreCompact`` hook, the summarizer request to the
session's model (``summary_answer``, interruptible through the run control), the record in the
session file, then the swap of the folded messages for the summary in the conversation state;
it yields the ``compaction`` events. A failure at any step leaves the transcript as it was.
The algorithm (where to cut, the summary's prompt, token estimates) is
``core.conversation.compaction``; when to compact (``over_threshold``, an overflow,
``/compact``) is the turn's and the agent's. What it reads of the agent is ``CompactionHost``.
``nested_memory`` says which nested memory files a transcript's reads carry (what a fold takes
out of the context).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from datetime import UTC, datetime
from typing import Literal, Protocol

from agent_tui.core.agent.control import RunControl
from agent_tui.core.agent.conversation_state import ConversationState
from agent_tui.core.conversation.context import ContextUsage
from agent_tui.core.events import CompactionEvent, ToolResult
from agent_tui.core.hooks import Hooks
from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    Provider,
    ProviderError,
    TextDelta,
)
from agent_tui.core.settings import Settings
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import Message, Usage
from agent_tui.core.workspace.memory import ProjectMemory

SUMMARY_MAX_TOKENS = 4096
"""The most a compaction's summary may take (the summarizer asks for under 600 words)."""

CompactionReason = Literal["manual", "threshold", "overflow"]

log = logging.getLogger(__name__)


class CompactionHost(Protocol):
    """What a compaction reads of the agent, as it is at the time (the model may switch)."""

    @property
    def provider(self) -> Provider: ...

    @property
    def hooks(self) -> Hooks | None: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def memory(self) -> ProjectMemory: ...

    @property
    def file_state(self) -> FileStateCache: ...

    def context(self) -> ContextUsage: ...

    def context_window(self) -> int: ...


class Compactor:
    """Runs the compactions of one agent's conversation."""

    def __init__(
        self, host: CompactionHost, conversation: ConversationState, control: RunControl
    ) -> None:
        self.host = host
        self.conversation = conversation
        self.control = control
        self.spent = Usage()
        """The tokens of the compaction under way's summarizer requests."""

    def over_threshold(self) -> bool:
        """The context fills more of the window than the compaction threshold allows."""
        threshold = self.host.settings.compaction.threshold
        if threshold == "off":
            return False
        return self.host.context().percent >= round(float(threshold) * 100)

    async def fold(
        self, focus: str, reason: CompactionReason
    ) -> AsyncGenerator[CompactionEvent, None]:
        """Inside a turn (threshold, overflow) or for ``compact``; raises ``Interrupted``."""
        from agent_tui.core.conversation.compaction import (  # the first compaction's import
            Compacted,
            estimate_tokens,
            fold_point,
            summarize,
            summary_message,
        )

        host, state = self.host, self.conversation
        end = fold_point(state.messages, host.settings.compaction.keep_turns)
        before = host.context().tokens
        trigger = "manual" if reason == "manual" else "auto"
        if end and host.hooks is not None and host.hooks.has("PreCompact", trigger):
            verdict = await host.hooks.run(
                "PreCompact", {"trigger": trigger, "custom_instructions": focus}, match=trigger
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
                skipped=True,
            )
            return
        if all(m.compaction is not None for m in state.messages[:end]):
            yield CompactionEvent(
                phase="failed",
                reason=reason,
                tokens_before=before,
                message="Nothing to compact: what could be folded is the summary of the last "
                "compaction, and the turns after it are kept; the conversation is unchanged.",
                skipped=True,
            )
            return
        yield CompactionEvent(
            phase="start",
            reason=reason,
            folded=end,
            kept=len(state.messages) - end,
            tokens_before=before,
        )
        self.spent = Usage()
        try:
            summary = await self.control.guard(
                summarize(
                    list(state.messages),
                    end,
                    self.summary_answer,
                    window_tokens=host.context_window(),
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
        kept = list(state.messages[end:])
        # a summary no shorter than what it replaces is kept all the same (its request was
        # made and is counted); its event says so: tokens_after >= tokens_before
        replaced = estimate_tokens(state.messages[:end])
        after = max(0, before - replaced) + estimate_tokens([summary.message])
        record = Compacted(
            folded=end,
            kept=len(kept),
            summary=summary.message.content,
            reason=reason,
            focus=focus,
            at=datetime.now(UTC).isoformat(timespec="seconds"),
            tokens_before=before,
            tokens_after=after,
            usage=self.spent,
        )
        message = summary_message(record)
        if state.session is not None:
            try:
                await asyncio.to_thread(state.session.compact, record)
            except OSError as exc:
                yield CompactionEvent(
                    phase="failed",
                    reason=reason,
                    tokens_before=before,
                    message=f"The session file could not record the compaction ({exc}), so "
                    "the conversation is unchanged. Free some disk space and try again.",
                )
                return
        state.folded.extend(state.messages[:end])
        state.messages[:end] = [message]
        # the nested memory the folded reads carried is gone from the context: added again
        # at the next read below its directory
        host.memory.folded_away(nested_memory(state.messages))
        host.file_state.clear()  # the model keeps a summary of what it read, not the text
        if state.start_source is None:  # SessionStart hooks matching "compact" run next
            state.start_source = "compact"
        await self._post_compact(trigger, record.summary)
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

    async def _post_compact(self, trigger: str, summary: str) -> None:
        """The ``PostCompact`` hooks (matched against the trigger, ``manual`` or ``auto``):
        they see the summary; the compaction is done, so they cannot undo it (a failure is
        logged, never raised)."""
        hooks = self.host.hooks
        if hooks is None or not hooks.has("PostCompact", trigger):
            return
        try:
            verdict = await hooks.run(
                "PostCompact", {"trigger": trigger, "compact_summary": summary}, match=trigger
            )
        except Exception:
            log.exception("the PostCompact hooks failed")
            return
        for event in verdict.events:
            if event.outcome != "ok":
                log.warning(
                    "PostCompact hook %s: %s %s", event.command, event.outcome, event.message
                )

    async def summary_answer(self, system: str, text: str) -> AsyncIterator[str]:
        """One summarizer request to the session's model, its text streamed."""
        request = ModelRequest(
            system=system,
            messages=[Message.user(text)],
            tools=ToolRegistry(),
            max_tokens=SUMMARY_MAX_TOKENS,
            purpose="summary",
        )
        streamed = False
        async for item in self.host.provider.stream(request):
            if isinstance(item, TextDelta):
                streamed = True
                yield item.text
            elif isinstance(item, Completion):
                self.conversation.usage = self.conversation.usage + item.usage
                self.spent = self.spent + item.usage  # kept with the record
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


__all__ = [
    "SUMMARY_MAX_TOKENS",
    "CompactionHost",
    "CompactionReason",
    "Compactor",
    "nested_memory",
]
