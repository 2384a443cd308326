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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.state.trust import TrustItem, canonical

HookEventName = Literal[
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "PreCompact"
]
EVENTS: tuple[HookEventName, ...] = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "PreCompact",
)
Scope = Literal["user", "project", "local"]
OnFailure = Literal["block", "ignore"]
CAN_BLOCK_ON_FAILURE: frozenset[str] = frozenset({"PreToolUse", "UserPromptSubmit", "PreCompact"})
"""Events whose hook may block what it guards when it cannot run (``"onFailure": "block"``)."""
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0

CLAUDE_ALIASES: dict[str, str] = {
    "Bash": "run_shell",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "Write": "write_file",
    "Read": "read_file",
    "Glob": "glob",
    "Grep": "grep",
    "LS": "list_dir",
    "WebFetch": "web_fetch",
    "TodoWrite": "update_plan",
}
"""Claude Code's tool names and ours: a matcher written for Claude Code matches our tool."""


@dataclass(frozen=True)
class HookSpec:
    """One command to run on one event."""

    event: HookEventName
    command: str
    matcher: str = ""
    """A regular expression matched against the whole tool name (or its Claude Code name);
    empty or ``*``: every tool. Only tool events (Pre/PostToolUse) have one."""
    timeout: float = DEFAULT_TIMEOUT
    source: Path = Path()
    scope: Scope = "user"
    on_failure: OnFailure | None = None
    """What a failure to run does (None: the event's default, ``failure_policy``)."""

    @property
    def failure_policy(self) -> OnFailure:
        """``block`` for PreToolUse unless the hook says ``"onFailure": "ignore"``."""
        if self.on_failure is not None:
            return self.on_failure
        return "block" if self.event == "PreToolUse" else "ignore"

    def matches(self, tool: str | None) -> bool:
        if tool is None or self.matcher in ("", "*"):
            return True
        names = {tool, *(alias for alias, ours in CLAUDE_ALIASES.items() if ours == tool)}
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
    if kind != "command" or not isinstance(command, str) or not command.strip():
        problems.append(f'{where} needs "command" (a shell command line); ignored')
        return None
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
        event, command, matcher, min(float(timeout), MAX_TIMEOUT), source, scope, on_failure
    )


def trust_item(source: Path, raw: Any) -> TrustItem:
    """What the user trusts for a project file's hooks: its whole ``"hooks"`` section."""
    commands = sorted({spec.command for spec in parse_hooks(raw, source, "project")[0]})
    return TrustItem(
        "hook_file",
        source,
        "hooks",
        detail="; ".join(commands),
        definition=canonical(raw),
    )
