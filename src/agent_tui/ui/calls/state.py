"""The render state of one tool call: its status, what to show for it, how it looks.

One ``CallState`` per call id (``tool_calls.CallBook`` folds the core's events into them); the
chat's reference rows and the lane's cards both render from it, so they can never disagree.
Pure Python: no Textual here, the widgets only read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, Literal

from agent_tui.core.calls import ResultFacts, ServerWait
from agent_tui.core.events import SpillPointer
from agent_tui.core.text.summary import plural
from agent_tui.ui.common.format import summarize_input

Clock = Callable[[], float]


class CallStatus(StrEnum):
    QUEUED = "queued"
    APPROVAL = "approval"
    RUNNING = "running"
    OK = "ok"
    FAILED = "failed"
    REJECTED = "rejected"
    ERROR = "error"
    INTERRUPTED = "interrupted"

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
    CallStatus.INTERRUPTED: "■",
}
STATUS_STYLE = {
    CallStatus.QUEUED: "$foreground-muted",
    CallStatus.APPROVAL: "$warning",
    CallStatus.RUNNING: "$primary",
    CallStatus.OK: "$success",
    CallStatus.FAILED: "$error",
    CallStatus.REJECTED: "$warning",
    CallStatus.ERROR: "$error",
    CallStatus.INTERRUPTED: "$accent",
}

_FINISHED = frozenset(
    {
        CallStatus.OK,
        CallStatus.FAILED,
        CallStatus.REJECTED,
        CallStatus.ERROR,
        CallStatus.INTERRUPTED,
    }
)
FAILURES = frozenset({CallStatus.FAILED, CallStatus.ERROR})
"""The statuses the ``failures`` auto-open policy opens."""
INTERRUPTED_CODES = frozenset({"interrupted", "cancelled"})
"""Error codes of calls stopped from outside (Esc, or a failing sibling), not failed."""

_LABELS = {
    CallStatus.QUEUED: "queued",
    CallStatus.APPROVAL: "waiting for approval",
    CallStatus.RUNNING: "running",
    CallStatus.OK: "ok",
    CallStatus.FAILED: "failed",
    CallStatus.REJECTED: "rejected",
    CallStatus.ERROR: "error",
    CallStatus.INTERRUPTED: "interrupted",
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
    starting_server: str | None = None
    """The MCP server being started for this call (a lazy server's first call)."""
    waiting: ServerWait | None = None
    """The MCP server the call has waited on for a while (``ToolProgress.waiting``)."""
    tail: list[str] = field(default_factory=list)
    progress: float | None = None
    total: float | None = None
    content: str = ""
    """The full output (result text, or the error with its details)."""
    outcome: str = ""
    """One line: what came of it."""
    code: str | None = None
    feedback: str | None = None
    rejected_by: str = ""
    """Who denied the call: ``you``, ``rule …``, ``plan mode`` or ``policy``."""
    allowed_by: str = ""
    """What let it run without an answer after it asked (``accept-edits mode``: the mode was
    switched while its prompt was open); empty when the user allowed it or it never asked."""
    next_step: str = ""
    details: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    """The tool's own payload (an edit's ``diff``)."""
    facts: ResultFacts = field(default_factory=ResultFacts)
    """What the tool reported in numbers (+/− of an edit, an exit code…)."""
    spill: SpillPointer | None = None
    """Where the full output is when the model got an excerpt."""
    expanded: bool = False
    """The card shows the full input and output (the user's choice, or the auto-open policy)."""
    parent: str | None = None
    """A subagent's call: the id of the ``task`` call that runs it (its card lists it)."""
    agent: str | None = None
    """The subagent that made it (a child call), or that runs it (a ``task`` call)."""
    children: list[CallState] = field(default_factory=list)
    """A ``task`` call: its subagent's calls, in order."""

    @property
    def current(self) -> str:
        """A ``task`` call that runs: its subagent's latest unfinished call, in one line."""
        for child in reversed(self.children):
            if not child.status.finished:
                return f"{child.name} {child.summary}".strip()
        return ""

    @cached_property
    def summary(self) -> str:
        """The input in one line (the input never changes, so it is computed once)."""
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
        return f"full output ({plural(self.spill.lines, 'line')}): {self.spill.path}"

    def status_line(self) -> str:
        """The second line of a card: the state and its detail."""
        status = self.status
        if status is CallStatus.RUNNING:
            detail = "" if self.message == STARTED else (self.message or "")
            if self.starting_server:
                detail = STARTING_SERVER
            if self.waiting is not None:  # no clock here: the words without the times
                wait = self.waiting
                said = f" · {wait.said}" if wait.said else ""
                return f"waiting for server {wait.server}{said}"
            if self.current:
                detail = f"→ {self.current}" + (f" · {detail}" if detail else "")
            if self.progress is not None:
                counted = f"{self.progress:g}" + (f"/{self.total:g}" if self.total else "")
                detail = f"{counted} {detail}".strip()
            line = f"running · {detail}" if detail else "running"
            return f"{line} · {self.allowed_line}" if self.allowed_by else line
        if status is CallStatus.REJECTED:
            by = f"rejected by {self.rejected_by}" if self.rejected_by else status.label
            return f"{by} · {self.outcome}" if self.outcome else by
        line = (
            f"{status.label} · {self.outcome}" if status.finished and self.outcome else status.label
        )
        if self.allowed_by and status in (CallStatus.OK, CallStatus.FAILED):
            line += f" · {self.allowed_line}"
        return line

    @property
    def allowed_line(self) -> str:
        """``allowed by accept-edits mode`` (empty when ``allowed_by`` is)."""
        return f"allowed by {self.allowed_by}" if self.allowed_by else ""


STARTED = "started"
"""The message of the progress event every call reports as it starts running."""
STARTING_SERVER = "starting server…"
"""What a call shows while its MCP server is started for it (``ToolProgress.starting_server``)."""

SIGN_WORDS = {"progress": "progress", "log": "log message", "output": "output"}
"""How a card names a server's last sign of life (``ServerWait.sign``)."""


def wait_parts(wait: ServerWait, since: float) -> tuple[str, str, str]:
    """What a call waiting on its MCP server shows, ``since`` seconds after the report:
    ``("waiting for server fetch", "42 s · gives up in 25 s if silent", "last progress 35 s
    ago: Installing…")``: "gives up" once half the idle timeout has passed in silence, "limit
    in N s" when the hard limit is nearer than the idle one."""
    waited, quiet = wait.waited + since, wait.quiet + since
    times = f"{waited:.0f} s"
    idle_left, limit_left = wait.idle_timeout - quiet, wait.limit - waited
    if limit_left < idle_left:
        times += f" · limit in {max(0.0, limit_left):.0f} s"
    elif quiet >= wait.idle_timeout / 2:
        times += f" · gives up in {max(0.0, idle_left):.0f} s if silent"
    if wait.sign is None:
        said = "no progress yet"
    else:
        said = f"last {SIGN_WORDS[wait.sign]} {quiet:.0f} s ago"
        said += f": {wait.said}" if wait.said else ""
    return f"waiting for server {wait.server}", times, said


# The status a batch shows: the most pressing one among its calls.
_PRECEDENCE = (
    CallStatus.APPROVAL,
    CallStatus.RUNNING,
    CallStatus.QUEUED,
    CallStatus.ERROR,
    CallStatus.FAILED,
    CallStatus.INTERRUPTED,
    CallStatus.REJECTED,
    CallStatus.OK,
)


def batch_status(calls: list[CallState]) -> CallStatus:
    """The status a batch (or a turn) of calls shows: its most pressing member status."""
    present = {c.status for c in calls}
    return next((s for s in _PRECEDENCE if s in present), CallStatus.OK)


AutoExpand = Literal["never", "always", "failures", "success"]


def opens_by_itself(status: CallStatus, policy: AutoExpand) -> bool:
    """Whether a call that just finished with ``status`` opens its card under ``policy``."""
    if policy == "always":
        return status.finished
    if policy == "failures":
        return status in FAILURES
    if policy == "success":
        return status is CallStatus.OK
    return False
