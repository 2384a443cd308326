"""A transcript made whole again: a call left without a result (an interrupt, a crash mid-call)
gets an ``interrupted`` result, and a result whose call is not there (its line was lost) is
dropped — either would make every later request fail."""

from __future__ import annotations

import logging

from agent_tui.core.events import ToolErrorEvent
from agent_tui.core.transcript import CallRecord, Message, ToolCall

log = logging.getLogger(__name__)


def repair(messages: list[Message]) -> list[Message]:
    """Give tool calls left without a result (a crash mid-call) an 'interrupted' result, and
    drop a result whose call is not there (its line was lost): both would make every later
    request fail."""
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    out: list[Message] = []
    pending: list[Message] = []
    open_calls: set[str] = set()
    for message in messages:
        if message.role == "tool":
            if message.tool_call_id in open_calls:
                out.append(message)
            else:
                log.warning(
                    "dropped the result of call %s: the call is not in the session",
                    message.tool_call_id,
                )
            continue
        open_calls = {c.id for c in message.tool_calls} if message.role == "assistant" else set()
        out.extend(pending)
        pending = []
        out.append(message)
        if message.role == "assistant" and message.tool_calls:
            pending = [
                interrupted_result(
                    call, "Interrupted: the session ended before this call finished."
                )
                for call in message.tool_calls
                if call.id not in answered
            ]
    out.extend(pending)
    return out


ENDED_MID_CALL = "Interrupted: the session ended before this call finished."


def interrupted_result(call: ToolCall, text: str) -> Message:
    """The result of a call that never finished (an interrupt, a crash): ``text`` for the
    model, an ``interrupted`` error for the front ends."""
    end = ToolErrorEvent(id=call.id, name=call.name, code="interrupted", message=text)
    return Message.tool(call, text, is_error=True, record=CallRecord.of(end))
