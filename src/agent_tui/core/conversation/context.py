"""How full the model's context window is: token accounting for the meter, ``usage`` events and
a later ``/context`` view.

The authoritative figure is the provider's: the last response's ``usage`` (input tokens, the
cached ones included, plus the output it produced — that answer is in the context now). What
was appended to the transcript after that response (tool results, the user's next message) is
*estimated* (``estimate_tokens``) until the next response counts it, and the figure says so
(``estimated=True``). With no response counted yet — a new session, a server that reports no
usage — everything is estimated: system prompt, tools array and messages.

``breakdown`` splits the next request into its parts (system prompt, each memory file, the
tools array with and without progressive disclosure, messages by kind, spilled results), all
estimated the same way, for a view that explains the figure; ``ContextBreakdown.to_total``
scales them to the figure itself, so the view's total is the meter's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent_tui.core.calls import Usage
from agent_tui.core.conversation.model_limits import ModelLimits
from agent_tui.core.events import ToolResult, UsageEvent
from agent_tui.core.transcript import Message
from agent_tui.core.workspace.memory import MemoryFile


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: about four ASCII characters a token, and one token for each
    other character (CJK text is about a token a character; accented Latin letters count a
    little high, which errs on the safe side for a meter)."""
    if not text:
        return 0
    ascii_chars = sum(1 for ch in text if ch < "\x80") if not text.isascii() else len(text)
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def message_tokens(message: Message) -> int:
    """A message's estimate: its text, its images (``ImageRef.tokens``), its calls' names and
    arguments, a few tokens of framing."""
    tokens = 4 + estimate_tokens(message.content)
    tokens += sum(image.tokens for image in message.images)  # by pixels, not base64
    for call in message.tool_calls:
        tokens += 4 + estimate_tokens(call.name) + estimate_tokens(call.arguments)
    return tokens


@dataclass(frozen=True)
class ContextUsage:
    """``tokens`` of ``window`` in use; ``estimated``: not (all) counted by the provider."""

    tokens: int
    window: int
    estimated: bool
    guessed_window: bool = False
    """The window is the table's default for an unknown model."""

    @property
    def percent(self) -> int:
        return min(999, round(100 * self.tokens / self.window)) if self.window > 0 else 0

    def event(self, turn: Usage, session: Usage) -> UsageEvent:
        """The ``usage`` event of a response (``turn``) with these figures."""
        return UsageEvent(
            turn=turn,
            session=session,
            context_tokens=self.tokens,
            context_window=self.window,
            percent=self.percent,
            estimated=self.estimated,
        )


def _reported(usage: Usage | None) -> int:
    return usage.input_tokens + usage.output_tokens if usage is not None else 0


def context_usage(
    messages: Sequence[Message], limits: ModelLimits, *, system: str = "", tools_json: str = ""
) -> ContextUsage:
    """What the next request would hold (see the module docstring)."""
    guessed = limits.guessed
    for index in range(len(messages) - 1, -1, -1):
        counted = _reported(messages[index].usage)
        if messages[index].role == "assistant" and counted > 0:
            after = messages[index + 1 :]
            tokens = counted + sum(message_tokens(m) for m in after)
            return ContextUsage(tokens, limits.context_window, bool(after), guessed)
    tokens = estimate_tokens(system) + estimate_tokens(tools_json)
    tokens += sum(message_tokens(m) for m in messages)
    return ContextUsage(tokens, limits.context_window, True, guessed)


def reported_usage(usage: Usage, limits: ModelLimits) -> ContextUsage:
    """The context right after a response: what the provider counted (its prompt and its
    answer); estimated only when the provider reported nothing."""
    return ContextUsage(_reported(usage), limits.context_window, False, limits.guessed)


@dataclass(frozen=True)
class ContextPart:
    label: str
    tokens: int
    count: int = 1
    """How many items (messages, files, tools) it sums."""


@dataclass(frozen=True)
class ContextBreakdown:
    """The next request, part by part (all estimates). ``tools_without_disclosure``: what the
    tools array would cost with every tool direct (equal to ``tools`` when disclosure is off).
    ``usage``: the meter's figure for comparison."""

    system: ContextPart
    memory: list[ContextPart]
    tools: ContextPart
    tools_without_disclosure: int
    user: ContextPart
    assistant: ContextPart
    tool_results: ContextPart
    spilled: ContextPart
    """The results whose full output is in a spill file (their excerpt and pointer are in
    ``tool_results`` too): what stays out of the window thanks to the budget is not here."""
    usage: ContextUsage

    def parts(self) -> list[ContextPart]:
        """The parts that make up the request, in order (``spilled`` is inside
        ``tool_results``)."""
        return [
            self.system,
            *self.memory,
            self.tools,
            self.user,
            self.assistant,
            self.tool_results,
        ]

    @property
    def estimated_total(self) -> int:
        return sum(p.tokens for p in self.parts())

    @property
    def total(self) -> int:
        """The meter's figure (``usage``): what the provider counted plus estimates since."""
        return self.usage.tokens

    def to_total(self) -> ContextBreakdown:
        """The parts scaled so that they add up to ``total`` exactly: the provider counts
        with its own tokenizer, our estimates only say how that figure splits. One figure,
        then, in the header and the total of a ``/context`` view, not two that disagree."""
        parts = self.parts()
        raw = sum(p.tokens for p in parts)
        if raw <= 0:
            return self
        exact = [p.tokens * self.total / raw for p in parts]
        shares = [int(x) for x in exact]
        by_remainder = sorted(range(len(parts)), key=lambda i: exact[i] - shares[i], reverse=True)
        for index in by_remainder[: self.total - sum(shares)]:
            shares[index] += 1
        scaled = [replace(p, tokens=n) for p, n in zip(parts, shares, strict=True)]
        ratio = self.total / raw
        memory = len(self.memory)
        return replace(
            self,
            system=scaled[0],
            memory=scaled[1 : 1 + memory],
            tools=scaled[1 + memory],
            user=scaled[2 + memory],
            assistant=scaled[3 + memory],
            tool_results=scaled[4 + memory],
            spilled=replace(self.spilled, tokens=round(self.spilled.tokens * ratio)),
            tools_without_disclosure=round(self.tools_without_disclosure * ratio),
        )


def breakdown(
    *,
    system: str,
    memory: Sequence[MemoryFile],
    memory_section: str,
    tools_json: str,
    tools_count: int,
    all_tools_json: str,
    messages: Sequence[Message],
    usage: ContextUsage,
) -> ContextBreakdown:
    """Split the next request into its parts. ``system`` is the whole system prompt (memory
    included: ``memory_section`` is subtracted from it and shown file by file)."""
    memory_parts = [ContextPart(f.shown, estimate_tokens(f.text)) for f in memory]
    base = system.replace(memory_section, "") if memory_section else system
    overhead = estimate_tokens(memory_section) - sum(p.tokens for p in memory_parts)
    by_role: dict[str, list[int]] = {"user": [], "assistant": [], "tool": []}
    spilled: list[int] = []
    for message in messages:
        tokens = message_tokens(message)
        by_role[message.role].append(tokens)
        end = message.record.end if message.record is not None else None
        if isinstance(end, ToolResult) and end.spill is not None:
            spilled.append(tokens)
    return ContextBreakdown(
        system=ContextPart("system prompt", estimate_tokens(base) + max(0, overhead)),
        memory=memory_parts,
        tools=ContextPart("tools", estimate_tokens(tools_json), tools_count),
        tools_without_disclosure=estimate_tokens(all_tools_json),
        user=ContextPart("user messages", sum(by_role["user"]), len(by_role["user"])),
        assistant=ContextPart(
            "assistant messages", sum(by_role["assistant"]), len(by_role["assistant"])
        ),
        tool_results=ContextPart("tool results", sum(by_role["tool"]), len(by_role["tool"])),
        spilled=ContextPart("spilled results (excerpt + pointer)", sum(spilled), len(spilled)),
        usage=usage,
    )
