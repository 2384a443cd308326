"""The render state of every tool call, folded from the core's tool events.

``CallBook.apply`` takes each event and updates the ``CallState`` of its call (see
``call_state``); it answers which states an event changed, so the app re-renders only those.
Pure Python: no Textual here.
"""

from __future__ import annotations

from agent_tui.core.events import (
    Event,
    PermissionRequest,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolRejected,
    ToolResult,
    ToolUse,
)
from agent_tui.ui.calls.state import (
    FAILURES,
    INTERRUPTED_CODES,
    STARTED,
    STATUS_GLYPH,
    STATUS_STYLE,
    AutoExpand,
    CallState,
    CallStatus,
    Clock,
    batch_status,
    opens_by_itself,
)
from agent_tui.ui.common.format import first_line, one_line

__all__ = [
    "FAILURES",
    "INTERRUPTED_CODES",
    "STARTED",
    "STATUS_GLYPH",
    "STATUS_STYLE",
    "AutoExpand",
    "CallBook",
    "CallState",
    "CallStatus",
    "Clock",
    "batch_status",
    "opens_by_itself",
    "rejection",
]


_REJECTED_BY: dict[str, str] = {
    "user": "you",
    "rule": "rule",
    "plan": "plan mode",
    "policy": "policy",
    "hook": "a hook",
    "headless": "headless mode",
    "prompt": "a failed prompt",
}


def rejection(event: ToolRejected) -> tuple[str, str]:
    """(who denied, one-line outcome) of a rejection, from the event's typed fields."""
    if event.feedback:
        return "you", one_line(f"“{event.feedback}”")
    if event.by == "user":
        return "you", "no feedback"
    if event.by == "rule" and event.rule:
        return "rule", one_line(event.rule)
    if event.by == "plan":
        return "plan mode", "only read-only tools run"
    return _REJECTED_BY.get(event.by or "policy", "policy"), one_line(event.reason)


class CallBook:
    """Applies tool events to call states; answers which calls an event touched.

    ``auto_expand`` is the policy that opens cards as calls finish (never / always /
    failures / success)."""

    def __init__(self, clock: Clock, auto_expand: AutoExpand = "failures") -> None:
        self.clock = clock
        self.auto_expand: AutoExpand = auto_expand
        self.calls: dict[str, CallState] = {}
        self.groups: dict[str, list[str]] = {}
        self._open: dict[str, CallState] = {}
        """The calls that may not have finished: what ``unfinished`` looks at, so that asking
        costs the calls in flight, not every call of the session (a call never un-finishes)."""

    def get(self, call_id: str) -> CallState | None:
        return self.calls.get(call_id)

    def members(self, group: str) -> list[CallState]:
        return [self.calls[i] for i in self.groups.get(group, []) if i in self.calls]

    def unfinished(self) -> list[CallState]:
        for call_id in [i for i, c in self._open.items() if c.status.finished]:
            del self._open[call_id]
        return list(self._open.values())

    def apply(self, event: Event) -> list[CallState]:
        """Fold one event in; return the states it changed (empty for non-tool events). A
        subagent's event (``parent_call_id``) changes its own call and answers its ``task``
        call, whose card lists it."""
        parent_id = getattr(event, "parent_call_id", None)
        if isinstance(parent_id, str):
            return self._apply_child(parent_id, event)
        call_id = getattr(event, "id", None)
        before = (
            self.calls[call_id].status
            if isinstance(call_id, str) and call_id in self.calls
            else None
        )
        changed = self._apply(event)
        for state in changed:
            if before is not None and not before.finished and state.status.finished:
                state.expanded = state.expanded or opens_by_itself(state.status, self.auto_expand)
        return changed

    def _apply_child(self, parent_id: str, event: Event) -> list[CallState]:
        parent = self.calls.get(parent_id)
        if parent is None:
            return []
        changed = self._apply(event)
        if isinstance(event, ToolUse) and changed:
            child = changed[0]
            child.parent, child.agent = parent_id, event.agent
            parent.agent = event.agent
            parent.children.append(child)
        return [parent] if changed else []

    def _apply(self, event: Event) -> list[CallState]:
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
            self._open[event.id] = state
            return [state]
        if isinstance(event, ToolGroup):
            if not event.ids:
                return []
            group = event.ids[0]
            self.groups[group] = list(event.ids)
            changed = []
            for member in event.ids:
                if (joined := self.calls.get(member)) is not None:
                    joined.group, joined.group_size = group, len(event.ids)
                    changed.append(joined)
            return changed
        event_id = getattr(event, "id", None)
        found = self.calls.get(event_id) if isinstance(event_id, str) else None
        if found is None:
            return []
        state = found
        if isinstance(event, PermissionRequest):
            state.status = CallStatus.APPROVAL
        elif isinstance(event, ToolProgress):
            state.status = CallStatus.RUNNING
            state.elapsed, state.reported_at = event.elapsed, now
            state.message = event.message or state.message
            state.starting_server = event.starting_server
            state.waiting = event.waiting
            if event.tail is not None:
                state.tail = list(event.tail)
                state.content = "\n".join(event.tail)
            if event.progress is not None:
                state.progress, state.total = event.progress, event.total
        elif isinstance(event, ToolResult):
            state.status = CallStatus.FAILED if event.is_error else CallStatus.OK
            state.elapsed, state.reported_at = event.elapsed, None
            state.content, state.data, state.spill = event.content, event.data, event.spill
            state.facts = event.facts
            state.allowed_by = event.allowed_by or state.allowed_by
            state.outcome = event.summary or first_line(event.content) or "(no output)"
            if event.subagent is not None:
                state.agent = event.subagent.agent
        elif isinstance(event, ToolRejected):
            state.status, state.reported_at = CallStatus.REJECTED, None
            state.feedback = event.feedback
            state.rejected_by, state.outcome = rejection(event)
            state.content = event.reason + (
                f"\nfeedback: {event.feedback}" if event.feedback else ""
            )
        elif isinstance(event, ToolErrorEvent):
            stopped = event.code in INTERRUPTED_CODES
            state.status = CallStatus.INTERRUPTED if stopped else CallStatus.ERROR
            state.reported_at = None
            state.elapsed = event.elapsed or state.live_elapsed(now)
            state.code, state.spill = event.code, event.spill
            state.allowed_by = event.allowed_by or state.allowed_by
            state.next_step, state.details = event.next_step, list(event.details)
            if event.code == "interrupted":
                state.outcome = "stopped by you"
            elif stopped:
                state.outcome = one_line(event.message)
            else:
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
        self._open.clear()
