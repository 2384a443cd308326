"""The core's events as ACP ``session/update`` notifications: one turn's worth of state.

``TurnUpdates`` is handed every event of a turn, in order, and answers the updates to send
for it (none for most): streamed text as ``agent_message_chunk``, each tool call as a
``tool_call`` (pending) then ``tool_call_update``s (in_progress when it starts running,
completed or failed when it ends, carrying what it produced: its text, a diff for an edit, a
resource link to a spilled output), the model's plan as ``plan``, and the context's use as
``usage_update``. Nothing here talks to the client or touches a file, except ``edit_before``
and ``edit_after``: the server reads an edited file before and after the call, in a thread,
for the diff (``FileEdit``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    ContentToolCallContent,
    FileEditToolCallContent,
    PlanEntry,
    ResourceContentBlock,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
    UsageUpdate,
)

from agent_tui.core.events import (
    AssistantDelta,
    AssistantMessage,
    ErrorEvent,
    Event,
    PlanEvent,
    Spill,
    ToolErrorEvent,
    ToolProgress,
    ToolRejected,
    ToolResult,
    ToolUse,
    UsageEvent,
)
from agent_tui.core.text.call_summary import summarize_input

Update = AgentMessageChunk | ToolCallStart | ToolCallProgress | AgentPlanUpdate | UsageUpdate
"""What a turn sends the client."""

KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "edit_file": "edit",
    "write_file": "edit",
    "run_shell": "execute",
    "shell_output": "execute",
    "shell_kill": "execute",
    "grep": "search",
    "glob": "search",
    "search_tool": "search",
    "web_fetch": "fetch",
    "web_search": "fetch",
    "update_plan": "think",
    "exit_plan_mode": "switch_mode",
}
"""Our tools as ACP's kinds of tool call (the client picks an icon by it); others: ``other``."""

EDITS = frozenset({"edit_file", "write_file"})
"""The tools whose result the client sees as a diff."""

MAX_DIFF_BYTES = 1_000_000
"""A file over this is not sent whole as the diff's old and new text (the result says what
changed)."""


@dataclass
class FileEdit:
    """An edit call's file as it was before the call ran (None: it did not exist or could
    not be read as text)."""

    path: Path
    before: str | None


def edit_path(event: ToolUse, cwd: Path) -> Path | None:
    """The file an edit call names, absolute (None: not an edit, or no path given)."""
    if event.name not in EDITS or event.input is None:
        return None
    raw = event.input.get("path") or event.input.get("file_path")
    if not isinstance(raw, str) or not raw:
        return None
    path = Path(raw).expanduser()
    return path if path.is_absolute() else cwd / path


def read_text(path: Path) -> str | None:
    """``path``'s text, or None when it is not there, too big or not UTF-8 (blocking)."""
    try:
        if path.stat().st_size > MAX_DIFF_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _text(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def title_of(
    name: str, input: dict[str, Any] | None, raw: str = "", agent: str | None = None
) -> str:
    """What the client shows for a call: its tool and what it works on, in one line."""
    summary = summarize_input(input, raw)
    title = f"{name} {summary}" if summary else name
    return f"[{agent}] {title}" if agent else title


@dataclass
class TurnUpdates:
    """The updates of one turn, event by event (``updates``). ``cwd``: the session's, for the
    paths of locations and spilled outputs."""

    cwd: Path
    edits: dict[str, FileEdit] = field(default_factory=dict)
    """The edit calls of the turn, by id, with their file before the call."""
    _spills: dict[str, Spill] = field(default_factory=dict)
    _running: set[str] = field(default_factory=set)
    _streamed: bool = False
    errors: list[str] = field(default_factory=list)
    """The turn's ``error`` events' messages, in order."""

    def updates(self, event: Event, after: str | None = None) -> list[Update]:
        """The updates for ``event``; ``after``: an edit call's file once it ran (its
        ``tool_result``), for the diff."""
        if isinstance(event, AssistantDelta):
            self._streamed = True
            return [_chunk(event.text)] if event.text else []
        if isinstance(event, AssistantMessage):  # streamed already, unless the provider did not
            streamed, self._streamed = self._streamed, False
            return [_chunk(event.text)] if event.text and not streamed else []
        if isinstance(event, ToolUse):
            return [self._started(event)]
        if isinstance(event, ToolProgress):
            if event.id in self._running:
                return []
            self._running.add(event.id)
            return [
                ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=event.id, status="in_progress"
                )
            ]
        if isinstance(event, Spill):
            self._spills[event.id] = event
            return []
        if isinstance(event, ToolResult):
            return [self._result(event, after)]
        if isinstance(event, ToolRejected):
            why = event.reason + (f"\nFeedback: {event.feedback}" if event.feedback else "")
            return [self._failed(event.id, why, {"rejected": event.by, "reason": event.reason})]
        if isinstance(event, ToolErrorEvent):
            why = event.message + (f"\n{event.next_step}" if event.next_step else "")
            return [self._failed(event.id, why, {"error": event.code, "message": event.message})]
        if isinstance(event, PlanEvent):
            return [plan_update(event)]
        if isinstance(event, UsageEvent):
            return _usage(event)
        if isinstance(event, ErrorEvent):
            self.errors.append(event.message)
        return []

    def _started(self, event: ToolUse) -> ToolCallStart:
        path = edit_path(event, self.cwd)
        locations = [ToolCallLocation(path=str(path))] if path is not None else None
        if path is None and event.input is not None:
            named = event.input.get("path")
            if isinstance(named, str) and named:
                where = Path(named).expanduser()
                locations = [
                    ToolCallLocation(path=str(where if where.is_absolute() else self.cwd / where))
                ]
        return ToolCallStart(
            session_update="tool_call",
            tool_call_id=event.id,
            title=title_of(event.name, event.input, event.raw_arguments, event.agent),
            kind=KINDS.get(event.name, "other"),
            status="pending",
            locations=locations,
            raw_input=event.input if event.input is not None else event.raw_arguments,
        )

    def _result(self, event: ToolResult, after: str | None) -> ToolCallProgress:
        content: list[Any] = []
        edit = self.edits.pop(event.id, None)
        if edit is not None and not event.is_error and after is not None:
            content.append(
                FileEditToolCallContent(
                    type="diff", path=str(edit.path), old_text=edit.before, new_text=after
                )
            )
        if event.content:
            content.append(_text(event.content))
        spill = self._spills.pop(event.id, None)
        if spill is not None:
            content.append(spill_link(spill))
        self._running.discard(event.id)
        raw: dict[str, Any] = {"summary": event.summary} if event.summary else {}
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=event.id,
            status="failed" if event.is_error else "completed",
            content=content or None,
            raw_output=raw or None,
        )

    def _failed(self, call: str, why: str, raw: dict[str, Any]) -> ToolCallProgress:
        self.edits.pop(call, None)
        self._spills.pop(call, None)
        self._running.discard(call)
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=call,
            status="failed",
            content=[_text(why)],
            raw_output=raw,
        )


def _chunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


def spill_link(spill: Spill) -> ContentToolCallContent:
    """A spilled output as a link the client can open: the whole output, byte for byte."""
    return ContentToolCallContent(
        type="content",
        content=ResourceContentBlock(
            type="resource_link",
            uri=Path(spill.abs_path).as_uri(),
            name=Path(spill.abs_path).name,
            title=f"full output of {spill.name} ({spill.lines} lines, {spill.chars} characters)",
            mime_type="text/plain",
            size=spill.bytes,
        ),
    )


def plan_update(event: PlanEvent) -> AgentPlanUpdate:
    """The model's plan, every step with its state (ACP replaces the whole plan each time)."""
    return AgentPlanUpdate(
        session_update="plan",
        entries=[
            PlanEntry(content=step.content, status=step.status, priority="medium")
            for step in event.steps
        ],
    )


def _usage(event: UsageEvent) -> list[Update]:
    if event.context_tokens is None or not event.context_window:
        return []
    return [
        UsageUpdate(
            session_update="usage_update", used=event.context_tokens, size=event.context_window
        )
    ]
