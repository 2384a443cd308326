"""The typed event stream of the agent loop: the single source of truth for render states.

The TUI and headless mode consume the same events; ``stream-json`` prints them one per line.
Tool events carry the call ``id`` and ``name`` and map one-to-one onto the tool-call lane's
render states (use / grouped / progress / result / rejected / error).
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationInfo, model_validator

from agent_tui.core.attachments import ImageRef
from agent_tui.core.calls import ResultFacts, ServerWait, SubagentReport, ToolCall, Usage
from agent_tui.core.empty import empty_list
from agent_tui.core.text.utf8 import clean, known_clean

DEFERRED = ConfigDict(defer_build=True)
"""The models' config: each builds its validator on first use, not at import (a run uses few
of them; every start pays for the import: issue 45)."""


class _Event(BaseModel):
    model_config = DEFERRED

    @model_validator(mode="before")
    @classmethod
    def _encodable(cls, data: Any, info: ValidationInfo) -> Any:
        """No lone surrogate in any string of an event (``core.text``): every front end can
        print it and ``stream-json`` can encode it. Nothing to do on input known to hold none
        (a session line: ``core.conversation.session_read``)."""
        if not isinstance(data, dict) or known_clean(info.context):
            return data
        return clean(data)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)


class _ChildEvent(_Event):
    """A tool event that may come from a subagent (``task``): then ``parent_call_id`` is the
    id of the ``task`` call that runs it and ``agent`` the subagent's name (both None for the
    session's own calls)."""

    parent_call_id: str | None = None
    agent: str | None = None


class MemoryInfo(BaseModel):
    """A project memory file loaded into the system prompt (``core.workspace.memory``): its name as
    shown (relative to the cwd, ``~`` for home), its absolute path, its size on disk, whether
    only its first part was kept, and where it comes from (``user``, ``project``, ``nested``)."""

    model_config = DEFERRED

    path: str
    abs_path: str
    bytes: int
    truncated: bool = False
    scope: Literal["user", "project", "nested"] = "project"


class SessionStart(_Event):
    """The first event. ``warnings``: problems found at start (a broken settings file, …).
    ``memory``: the memory files in the system prompt, in its order. ``context_window``: the
    model's window in tokens (``core.conversation.model_limits``)."""

    type: Literal["session_start"] = "session_start"
    session_id: str
    model: str
    cwd: str
    demo: bool = False
    resumed: bool = False
    permission_mode: str = "default"
    warnings: list[str] = Field(default_factory=empty_list)
    forked_from: str | None = None
    """The id of the session this one was forked from (``--fork-session``, ``/fork``)."""
    memory: list[MemoryInfo] = Field(default_factory=empty_list)
    context_window: int | None = None


class Mention(BaseModel):
    """A path (or, later, an MCP resource) the user named with ``@`` in a prompt: what the
    chat shows as a chip, saved with the message so a resumed session shows the same."""

    model_config = DEFERRED

    kind: Literal["file", "directory", "resource"]
    path: str
    """Relative to the workspace (a directory's ends in ``/``); a resource's: ``server:uri``."""
    start: int
    end: int
    """Where ``@…`` stands in the prompt as typed (characters)."""
    attached: bool = True
    """Its content went to the model with the prompt (False: refused, see ``note``)."""
    note: str = ""
    """Why it was not attached (withheld by a rule, outside the workspace, not text), or what
    was attached of it when not all (the first lines of a big file)."""


class CommandGrant(BaseModel):
    """What a custom command's front matter gives the turn it starts (``core.commands.grants``):
    the allow rules of its ``allowed-tools`` (ours, as judged), the model the turn runs on
    (the provider's name; empty: the session's), and what of the front matter is not applied,
    and why (one line each)."""

    model_config = DEFERRED

    name: str
    granted: list[str] = Field(default_factory=empty_list)
    model: str = ""
    notes: list[str] = Field(default_factory=empty_list)

    def summary(self) -> str:
        """One line for the user: what the command allows in this turn, and its model."""
        allows = ", ".join(self.granted) if self.granted else "nothing more than the rules"
        return f"/{self.name} allows during this turn: {allows} · runs on {self.model}"


class UserMessage(_Event):
    type: Literal["user_message"] = "user_message"
    text: str
    """The prompt as typed (the model also gets what its mentions attach)."""
    mentions: list[Mention] = Field(default_factory=empty_list)
    images: list[ImageRef] = Field(default_factory=empty_list)
    """The images attached to it (pasted, dropped, ``@``-mentioned): the chat's chips."""
    command: CommandGrant | None = None
    """Set when a custom command started the turn with ``allowed-tools`` or ``model``."""


class UserInjected(_Event):
    """A message the user typed while the turn ran, added to this turn's transcript after the
    results of its tool calls (``core.agent.inbox``): the next model request sees it as a user
    message following them. ``id``: the inbox id it was queued with (None when replayed)."""

    type: Literal["user_injected"] = "user_injected"
    text: str
    id: str | None = None


class AssistantDelta(_Event):
    type: Literal["assistant_delta"] = "assistant_delta"
    text: str


class AssistantMessage(_Event):
    type: Literal["assistant_message"] = "assistant_message"
    text: str
    tool_calls: list[ToolCall] = Field(default_factory=empty_list)


class ToolUse(_ChildEvent):
    """The model asked for a call. ``input`` is None when the arguments did not parse."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any] | None = None
    raw_arguments: str = ""
    read_only: bool = False


class ToolGroup(_ChildEvent):
    type: Literal["tool_group"] = "tool_group"
    ids: list[str]


class ToolProgress(_ChildEvent):
    """A running call: elapsed seconds, the tail of its partial output, n/total progress, or
    the MCP server being started for it (``starting_server``).

    Every call that runs first reports ``message="started"`` with ``elapsed=0`` as it starts
    executing (after its approval, if it needed one)."""

    type: Literal["tool_progress"] = "tool_progress"
    id: str
    name: str
    elapsed: float
    message: str | None = None
    tail: list[str] | None = None
    progress: float | None = None
    total: float | None = None
    starting_server: str | None = None
    """The MCP server being started for this call (a lazy server, on the first call of one of
    its tools); None in the next progress event, once it started or failed."""
    waiting: ServerWait | None = None
    """The MCP server the call has waited on for a while (it is still working: its last sign
    of life, the idle timeout and the hard limit, in numbers); None otherwise."""


SpillReason = Literal["budget", "log_compression"]


class SpillPointer(BaseModel):
    """Where the full output of a call is: ``path`` as the model sees it (relative to the
    session cwd when inside it), its size, and why it was spilled. Page it with read_file."""

    model_config = DEFERRED

    path: str
    chars: int
    lines: int
    reason: SpillReason = "budget"


class Spill(_ChildEvent):
    """A call's full output was saved to a spill file (emitted before its ``tool_result``)."""

    type: Literal["spill"] = "spill"
    id: str
    name: str
    path: str
    abs_path: str
    chars: int
    lines: int
    bytes: int
    reason: SpillReason = "budget"


class ToolResult(_ChildEvent):
    """A finished call. ``content`` is exactly what the model sees; ``spill`` points at the
    full output when the model got an excerpt or a compressed log. ``summary`` (one line) and
    ``facts`` are what the tool says came of it, for people: ``lines 1–40 of 120``,
    ``exit 2 · No such file``, ``+9 −0 · new file``."""

    type: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    content: str
    is_error: bool = False
    elapsed: float = 0.0
    summary: str = ""
    facts: ResultFacts = Field(default_factory=ResultFacts)
    data: dict[str, Any] = Field(default_factory=dict)
    """The tool's own payload for its card (an edit's ``diff``, MCP ``media``)."""
    spill: SpillPointer | None = None
    allowed_by: str | None = None
    """What let the call run when the permission mode changed while it asked
    (``accept-edits mode``); None when it ran as first decided."""
    subagent: SubagentReport | None = None
    """A ``task`` call: what its child agent did (its calls, tokens, requests)."""
    ran: str | None = None
    """The tool that ran when ``name`` is a proxy (``run_tool`` of a deferred ``update_plan``);
    None when ``name`` itself ran — as it does whenever the proxy's target is known: the call is
    then named as its target (``ToolRegistry.as_ours``)."""
    images: list[ImageRef] = Field(default_factory=empty_list)
    """The images the model got with the result (``read_file`` of an image)."""


RejectedBy = Literal["user", "rule", "plan", "policy", "hook", "headless", "prompt"]


class ToolRejected(_ChildEvent):
    type: Literal["tool_rejected"] = "tool_rejected"
    id: str
    name: str
    reason: str
    feedback: str | None = None
    by: RejectedBy | None = None
    """Who refused: the user at the prompt, a deny rule (``rule``), plan mode (``plan``), the
    policy (a failed check), a hook, headless mode (an ask nobody could answer), a prompt
    that failed."""
    step: str | None = None
    """The pipeline step that decided (``Step`` values), when the policy did."""
    rule: str | None = None


class ToolErrorEvent(_ChildEvent):
    """A failed call: unknown tool, bad JSON, schema violation, exception, timeout."""

    type: Literal["tool_error"] = "tool_error"
    id: str
    name: str
    code: str
    message: str
    next_step: str = ""
    retryable: bool = False
    details: list[str] = Field(default_factory=empty_list)
    elapsed: float = 0.0
    spill: SpillPointer | None = None
    allowed_by: str | None = None
    """As for ``tool_result``: what let it run after a mode change."""


class PermissionRequest(_ChildEvent):
    """A call waits for the user's approval: the policy's typed decision, field by field."""

    type: Literal["permission_request"] = "permission_request"
    id: str
    name: str
    input: dict[str, Any] | None = None
    reason: str = ""
    step: str = ""
    """The pipeline step that asks (``Step`` values: ``protected path``, ``ask rule``…)."""
    rule: str | None = None
    understood: bool = True
    """False when the command has parts the analysis does not understand."""
    every_mode: bool = False
    """True when no permission mode would run it without asking."""
    suggestions: list[str] = Field(default_factory=empty_list)
    """The rules "always allow" saves; empty when it is not offered."""
    no_suggestion: str | None = None
    """Why "always allow" is not offered."""
    caveats: list[str] = Field(default_factory=empty_list)
    """What to know before allowing it: a file write that cannot be rewound…"""


class ToolsCost(_Event):
    """What the tools array of the next request costs (about 4 characters a token), and what
    it would cost with every tool direct. Emitted when it changes."""

    type: Literal["tools_cost"] = "tools_cost"
    direct_tokens: int
    proxy_tokens: int = 0
    unmasked_tokens: int = 0
    total_tokens: int
    without_disclosure_tokens: int
    deferred_count: int = 0


class UsageEvent(_Event):
    """Tokens of the response just received (``turn``) and of the session so far, and how full
    the context window is now: ``context_tokens`` of ``context_window`` (``percent``);
    ``estimated`` when the provider did not count it (``core.conversation.context``)."""

    type: Literal["usage"] = "usage"
    turn: Usage
    session: Usage
    context_tokens: int | None = None
    context_window: int | None = None
    percent: int | None = None
    estimated: bool | None = None


class CompactionEvent(_Event):
    """The conversation is being folded into a summary (``core.conversation.compaction``):
    ``phase`` start, then end (the transcript now begins with the summary) or failed (it is
    unchanged)."""

    type: Literal["compaction"] = "compaction"
    phase: Literal["start", "end", "failed"]
    reason: Literal["manual", "threshold", "overflow"] = "manual"
    folded: int = 0
    """Messages the summary replaces."""
    kept: int = 0
    """Messages kept as they were after it."""
    tokens_before: int = 0
    tokens_after: int = 0
    """Estimated."""
    requests: int = 0
    """Model requests the summary took."""
    summary: str = ""
    """End: the summary message's text."""
    message: str = ""
    """Failed: what went wrong and that nothing changed."""
    skipped: bool = False
    """Failed because there was nothing to fold (nothing yet, or only the last compaction's
    summary): not an error; no request was made, the conversation is unchanged."""

    @property
    def saved_nothing(self) -> bool:
        """An end whose summary is no shorter than what it replaced (estimated)."""
        return self.phase == "end" and 0 < self.tokens_before <= self.tokens_after


class PlanStep(BaseModel):
    """One step of the model's plan (``update_plan``, ``core.plan``)."""

    model_config = DEFERRED

    content: str
    status: Literal["pending", "in_progress", "completed"] = "pending"


class PlanEvent(_Event):
    """The model's plan changed (a successful ``update_plan`` call, ``id``): every step in
    order with its state, and why it changed. Follows that call's ``tool_result``; a resumed
    session replays it from the call's record."""

    type: Literal["plan"] = "plan"
    id: str
    steps: list[PlanStep] = Field(default_factory=empty_list)
    explanation: str = ""

    @property
    def done(self) -> int:
        return sum(1 for step in self.steps if step.status == "completed")


class HookEvent(_Event):
    """A hook ran (``core.hooks``): which, on which event, and how it ended. ``outcome``: ok,
    blocked (exit 2 or a JSON block/deny: ``message`` is its reason), error (another exit code,
    or it could not start), timeout (its process group was killed), skipped (not run: an
    untrusted project file, a required sandbox missing). ``id``: the tool call, for tool
    events. ``output``: what it printed (stdout, else stderr), shortened."""

    type: Literal["hook"] = "hook"
    event: str
    command: str
    outcome: Literal["ok", "blocked", "error", "timeout", "skipped"]
    source: str = ""
    id: str | None = None
    tool: str | None = None
    exit_code: int | None = None
    message: str = ""
    output: str = ""
    elapsed: float = 0.0


class TurnEnd(_Event):
    """The loop stopped. ``reason``: completed, max_turns, interrupted or error."""

    type: Literal["turn_end"] = "turn_end"
    reason: Literal["completed", "max_turns", "interrupted", "error"]
    turns: int
    text: str = ""


class EndedJob(BaseModel):
    """A background job that ended (``core.jobs``): ``state`` exited or killed, ``exit_code``
    (negative: the signal), ``new_lines`` not read by the model yet, ``log`` its whole
    output."""

    model_config = DEFERRED

    id: str
    command: str
    state: Literal["exited", "killed"]
    exit_code: int | None = None
    new_lines: int = 0
    log: str = ""
    killed_by: str | None = None


class JobsEnded(_Event):
    """Background jobs ended since the last model request; the next one is told of them."""

    type: Literal["jobs_ended"] = "jobs_ended"
    jobs: list[EndedJob]


class ModelRetry(_Event):
    """The model request failed before its response began and is sent again after ``wait``
    seconds: retry ``attempt`` of ``retries``, because of ``reason``. ``retry_after``: the
    wait is the server's own (``Retry-After``)."""

    type: Literal["retry"] = "retry"
    attempt: int
    retries: int
    wait: float
    reason: str
    retry_after: bool = False


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    message: str
    where: str = "agent"
    retryable: bool = False


Event = Annotated[
    SessionStart
    | UserMessage
    | UserInjected
    | AssistantDelta
    | AssistantMessage
    | ToolUse
    | ToolGroup
    | ToolProgress
    | Spill
    | ToolResult
    | ToolRejected
    | ToolErrorEvent
    | PermissionRequest
    | ToolsCost
    | UsageEvent
    | CompactionEvent
    | PlanEvent
    | HookEvent
    | TurnEnd
    | JobsEnded
    | ModelRetry
    | ErrorEvent,
    Field(discriminator="type"),
]


@functools.cache
def _event_adapter() -> TypeAdapter[Event]:
    """The validator of the whole union, built when a line is first parsed back (building it
    builds every event's schema: not at import)."""
    return TypeAdapter(Event)


def parse_event(line: str) -> Event:
    """Parse one ``stream-json`` line back into its typed event."""
    return _event_adapter().validate_json(line)
