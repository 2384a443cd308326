"""The render state of every tool call, folded from the core's tool events.

One ``CallState`` per call id; the chat's reference lines and the lane's cards both render
from it, so they can never disagree. Pure Python: no Textual here, the widgets only read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from agent_tui.core.events import (
    Event,
    PermissionRequest,
    SpillPointer,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolRejected,
    ToolResult,
    ToolUse,
)
from agent_tui.core.transcript import Message
from agent_tui.ui.format import one_line, outcome_line, summarize_input

Clock = Callable[[], float]


class CallStatus(StrEnum):
    QUEUED = "queued"
    APPROVAL = "approval"
    RUNNING = "running"
    OK = "ok"
    FAILED = "failed"
    REJECTED = "rejected"
    ERROR = "error"

    @property
    def finished(self) -> bool:
        return self in _FINISHED

    @property
    def label(self) -> str:
        return _LABELS[self]


# How each status looks, in theme variables (resolved by Textual when rendered).
STATUS_GLYPH = {
    CallStatus.QUEUED: "○",
    CallStatus.APPROVAL: "◆",
    CallStatus.RUNNING: "◐",
    CallStatus.OK: "✓",
    CallStatus.FAILED: "✗",
    CallStatus.REJECTED: "⊘",
    CallStatus.ERROR: "✗",
}
STATUS_STYLE = {
    CallStatus.QUEUED: "$foreground-muted",
    CallStatus.APPROVAL: "$warning",
    CallStatus.RUNNING: "$primary",
    CallStatus.OK: "$success",
    CallStatus.FAILED: "$error",
    CallStatus.REJECTED: "$warning",
    CallStatus.ERROR: "$error",
}

_FINISHED = frozenset({CallStatus.OK, CallStatus.FAILED, CallStatus.REJECTED, CallStatus.ERROR})
_LABELS = {
    CallStatus.QUEUED: "queued",
    CallStatus.APPROVAL: "waiting for approval",
    CallStatus.RUNNING: "running",
    CallStatus.OK: "ok",
    CallStatus.FAILED: "failed",
    CallStatus.REJECTED: "rejected",
    CallStatus.ERROR: "error",
}


@dataclass
class CallState:
    """Everything a card or a reference line shows about one call."""

    id: str
    name: str
    input: dict[str, Any] | None = None
    raw_arguments: str = ""
    read_only: bool = False
    status: CallStatus = CallStatus.QUEUED
    group: str | None = None
    """The id of the first call of this call's parallel batch, if it is in one."""
    group_size: int = 0
    elapsed: float = 0.0
    """Seconds, as last reported by an event."""
    reported_at: float | None = None
    """Clock time of that report while running; None once the call is finished."""
    message: str | None = None
    tail: list[str] = field(default_factory=list)
    progress: float | None = None
    total: float | None = None
    content: str = ""
    """The full output (result text, or the error with its details)."""
    outcome: str = ""
    """One line: what came of it."""
    code: str | None = None
    feedback: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    spill: SpillPointer | None = None
    """Where the full output is when the model got an excerpt."""

    @property
    def summary(self) -> str:
        return summarize_input(self.input, self.raw_arguments)

    def live_elapsed(self, now: float) -> float:
        """Elapsed seconds: the last reported value, plus the time since while running."""
        if self.reported_at is None:
            return self.elapsed
        return self.elapsed + max(0.0, now - self.reported_at)

    def spill_line(self) -> str:
        """Where the full output went, when it was spilled; empty otherwise."""
        if self.spill is None:
            return ""
        return f"full output ({self.spill.lines:,} lines): {self.spill.path}"

    def status_line(self) -> str:
        """The second line of a card: the state and its detail."""
        status = self.status
        if status is CallStatus.RUNNING:
            detail = self.message or ""
            if self.progress is not None:
                counted = f"{self.progress:g}" + (f"/{self.total:g}" if self.total else "")
                detail = f"{counted} {detail}".strip()
            return f"running · {detail}" if detail else "running"
        if status.finished and self.outcome:
            return f"{status.label} · {self.outcome}"
        return status.label


class CallBook:
    """Applies tool events to call states; answers which calls an event touched."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.calls: dict[str, CallState] = {}
        self.groups: dict[str, list[str]] = {}

    def get(self, call_id: str) -> CallState | None:
        return self.calls.get(call_id)

    def members(self, group: str) -> list[CallState]:
        return [self.calls[i] for i in self.groups.get(group, []) if i in self.calls]

    def unfinished(self) -> list[CallState]:
        return [c for c in self.calls.values() if not c.status.finished]

    def apply(self, event: Event) -> list[CallState]:
        """Fold one event in; return the states it changed (empty for non-tool events)."""
        now = self.clock()
        if isinstance(event, ToolUse):
            state = CallState(
                id=event.id,
                name=event.name,
                input=event.input,
                raw_arguments=event.raw_arguments,
                read_only=event.read_only,
            )
            self.calls[event.id] = state
            return [state]
        if isinstance(event, ToolGroup):
            if not event.ids:
                return []
            group = event.ids[0]
            self.groups[group] = list(event.ids)
            changed = []
            for call_id in event.ids:
                if (state := self.calls.get(call_id)) is not None:
                    state.group, state.group_size = group, len(event.ids)
                    changed.append(state)
            return changed
        call_id = getattr(event, "id", None)
        state = self.calls.get(call_id) if isinstance(call_id, str) else None
        if state is None:
            return []
        if isinstance(event, PermissionRequest):
            state.status = CallStatus.APPROVAL
        elif isinstance(event, ToolProgress):
            state.status = CallStatus.RUNNING
            state.elapsed, state.reported_at = event.elapsed, now
            state.message = event.message or state.message
            if event.tail is not None:
                state.tail = list(event.tail)
                state.content = "\n".join(event.tail)
            if event.progress is not None:
                state.progress, state.total = event.progress, event.total
        elif isinstance(event, ToolResult):
            state.status = CallStatus.FAILED if event.is_error else CallStatus.OK
            state.elapsed, state.reported_at = event.elapsed, None
            state.content, state.data, state.spill = event.content, event.data, event.spill
            state.outcome = outcome_line(event.content, event.data, event.is_error)
        elif isinstance(event, ToolRejected):
            state.status, state.reported_at = CallStatus.REJECTED, None
            state.feedback = event.feedback
            state.outcome = one_line(f"“{event.feedback}”" if event.feedback else event.reason)
            state.content = event.reason + (
                f"\nfeedback: {event.feedback}" if event.feedback else ""
            )
        elif isinstance(event, ToolErrorEvent):
            state.status, state.reported_at = CallStatus.ERROR, None
            state.elapsed = event.elapsed or state.live_elapsed(now)
            state.code, state.spill = event.code, event.spill
            state.outcome = one_line(f"{event.code}: {event.message}")
            lines = [event.message, *event.details]
            if event.next_step:
                lines.append(f"next: {event.next_step}")
            state.content = "\n".join(lines)
        else:
            return []
        return [state]

    def start(self, call_id: str) -> CallState | None:
        """Mark a call running before any progress arrives (the user just approved it)."""
        state = self.calls.get(call_id)
        if state is None or state.status.finished:
            return None
        state.status, state.elapsed, state.reported_at = CallStatus.RUNNING, 0.0, self.clock()
        return state

    def abandon(self, why: str) -> list[CallState]:
        """End every unfinished call (the turn stopped without a final event for them)."""
        now = self.clock()
        changed = self.unfinished()
        for state in changed:
            state.elapsed = state.live_elapsed(now)
            state.status, state.reported_at = CallStatus.ERROR, None
            state.code, state.outcome, state.content = "abandoned", why, why
        return changed

    def clear(self) -> None:
        self.calls.clear()
        self.groups.clear()


def states_from_history(messages: list[Message]) -> dict[str, CallState]:
    """Finished call states rebuilt from a resumed transcript (for the chat's reference lines)."""
    states: dict[str, CallState] = {}
    for message in messages:
        if message.role == "assistant":
            for call in message.tool_calls:
                states[call.id] = CallState(
                    id=call.id,
                    name=call.name,
                    input=call.parsed_arguments(),
                    raw_arguments=call.arguments,
                    status=CallStatus.ERROR,
                    outcome="no result recorded",
                )
        elif message.role == "tool" and message.tool_call_id in states:
            state = states[message.tool_call_id]
            state.status = CallStatus.FAILED if message.is_error else CallStatus.OK
            state.content = message.content
            state.outcome = outcome_line(message.content, {}, message.is_error)
    return states
