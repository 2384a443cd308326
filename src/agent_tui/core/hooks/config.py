"""The ``"hooks"`` section of the settings files: which command runs on which event.

Two shapes are read. Ours: ``{"PreToolUse": [{"matcher": "run_shell", "command": "...",
"timeout": 30}]}``; Claude Code's: ``{"PreToolUse": [{"matcher": "Bash|Edit", "hooks":
[{"type": "command", "command": "...", "timeout": 60}]}]}``. Unlike the other sections, hooks
of every file add up (a project cannot remove the user's hooks), and each remembers the file it
comes from: a project file's hooks run only once the user trusted that file's hooks exactly as
they are (``TrustItem`` of kind ``hook_file``; a changed section asks again).

``"onFailure"`` (``block`` or ``ignore``) says what a hook that cannot run does — not found,
not executable, killed, timed out, an exit code other than 0 and 2, an answer that cannot be
read (``core.hooks.failures``). ``block`` is the default of ``PreToolUse`` (its call is not run:
a guard that cannot run must not wave calls through) and may be chosen for ``UserPromptSubmit``
and ``PreCompact``; the other events cannot block anything on failure (``PostToolUse`` comes
after its call), so they report it and go on.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from agent_tui.core.claude import names
from agent_tui.core.state.trust import TrustItem, canonical

HookEventName = Literal[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "UserPromptSubmit",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "Notification",
]
EVENTS: tuple[HookEventName, ...] = get_args(HookEventName)
TOOL_EVENTS: frozenset[str] = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"}
)
"""Events whose matcher is matched against the tool's name (ours and Claude Code's); the
matcher of the others is matched against what the event says: ``SessionStart`` its source
(``startup``, ``resume``, ``clear``, ``compact``), ``SessionEnd`` its reason, ``PreCompact``
and ``PostCompact`` their trigger (``manual``, ``auto``), ``Notification`` its type,
``SubagentStart`` and ``SubagentStop`` the agent's type, ``StopFailure`` the error
(``rate_limit``, ``authentication_failed``, ``billing_error``, ``invalid_request``,
``server_error``, ``unknown``). ``UserPromptSubmit`` and ``Stop``
have none (a matcher there is ignored, as in Claude Code)."""
NOT_HERE: dict[str, str] = {
    "PermissionDenied": "there is no auto-mode classifier here to deny calls",
    "ConfigChange": "settings are read once at start: a change mid-session is never applied, "
    "so there is nothing to report or block",
    "CwdChanged": "the working directory never changes (a command's cd does not carry over)",
    "Setup": "there is no --init / --maintenance run here",
    "TaskCompleted": "there are no background tasks here",
    "TeammateIdle": "there are no agent teams here",
    "InstructionsLoaded": "not a hook point yet",
    "WorktreeCreate": "there are no managed worktrees here",
    "WorktreeRemove": "there are no managed worktrees here",
    "Elicitation": "not a hook point yet",
    "ElicitationResult": "not a hook point yet",
}
"""Claude Code events that have no counterpart here (yet), and why: their hooks are named
once as not run, never dropped silently."""
Scope = Literal["user", "project", "local"]
OnFailure = Literal["block", "ignore"]
CAN_BLOCK_ON_FAILURE: frozenset[str] = frozenset({"PreToolUse", "UserPromptSubmit", "PreCompact"})
"""Events whose hook may block what it guards when it cannot run (``"onFailure": "block"``)."""
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0

CLAUDE_ALIASES: dict[str, str] = {tool.claude: tool.ours for tool in names.TOOLS}
"""Claude Code's tool names and ours (``core.claude.names``): a matcher written for Claude
Code matches our tool."""


@dataclass(frozen=True)
class HookSpec:
    """One command to run on one event."""

    event: HookEventName
    command: str
    matcher: str = ""
    """A regular expression matched against the whole tool name (ours or Claude Code's), or
    for the other events what ``TOOL_EVENTS`` says; empty or ``*``: everything."""
    timeout: float = DEFAULT_TIMEOUT
    source: Path = Path()
    scope: Scope = "user"
    on_failure: OnFailure | None = None
    """What a failure to run does (None: the event's default, ``failure_policy``)."""
    args: tuple[str, ...] | None = None
    """Exec form (``"args": [...]``): ``command`` is the program, run with these arguments
    and no shell; None: ``command`` is a shell command line."""
    prompt: str | None = None
    """A ``"type": "prompt"`` hook: this text (``$ARGUMENTS``: the event's JSON) is judged by
    the session's model, which answers ``{"ok": …, "reason": …}`` (``core.hooks.prompts``);
    ``command`` is empty."""
    condition: str | None = None
    """``"if"``: a permission rule the call must match for the hook to run (tool events
    only; ``core.hooks.conditions``)."""

    @property
    def argv(self) -> list[str]:
        """What runs: the program and its arguments, or ``/bin/sh -c`` the command line."""
        if self.args is not None:
            return [self.command, *self.args]
        return ["/bin/sh", "-c", self.command]

    @property
    def shown(self) -> str:
        """The command as one line (exec form: quoted as a shell would read it)."""
        if self.prompt is not None:
            return "prompt: " + " ".join(self.prompt.split())
        return self.command if self.args is None else shlex.join(self.argv)

    @property
    def failure_policy(self) -> OnFailure:
        """``block`` for PreToolUse unless the hook says ``"onFailure": "ignore"``."""
        if self.on_failure is not None:
            return self.on_failure
        return "block" if self.event == "PreToolUse" else "ignore"

    def matches(self, target: str | None) -> bool:
        """Whether the hook runs for ``target``: the tool's name (ours) on a tool event, what
        the event says on the others (``TOOL_EVENTS``); None: every hook of the event."""
        if target is None or self.matcher in ("", "*"):
            return True
        if self.event in ("UserPromptSubmit", "Stop"):
            return True  # no matcher there, as in Claude Code
        names = {target}
        if self.event in TOOL_EVENTS:
            names |= {alias for alias, ours in CLAUDE_ALIASES.items() if ours == target}
        try:
            pattern = re.compile(self.matcher)
        except re.error:
            return self.matcher in names
        return any(pattern.fullmatch(name) for name in names)


def parse_hooks(raw: Any, source: Path, scope: Scope) -> tuple[list[HookSpec], list[str]]:
    """The hooks of one file's ``"hooks"`` value, and what is wrong with it (each entry that
    cannot be read is left out and named)."""
    problems: list[str] = []
    specs: list[HookSpec] = []
    if raw is None:
        return specs, problems
    if not isinstance(raw, dict):
        return specs, [f'"hooks" must be an object of events ({", ".join(EVENTS)})']
    for event, entries in raw.items():
        if event in NOT_HERE:
            problems.append(
                f"Claude Code's {event} hooks are not run here: {NOT_HERE[event]} "
                f"(events run here: {', '.join(EVENTS)})"
            )
            continue
        if event not in EVENTS:
            problems.append(f"unknown hook event {event!r} ignored (known: {', '.join(EVENTS)})")
            continue
        if not isinstance(entries, list):
            problems.append(f"hooks.{event} must be a list of {{matcher, command, timeout}}")
            continue
        for index, entry in enumerate(entries):
            where = f"hooks.{event}[{index}]"
            if not isinstance(entry, dict):
                problems.append(f"{where} must be an object; ignored")
                continue
            matcher = entry.get("matcher", "")
            if not isinstance(matcher, str):
                problems.append(f"{where}.matcher must be a string; ignored")
                continue
            inner = entry.get("hooks")
            commands = inner if isinstance(inner, list) else [entry]
            for n, hook in enumerate(commands):
                spot = f"{where}.hooks[{n}]" if isinstance(inner, list) else where
                spec = _one(event, matcher, hook, source, scope, spot, problems)
                if spec is not None:
                    specs.append(spec)
    return specs, problems


def _one(
    event: HookEventName,
    matcher: str,
    hook: Any,
    source: Path,
    scope: Scope,
    where: str,
    problems: list[str],
) -> HookSpec | None:
    if not isinstance(hook, dict):
        problems.append(f"{where} must be an object; ignored")
        return None
    kind = hook.get("type", "command")
    command = hook.get("command")
    prompt = hook.get("prompt")
    if kind == "prompt":
        if not isinstance(prompt, str) or not prompt.strip():
            problems.append(f'{where} needs "prompt" (the text the model judges); ignored')
            return None
        command = ""
    elif kind != "command":
        problems.append(
            f'{where} is a "type": {kind!r} hook: only "command" and "prompt" hooks run here; '
            "ignored"
        )
        return None
    elif not isinstance(command, str) or not command.strip():
        problems.append(f'{where} needs "command" (a shell command line); ignored')
        return None
    args = hook.get("args")
    if args is not None and (
        not isinstance(args, list) or not all(isinstance(a, str) for a in args)
    ):
        problems.append(f"{where}.args must be a list of strings (the arguments); ignored")
        return None
    condition = hook.get("if")
    if condition is not None and (not isinstance(condition, str) or not condition.strip()):
        problems.append(
            f'{where}.if must be a permission rule such as "Bash(git *)"; the hook runs on '
            "every call its matcher matches"
        )
        condition = None
    elif condition is not None and event not in TOOL_EVENTS:
        problems.append(
            f"{where}.if has no meaning on {event} (it filters tool calls), as in Claude Code: "
            "ignored"
        )
        condition = None
    timeout = hook.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        problems.append(f"{where}.timeout must be a positive number of seconds; ignored")
        return None
    on_failure = hook.get("onFailure")
    if on_failure not in (None, "block", "ignore"):
        problems.append(f'{where}.onFailure must be "block" or "ignore"; ignored')
        return None
    if on_failure == "block" and event not in CAN_BLOCK_ON_FAILURE:
        problems.append(
            f'{where}.onFailure "block" has no effect on {event} (nothing to block: a failure '
            "is reported and the session goes on)"
        )
        on_failure = None
    return HookSpec(
        event,
        command,
        matcher,
        min(float(timeout), MAX_TIMEOUT),
        source,
        scope,
        on_failure,
        tuple(args) if args is not None else None,
        prompt if kind == "prompt" else None,
        condition.strip() if condition is not None else None,
    )


def trust_item(source: Path, raw: Any) -> TrustItem:
    """What the user trusts for a project file's hooks: its whole ``"hooks"`` section."""
    commands = sorted({spec.shown for spec in parse_hooks(raw, source, "project")[0]})
    return TrustItem(
        "hook_file",
        source,
        "hooks",
        detail="; ".join(commands),
        definition=canonical(raw),
    )
