"""Hooks: the user's own commands around the agent's lifecycle, Claude Code compatible.

Events: ``PreToolUse`` (before a call is judged: block it, ask, allow, or rewrite its input),
``PostToolUse`` (after it ran: add to what the model sees), ``UserPromptSubmit`` (block a
prompt or add context to it), ``Stop`` (the model ended its turn: block = go on, with the reason
as the next instruction, once), ``SessionStart`` (context for the first prompt), ``PreCompact``
(block a compaction). A hook gets the event as JSON on stdin and answers by exit code (0 ok —
stdout is context on UserPromptSubmit/SessionStart —, 2 block with stderr as the reason, other
codes: the hook failed, see below) or by JSON on stdout (``decision``, ``reason``,
``continue``/``stopReason``, ``hookSpecificOutput`` with ``permissionDecision``,
``permissionDecisionReason``, ``updatedInput``, ``additionalContext``).

Security (fail closed): hooks of the user's settings file run as the user's own programs,
outside the sandbox (``placement``: unless they run a file of the workspace); those of a
project's files (``.agent-tui/settings.json``, ``settings.local.json``) run confined, and only
once the user trusted that file's ``"hooks"`` section as it is (``core.trust``; a change asks
again; headless skips them with a warning). A hook can make a call stricter, never looser than
the rules: its input rewrite is validated against the tool's schema and judged by the
permission pipeline again, a deny there stays a deny, and a hook's ``allow`` skips an ask only
when the hook comes from the user's own settings and the ask is one some mode could skip (not
a protected path, not an opaque command). A project hook's ``allow`` counts for nothing.

A hook that cannot run (``failures``: not found, killed, timed out, an exit code other than 0
and 2, an unreadable answer) never stops the loop, and is always shown (``hook`` events). A
``PreToolUse`` hook's failure blocks its call, with the reason (``"onFailure": "ignore"`` on the
hook lets the call go on); ``UserPromptSubmit`` and ``PreCompact`` block only with
``"onFailure": "block"``; for the other events the session goes on as if the hook had said
nothing (a ``PostToolUse`` hook comes after its call: nothing to undo).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.events import HookEvent
from agent_tui.core.hooks.config import (
    CLAUDE_ALIASES,
    EVENTS,
    HookEventName,
    HookSpec,
    Scope,
    parse_hooks,
    trust_item,
)
from agent_tui.core.hooks.failures import failure_message, why_not_run
from agent_tui.core.hooks.runner import HookProcess, run_command
from agent_tui.core.sandbox import UNCONFINED, SessionSandbox
from agent_tui.core.settings import (
    local_settings_path,
    project_settings_path,
    read_json_object,
    user_settings_path,
)
from agent_tui.core.state.trust import ProjectTrust, TrustItem
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard

__all__ = [
    "CLAUDE_ALIASES",
    "EVENTS",
    "HookSpec",
    "HookVerdict",
    "Hooks",
    "load_hooks",
]

Permission = Literal["allow", "deny", "ask"]
SHOWN = 2000


@dataclass
class HookVerdict:
    """What the hooks of one event said, together."""

    events: list[HookEvent] = field(default_factory=list)
    blocked: bool = False
    reason: str = ""
    permission: Permission | None = None
    """PreToolUse: deny beats ask beats allow; an ``allow`` only from a user-scope hook."""
    permission_reason: str = ""
    updated_input: dict[str, Any] | None = None
    context: list[str] = field(default_factory=list)
    stop: bool = False
    """``"continue": false``: end the turn (``stop_reason`` says why)."""
    stop_reason: str = ""

    @property
    def additional_context(self) -> str:
        return "\n".join(c for c in self.context if c)


@dataclass
class Hooks:
    """The hooks of a session and what runs them."""

    cwd: Path
    specs: list[HookSpec] = field(default_factory=list)
    sandbox: SessionSandbox = UNCONFINED
    env_names: tuple[str, ...] = ()
    """The ``shell.env`` names sandboxed hooks get, as commands do."""
    reads: ReadGuard = NO_GUARD
    """The files sandboxed hooks must not see (the read rules), as commands do."""
    session_id: str = ""
    transcript_path: str = ""
    waiting: dict[Path, tuple[TrustItem, list[HookSpec]]] = field(default_factory=dict)
    """Project files whose hooks wait for the user's trust."""
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.specs)

    def has(self, event: HookEventName) -> bool:
        return any(spec.event == event for spec in self.specs)

    def trusted(self, items: Sequence[TrustItem]) -> None:
        """The user trusted ``items``: the hooks of those files run from now on."""
        keys = {item.key for item in items}
        for source, (item, specs) in list(self.waiting.items()):
            if item.key in keys:
                self.specs.extend(specs)
                del self.waiting[source]

    def skipped_warnings(self) -> list[str]:
        return [
            f"hooks of {source} not run: that project file is not trusted (review it with "
            "`agent-tui trust` or in the TUI)"
            for source in self.waiting
        ]

    def base(self, event: HookEventName) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str(self.cwd),
            "hook_event_name": event,
        }

    async def run(
        self,
        event: HookEventName,
        payload: dict[str, Any],
        *,
        tool: str | None = None,
        call_id: str | None = None,
    ) -> HookVerdict:
        """Run every hook of ``event`` that matches ``tool`` (in parallel) and combine them."""
        verdict = HookVerdict()
        specs = [s for s in self.specs if s.event == event and s.matches(tool)]
        if not specs:
            return verdict
        data = {**self.base(event), **payload}
        started = time.monotonic()
        done = await asyncio.gather(
            *(
                run_command(
                    spec, data, self.cwd, self.sandbox, env_names=self.env_names, reads=self.reads
                )
                for spec in specs
            )
        )
        elapsed = round(time.monotonic() - started, 3)
        for spec, proc in zip(specs, done, strict=True):
            shown = _judge(spec, proc, event, verdict, call_id, tool, elapsed)
            if proc.undone:  # what the git check undid after a confined hook
                message = "; ".join(m for m in (shown.message, proc.undone) if m)
                shown = shown.model_copy(update={"message": message})
            verdict.events.append(shown)
        return verdict


def _judge(
    spec: HookSpec,
    proc: HookProcess,
    event: HookEventName,
    verdict: HookVerdict,
    call_id: str | None,
    tool: str | None,
    elapsed: float,
) -> HookEvent:
    """Fold one hook's answer into ``verdict``; the event that shows it."""

    def shown(outcome: Any, message: str = "", output: str = "") -> HookEvent:
        return HookEvent(
            event=event,
            command=spec.command,
            outcome=outcome,
            source=str(spec.source),
            id=call_id,
            tool=tool,
            exit_code=proc.exit_code,
            message=message,
            output=output[:SHOWN],
            elapsed=elapsed,
        )

    why = why_not_run(proc, spec)
    if why is not None:  # no answer: blocks what it guards, or is reported (failure_policy)
        blocks = spec.failure_policy == "block"
        message = failure_message(spec, why, blocks=blocks)
        if blocks:
            _block(verdict, event, message)
        return shown("timeout" if proc.timed_out else "error", message, proc.stderr or proc.stdout)
    if proc.exit_code == 2:
        reason = proc.stderr or "blocked by a hook (exit 2, no reason given)"
        _block(verdict, event, reason)
        return shown("blocked", reason, proc.stderr)
    answer = _json(proc.stdout)
    if answer is None:
        if event in ("UserPromptSubmit", "SessionStart") and proc.stdout:
            verdict.context.append(proc.stdout)
        return shown("ok", "", proc.stdout or proc.stderr)
    return _answer(spec, answer, event, verdict, shown, proc.stdout)


def _answer(
    spec: HookSpec,
    answer: dict[str, Any],
    event: HookEventName,
    verdict: HookVerdict,
    shown: Callable[..., HookEvent],
    stdout: str,
) -> HookEvent:
    given_reason = answer.get("reason")
    reason: str = given_reason if isinstance(given_reason, str) else ""
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        verdict.context.append(context)
    outcome = "ok"
    message = ""
    decision = answer.get("decision")
    permission = specific.get("permissionDecision")
    legacy = {"approve": "allow", "block": "deny"}
    if event == "PreToolUse" and permission is None and decision in legacy:
        permission = legacy[decision]
    given = specific.get("permissionDecisionReason")
    why: str = given if isinstance(given, str) and given else reason
    if event == "PreToolUse" and permission in ("allow", "deny", "ask"):
        if permission == "deny":
            _block(verdict, event, why or "denied by a hook")
            outcome, message = "blocked", why or "denied by a hook"
        elif permission == "ask" and verdict.permission != "deny":
            verdict.permission, verdict.permission_reason = "ask", why
            message = "asks the user" + (f": {why}" if why else "")
        elif permission == "allow" and verdict.permission is None:
            if spec.scope == "user":
                verdict.permission, verdict.permission_reason = "allow", why
                message = "allows the call" + (f": {why}" if why else "")
            else:
                message = "its allow is ignored: only hooks of your user settings may allow"
    elif decision == "block":
        _block(verdict, event, reason or "blocked by a hook")
        outcome, message = "blocked", reason or "blocked by a hook"
    updated = specific.get("updatedInput")
    if event == "PreToolUse" and isinstance(updated, dict) and outcome != "blocked":
        verdict.updated_input = updated
        message = (message + "; " if message else "") + "rewrote the input"
    if answer.get("continue") is False:
        verdict.stop = True
        stop = answer.get("stopReason")
        verdict.stop_reason = stop if isinstance(stop, str) and stop else "stopped by a hook"
        outcome, message = "blocked", verdict.stop_reason
    return shown(outcome, message, stdout)


def _block(verdict: HookVerdict, event: HookEventName, reason: str) -> None:
    verdict.blocked = True
    verdict.reason = "\n".join(r for r in (verdict.reason, reason) if r)
    if event == "PreToolUse":
        verdict.permission = "deny"


def _json(stdout: str) -> dict[str, Any] | None:
    if not stdout.startswith("{"):
        return None
    try:
        value = json.loads(stdout)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def load_hooks(
    cwd: Path,
    trust: ProjectTrust | None,
    *,
    sandbox: SessionSandbox = UNCONFINED,
    paths: Sequence[tuple[Path, Scope]] | None = None,
) -> Hooks:
    """The hooks of the settings files of ``cwd``. A project file's hooks wait in
    ``waiting`` (and their trust item in ``trust.pending``) until trusted; with no ``trust``
    at all they are left out (fail closed)."""
    hooks = Hooks(cwd, sandbox=sandbox)
    files: Sequence[tuple[Path, Scope]] = paths or (
        (user_settings_path(), "user"),
        (project_settings_path(cwd), "project"),
        (local_settings_path(cwd), "local"),
    )
    for path, scope in files:
        raw, _, problem = read_json_object(path)
        if raw is None or "hooks" not in raw:
            continue
        if problem is not None:
            continue  # the settings loader reports it
        specs, problems = parse_hooks(raw["hooks"], path, scope)
        hooks.problems += [f"{path}: {p}" for p in problems]
        if not specs:
            continue
        if scope == "user":
            hooks.specs += specs
            continue
        item = trust_item(path, raw["hooks"])
        if trust is not None and trust.allows(item):
            hooks.specs += specs
        else:
            hooks.waiting[path] = (item, specs)
    return hooks
