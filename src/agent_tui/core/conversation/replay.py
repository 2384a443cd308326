"""A transcript told again as the event stream that produced it.

A resumed session is shown by feeding these events to the same code that renders a live turn,
so the two cannot differ: every call gets its ``tool_use``, its batch's ``tool_group``, and the
final event it ended with (``Message.record``); each model request its ``usage``; each user
turn its ``turn_end``; a ``task`` call's child calls (``ToolResult.subagent``) their
``tool_use`` and end, typed with the parent call's id, before the parent's result.
Transcripts written before calls were recorded (no ``record``) replay their results as plain
``tool_result`` events: ok, or failed when marked as an error.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from agent_tui.core.budget.excerpt import pointer_in
from agent_tui.core.calls import SubagentReport, Usage
from agent_tui.core.events import (
    AssistantMessage,
    CompactionEvent,
    ErrorEvent,
    Event,
    ToolErrorEvent,
    ToolGroup,
    ToolRejected,
    ToolResult,
    ToolUse,
    TurnEnd,
    UsageEvent,
    UserInjected,
    UserMessage,
)
from agent_tui.core.plan import plan_event
from agent_tui.core.text.summary import default_summary
from agent_tui.core.transcript import INTERRUPTED_NOTE, Message, ToolCall, ToolEnd, cut_off_note


def turn_start(messages: list[Message], keep: int) -> int:
    """The index of the message that starts the last ``keep`` user turns (0 when there are no
    more than ``keep``): where ``transcript_events`` can be split (``start``/``stop``)."""
    starts = turn_starts(messages)
    return starts[-keep] if keep > 0 and len(starts) > keep else 0


def turn_starts(messages: list[Message]) -> list[int]:
    """The indexes of the messages that start a user turn (a ``user_message`` event)."""
    starts: list[int] = []
    open_turn = False
    for index, message in enumerate(messages):
        if message.role != "user" or message.compaction is not None:
            continue
        if message.injected and open_turn:
            continue
        starts.append(index)
        open_turn = True
    return starts


def transcript_events(
    messages: list[Message], *, start: int = 0, stop: int | None = None
) -> Iterator[Event]:
    """The events of ``messages``, in the order a live session emitted them.

    With ``start`` / ``stop`` (indexes ``turn_start`` gave), only the events of the turns from
    / before that message, exactly as they are in the whole replay (the session's usage totals
    count the turns before ``start``; a turn's end and a compaction are told once, on the side
    of the split they belong to); the events before ``start`` are not even made."""
    upto = len(messages) if stop is None else stop
    total = _Total()
    turns = 0
    interrupted = False
    announced: set[str] = set()
    open_turn = False
    due: list[tuple[int, int, CompactionEvent]] = []
    """Compactions to show once the message at the first index has been."""
    for index in range(upto):
        message = messages[index]
        told = index >= start
        while due and due[0][0] < index:
            compaction = heapq.heappop(due)[2]
            if compaction.reason == "manual" and open_turn:  # /compact runs between turns
                if index > start:  # the turn before ``start`` ends on its side
                    yield _turn_end(turns, interrupted)
                open_turn = False
            if told:
                yield compaction
        if message.role == "user" and message.compaction is not None:
            # live, it was shown when it happened: after the messages it kept
            folding = message.compaction
            if folding.usage is not None:  # the summarizer's requests, counted live
                total.add(folding.usage)
            event = CompactionEvent(
                phase="end",
                reason=folding.reason,
                folded=folding.folded,
                kept=folding.kept,
                tokens_before=folding.tokens_before,
                tokens_after=folding.tokens_after,
                summary=message.content,
            )
            heapq.heappush(due, (index + folding.kept, index, event))
        elif message.role == "user" and message.injected and open_turn:
            if told:
                yield UserInjected(text=message.content)  # typed during the turn: part of it
        elif message.role == "user":
            if open_turn and index > start:  # the turn before ``start`` ends on its side
                yield _turn_end(turns, interrupted)
            open_turn, turns, interrupted = True, 0, False
            if told:
                yield UserMessage(
                    text=message.prompt, mentions=message.mentions, images=message.images
                )
        elif message.role == "assistant":
            turns += 1
            interrupted = interrupted or message.interrupted
            if message.usage is not None:
                total.add(message.usage)
                if told:
                    yield UsageEvent(turn=message.usage, session=total.usage())
            if not told:
                continue
            text = message.content
            if message.interrupted:  # live, the cut reply was shown as streamed so far
                text = text.removesuffix(INTERRUPTED_NOTE)
            if message.cut_off is not None:
                text = text.removesuffix(cut_off_note(message.cut_off))
            yield AssistantMessage(text=text, tool_calls=message.tool_calls)
            if message.cut_off is not None:  # live, the error followed what had arrived
                yield ErrorEvent(message=message.cut_off, where="provider")
            read_only, ran = _records(messages, index)
            for sent in message.tool_calls:
                call = ran.get(sent.id, sent)  # as it ran: our tool for Claude Code's name
                yield ToolUse(
                    id=call.id,
                    name=call.name,
                    input=call.parsed_arguments(),
                    raw_arguments=call.arguments,
                    read_only=read_only.get(call.id, False),
                )
        elif message.role == "tool" and message.tool_call_id is not None:
            record = message.record
            if not told:  # isinstance, not getattr: a missing attribute is slow on a model
                if record is not None:
                    if record.group:
                        announced.add(record.group[0])
                    end_told = record.end
                    if isinstance(end_told, ToolErrorEvent) and end_told.code == "interrupted":
                        interrupted = True
                    elif isinstance(end_told, ToolResult) and end_told.subagent is not None:
                        total.add(end_told.subagent.usage)
                continue
            if record is not None and record.group and record.group[0] not in announced:
                announced.add(record.group[0])
                yield ToolGroup(ids=record.group)
            end = _end(message)
            interrupted = interrupted or getattr(end, "code", None) == "interrupted"
            if isinstance(end, ToolResult) and end.subagent is not None:
                total.add(end.subagent.usage)  # counted in the session's, live
                yield from _subagent_events(end.id, end.subagent)
            yield end
            plan = plan_event(end)
            if plan is not None:  # live, the loop emitted it right after this result
                yield plan
    if stop is not None and stop < len(messages):
        # the compactions still due come after the split, on the other side of it
        if open_turn and stop >= start:
            yield _turn_end(turns, interrupted)
        return
    for _, _, compaction in sorted(due):
        if compaction.reason == "manual" and open_turn:
            yield _turn_end(turns, interrupted)
            open_turn = False
        yield compaction
    if open_turn:
        yield _turn_end(turns, interrupted)


def _subagent_events(parent: str, report: SubagentReport) -> Iterator[Event]:
    """A ``task`` call's child calls as live they were forwarded (``parent_call_id``): each
    its ``tool_use`` and its end, from the report kept with the result (summaries only)."""
    agent = report.agent
    for call in report.calls:
        yield ToolUse(
            id=call.id,
            name=call.name,
            input=call.input,
            read_only=call.read_only,
            parent_call_id=parent,
            agent=agent,
        )
        ids = (call.id, call.name, parent, agent)
        if call.outcome in ("ok", "failed"):
            yield ToolResult(
                id=ids[0],
                name=ids[1],
                parent_call_id=ids[2],
                agent=ids[3],
                content="",
                is_error=call.outcome == "failed",
                summary=call.summary,
            )
        elif call.outcome == "rejected":
            yield ToolRejected(
                id=ids[0], name=ids[1], parent_call_id=ids[2], agent=ids[3], reason=call.summary
            )
        else:
            code, _, text = call.summary.partition(": ")
            yield ToolErrorEvent(
                id=ids[0],
                name=ids[1],
                parent_call_id=ids[2],
                agent=ids[3],
                code=code or "error",
                message=text or call.summary,
            )


class _Total:
    """The session's usage so far, summed as ints (a resume adds up thousands: a ``Usage``
    each was most of the walk over the turns not told); ``usage()`` makes the ``Usage`` an
    event carries, as ``Usage.__add__`` sums it (``Usage()`` when nothing was added)."""

    __slots__ = ("tokens",)

    def __init__(self) -> None:
        self.tokens: list[int] | None = None

    def add(self, usage: Usage) -> None:
        tokens = self.tokens
        if tokens is None:
            tokens = self.tokens = [0, 0, 0]
        tokens[0] += usage.input_tokens
        tokens[1] += usage.output_tokens
        tokens[2] += usage.cache_read_tokens

    def usage(self) -> Usage:
        if self.tokens is None:
            return Usage()
        return Usage.model_construct(
            input_tokens=self.tokens[0],
            output_tokens=self.tokens[1],
            cache_read_tokens=self.tokens[2],
        )


def _turn_end(turns: int, interrupted: bool) -> TurnEnd:
    return TurnEnd(reason="interrupted" if interrupted else "completed", turns=turns)


def _records(messages: list[Message], index: int) -> tuple[dict[str, bool], dict[str, ToolCall]]:
    """From the records of the calls of the assistant message at ``index``: which were
    read-only, and the calls that ran as another than the model sent (``CallRecord.call``)."""
    read_only: dict[str, bool] = {}
    ran: dict[str, ToolCall] = {}
    for message in messages[index + 1 :]:
        if message.role != "tool":
            break
        if message.tool_call_id is not None and message.record is not None:
            read_only[message.tool_call_id] = message.record.read_only
            if message.record.call is not None:
                ran[message.tool_call_id] = message.record.call
    return read_only, ran


def _end(message: Message) -> ToolEnd:
    """The final event of a tool message: recorded, or (an older transcript) its text."""
    assert message.tool_call_id is not None
    if message.record is not None:
        return message.record.event(message.content)
    return ToolResult(
        id=message.tool_call_id,
        name=message.name or "",
        content=message.content,
        is_error=message.is_error,
        summary=default_summary(message.content),
        spill=pointer_in(message.content),  # the budget's own pointer format
    )
