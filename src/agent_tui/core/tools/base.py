"""The tool protocol: one entry per tool, with fail-closed metadata.

A tool is a name (plus aliases), a pydantic input model whose JSON Schema is what the model
sees, a description written for a model, metadata, and an async ``call``; optionally a
``precheck`` that refuses a call which cannot succeed before anyone is asked to approve it.
Adding a tool means adding one ``Tool`` to the registry; the loop never changes.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, field_validator

from agent_tui.core.attachments import NO_IMAGES, ImageRef, ImageSink
from agent_tui.core.budget.raw import RawOutput
from agent_tui.core.calls import ResultFacts, ServerWait, SubagentReport
from agent_tui.core.jobs import JobManager
from agent_tui.core.sandbox import UNCONFINED, SessionSandbox
from agent_tui.core.tools.aliases import CallAlias, InputAliases
from agent_tui.core.tools.config import ShellSettings
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.file_access import LOCAL_FILES, FileAccess
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.hosts import NO_HOSTS, HostRules
from agent_tui.core.tools.plan_gate import PlanGate
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard

InputT = TypeVar("InputT", bound=BaseModel)


class ToolInput(BaseModel):
    """Base for tool input models: unknown keys are a schema violation, not silently dropped,
    and no string may hold a NUL byte (no path, pattern or command can contain one: the OS
    would refuse it deep inside the call, so it is refused here as a schema violation).

    Each builds its validator and schema on first use (``defer_build``), not at import: a
    headless turn uses the schemas of the direct tools only (issue 45)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and "\0" in value:
            raise ValueError(
                "contains a NUL byte (\\0), which no path, pattern or command can hold; remove it"
            )
        return value


class JsonInput(BaseModel):
    """The input of a tool described by a raw JSON Schema (``Tool.input_schema``, MCP tools):
    the validated arguments, kept as they are (``model_dump()`` gives them back)."""

    model_config = ConfigDict(extra="allow", defer_build=True)


@dataclass(frozen=True)
class ToolMeta:
    """Safety metadata. Defaults are fail-closed: a tool must declare itself safe."""

    read_only: bool = False
    concurrency_safe: bool = False
    destructive: bool = False
    rule_kind: Literal["command", "path", "domain"] | None = None
    """How permission rule patterns match this tool: as a shell command prefix, a path glob, or
    the host of a URL (``domain:example.com``)."""
    rule_subject: str | None = None
    """The input field those patterns are matched against (``command``, ``path``, ``url``)."""
    rule_path: Callable[[dict[str, Any]], str | None] | None = field(default=None, compare=False)
    """For a path tool whose call reaches beyond its ``rule_subject`` argument: the path the
    rules judge, from the call's arguments (``glob``: ``path`` with its pattern's leading
    directories, so the pattern ``/home/u/.ssh/*`` is judged as ``/home/u/.ssh``); None, or
    None returned: the argument itself."""
    cancels_siblings_on_failure: bool = False
    """A failure of this tool (an error, or output with ``is_error``) cancels the calls still
    running in its parallel batch: their work is presumably moot (a failing shell command)."""
    acts_on_server: str | None = None
    """The input field naming the MCP server a call acts on (``read_mcp_resource``'s
    ``server``): that server's rules (``mcp__SERVER``, ``mcp__SERVER__*``) apply to the call
    too, so a deny rule for a server is not walked around through a built-in."""
    network: bool = False
    """The tool reaches other machines (``web_fetch``): read-only here, but it asks unless a
    rule allows the host, in every policy."""
    reports_changes: bool = False
    """The tool tells ``ToolContext.changes`` about every file it changes, before and after
    (``write_file``, ``edit_file``), so the turn's checkpoint can restore them. A tool that is
    neither read-only nor reporting may change any file (``run_shell``, MCP tools): the
    workspace is scanned around its calls and what it changed is listed as not restorable."""
    plan_mode_only: bool = False
    """Offered to the model only while plan mode is on (``exit_plan_mode``)."""


@dataclass(frozen=True)
class ProgressUpdate:
    """What a running tool reports: a status line, new output lines, n/total, or that its
    MCP server is being started for it."""

    message: str | None = None
    lines: tuple[str, ...] = ()
    progress: float | None = None
    total: float | None = None
    starting_server: str | None = None
    """The MCP server being started for this call (a lazy server's first call); an update
    without it after one with it: the server is no longer starting."""
    waiting: ServerWait | None = None
    """The MCP server this call has been waiting on for a while, and its last sign of life
    (``core.mcp.client.call_clock``); None: not waiting on a server (or not for long)."""


@dataclass
class ToolOutput:
    """A finished call. ``content`` is what the model reads; ``data`` is for the UI and logs.

    ``is_error`` marks a call that ran but failed (a non-zero exit): the model still gets the
    output, excerpted from its tail. ``never_spill`` marks output that limits itself (read_file).
    ``summary`` and ``facts`` say what came of it for people (the lane, headless JSON).
    """

    content: str
    is_error: bool = False
    data: dict[str, Any] = field(default_factory=dict)
    never_spill: bool = False
    summary: str = ""
    """One line for people: what came of the call (``core.text.summary`` helps word it);
    empty: the first line of ``content``."""
    facts: ResultFacts = field(default_factory=ResultFacts)
    """The same in numbers (lines, exit code, +/−, files…)."""
    raw: RawOutput | None = None
    """The exact bytes ``content`` was made from, when it is not simply them (run_shell: what
    the command wrote; ``content`` is that decoded, escape codes stripped, plus the footer). A
    spill saves these instead of ``content``, byte for byte; None: it saves ``content``."""
    subagent: SubagentReport | None = None
    """``task``: what the child agent did (carried by the ``tool_result`` and the transcript)."""
    images: list[ImageRef] = field(default_factory=list)
    """Images the model gets with ``content`` (kept already, ``ToolContext.images``)."""
    footer: str = ""
    """The end of ``content`` (after a ``\n``) that says how the call ended — run_shell's
    ``[exit code 1]`` and sandbox lines — and is not in ``raw``: an excerpt of a spilled or
    compressed output always keeps it whole."""


ProgressCallback = Callable[[ProgressUpdate], None]
EventSink = Callable[[Any], None]
"""Where a call forwards events of its own (``task``: its child agent's tool events, typed
with the parent call's id): the executor yields them as they come."""


class FileChanges(Protocol):
    """Where a file tool says what it changes: the turn's checkpoint (``core.checkpoints``).

    Both are blocking and called from the worker thread that does the write."""

    def before_change(self, path: Path, content: bytes | None = None) -> str | None:
        """``path`` (resolved, as the tool will write it) is about to change: keep what it
        holds now, the first time in a turn — ``content`` when given (what an editor's buffer
        holds, ``ToolContext.files``), else what is on disk. ``OSError`` when that failed: do
        not write. A note when what it holds is not kept (too big): the change cannot be
        rewound, and the result says so."""

    def changed(self, path: Path, digest: str | None) -> None:
        """``path`` now holds the bytes of ``digest`` (``content_digest``); None: deleted."""


class _NoChanges:
    """No checkpoint (``mcp serve``, tests): nothing is kept."""

    def before_change(self, path: Path, content: bytes | None = None) -> str | None:
        return None

    def changed(self, path: Path, digest: str | None) -> None:
        return None


NO_CHANGES: FileChanges = _NoChanges()


def _no_progress(_: ProgressUpdate) -> None:
    return None


def _no_events(_: Any) -> None:
    return None


@dataclass(frozen=True)
class KeptOutput:
    """What a call produced before it was stopped (an interrupt, a sibling's failure): kept
    by the budget like any output, so nothing the user saw streaming is lost."""

    text: str
    """Decoded, as the model would read it."""
    raw: RawOutput
    """The exact bytes (a spill saves these)."""


@dataclass
class ToolContext:
    """Everything a call may use: the session's working directory, shared state, progress."""

    cwd: Path
    file_state: FileStateCache = field(default_factory=FileStateCache)
    call_id: str = ""
    progress: ProgressCallback = _no_progress
    started: float = field(default_factory=time.monotonic)
    judged_path: Path | None = None
    """The resolved path the permission decision judged for this call (path tools). A file
    tool opens exactly this path, never following a symlink on the way, and refuses the call
    when the argument resolves elsewhere now (a symlink swapped after the decision)."""
    reads: ReadGuard = NO_GUARD
    """Which file contents must not be returned (read-deny rules, ``mcp serve``'s root)."""
    sandbox: SessionSandbox = UNCONFINED
    """Where ``run_shell`` runs its commands (``core.sandbox``)."""
    changes: FileChanges = NO_CHANGES
    """Told before and after each change a tool makes to a file (``ToolMeta.reports_changes``)."""
    shell: ShellSettings = field(default_factory=ShellSettings)
    """How ``run_shell`` starts them (the ``shell`` settings: colour or not)."""
    emit: EventSink = _no_events
    """Forwards events of the call's own (a subagent's tool events) to the turn's stream."""
    asker: Callable[[Any], Awaitable[Any]] | None = None
    """The turn's permission asker (``permissions.Asker``): a subagent's asks reach it."""
    hosts: HostRules = NO_HOSTS
    """The hosts the allow rules name literally: the only private addresses ``web_fetch``
    may reach (``core.tools.hosts``)."""
    images: ImageSink = NO_IMAGES
    """Where a tool keeps an image it returns (``read_file``), and whether the model takes
    images at all (``core.attachments``)."""
    plan_gate: PlanGate | None = None
    """The permission mode and the user's review of a plan (``exit_plan_mode``); None: no
    session behind the call (``mcp serve``, tests)."""
    jobs: JobManager | None = None
    """The session's background jobs (``run_in_background``, ``shell_output``, ``shell_kill``);
    None where there are none (``mcp serve``, a command file's shell lines)."""
    files: FileAccess = LOCAL_FILES
    """Where the file tools get and put a text file's content: the disk, or the editor that
    holds the files open (``core.tools.file_access``)."""
    kept: KeptOutput | None = None
    """Set by a tool that is stopped midway (cancelled) with output worth keeping
    (``run_shell``): the executor budgets it with the call's interrupted or cancelled end."""

    def resolve(self, path: str) -> Path:
        """A path argument resolved against the session cwd (``~`` expanded)."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else (self.cwd / p)


@dataclass(frozen=True)
class Tool(Generic[InputT]):
    """One registry entry."""

    name: str
    description: str
    input_model: type[InputT]
    call: Callable[[InputT, ToolContext], Awaitable[ToolOutput]]
    aliases: tuple[str, ...] = ()
    meta: ToolMeta = ToolMeta()
    timeout: float | None = None
    """Seconds before dispatch gives up on the call; None leaves timing to the tool itself."""
    proxy: Callable[[InputT], tuple[str, str]] | None = None
    """For a proxy tool (``run_tool``): the target's name and JSON arguments. The executor
    resolves the proxy first, so the target is validated, permitted and run as itself."""
    input_schema: dict[str, Any] | None = field(default=None, hash=False)
    """A raw JSON Schema for the input (MCP tools): what the model sees instead of the
    model's schema, and what the arguments are validated against (``input_model`` is then
    ``JsonInput``, which keeps them as they are)."""
    concurrent: Callable[[InputT], bool] | None = None
    """Whether this call (its input) may run in parallel with its neighbours, when that depends
    on the input (``task``: only when its subagent's tools are all read-only); None: as
    ``meta.concurrency_safe`` says."""
    precheck: Callable[[InputT, ToolContext], ToolErrorInfo | None] | None = None
    """Refuses a call that cannot succeed (``edit_file`` of a file not read, an
    ``old_string`` not found) before the user is asked to approve it: the error, or None to go
    on. Runs in a worker thread with the context the call would get (its ``judged_path``);
    it must not change anything. It only ever refuses: None never allows a call, which is
    still judged and asked as before (see ``executor.approval``), and the call repeats its
    own checks when it runs."""
    input_aliases: InputAliases | None = field(default=None, compare=False)
    """Other input shapes the tool accepts (Claude Code's ``file_path``…): rewrites the raw
    arguments into the tool's own shape before validation (``core.tools.aliases``), so
    permissions, hooks and the call see only its own fields. The schema the model sees does
    not change."""
    call_aliases: tuple[CallAlias, ...] = field(default=(), compare=False)
    """Other tools' call names this tool answers to, each with the rewrite of that tool's
    input into ours (Claude Code's ``Bash`` for ``run_shell``): applied before
    ``input_aliases``. Never shown to the model; the call is shown, judged and run as this
    tool (``ToolRegistry.as_ours``)."""

    def answers_to(self, name: str) -> bool:
        """Whether a call named ``name`` is a call of this tool (its name or an alias)."""
        return name == self.name or name in self.aliases or self.call_alias(name) is not None

    def call_alias(self, name: str) -> CallAlias | None:
        """The call alias ``name`` of this tool, or None."""
        return next((alias for alias in self.call_aliases if alias.name == name), None)
