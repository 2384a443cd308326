"""What the hooks of one event said, together (``HookVerdict``), and how one hook's answer
is folded into it (``judge``): its exit code (0 ok, 2 block, another code a failure the hook's
``onFailure`` decides on), or its JSON answer (``decision``, ``reason``, ``continue``,
``hookSpecificOutput``). A ``PreToolUse`` deny beats ask beats allow; only a hook of the user's
own settings may allow."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_tui.core.events import HookEvent
from agent_tui.core.hooks.config import HookEventName, HookSpec
from agent_tui.core.hooks.failures import failure_message, why_not_run
from agent_tui.core.hooks.runner import HookProcess

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
    allowed_by: int | None = None
    """``PermissionRequest``: the index in ``events`` of the hook whose allow counts."""
    updated_input: dict[str, Any] | None = None
    context: list[str] = field(default_factory=list)
    stop: bool = False
    """``"continue": false``: end the turn (``stop_reason`` says why)."""
    stop_reason: str = ""

    @property
    def additional_context(self) -> str:
        return "\n".join(c for c in self.context if c)


def judge(
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
            command=spec.shown,
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
    if event == "PermissionRequest":
        outcome, message = _prompt_answer(spec, specific.get("decision"), verdict)
    elif event == "PreToolUse" and permission in ("allow", "deny", "ask"):
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
    system = answer.get("systemMessage")  # for the user, not the model
    if isinstance(system, str) and system:
        message = "; ".join(m for m in (message, system) if m)
    if answer.get("suppressOutput") is True:  # its stdout is not shown
        stdout = ""
    return shown(outcome, message, stdout)


def _prompt_answer(spec: HookSpec, chosen: Any, verdict: HookVerdict) -> tuple[str, str]:
    """A ``PermissionRequest`` hook's ``decision`` (``behavior`` allow or deny, ``message``,
    ``updatedInput``, ``interrupt``) folded into ``verdict``: a deny beats an allow; only a
    hook of the user's own settings may allow. Its outcome and message."""
    if not isinstance(chosen, dict):
        return "ok", ""  # no answer: the user is asked
    behavior = chosen.get("behavior")
    given = chosen.get("message")
    message: str = given if isinstance(given, str) else ""
    if behavior == "deny":
        why = message or "denied by a PermissionRequest hook"
        _block(verdict, "PermissionRequest", why)
        if chosen.get("interrupt") is True:  # stop the turn, as Esc would
            verdict.stop, verdict.stop_reason = True, why
        return "blocked", why
    if behavior != "allow" or verdict.permission is not None:
        return "ok", ""
    if spec.scope != "user":
        return "ok", "its allow is ignored: only hooks of your user settings may allow"
    verdict.permission, verdict.permission_reason = "allow", message
    verdict.allowed_by = len(verdict.events)  # its event is the next one added
    updated = chosen.get("updatedInput")
    if isinstance(updated, dict):
        verdict.updated_input = updated
        return "ok", "allows the call with a rewritten input"
    return "ok", "allows the call" + (f": {message}" if message else "")


def _block(verdict: HookVerdict, event: HookEventName, reason: str) -> None:
    verdict.blocked = True
    verdict.reason = "\n".join(r for r in (verdict.reason, reason) if r)
    if event in ("PreToolUse", "PermissionRequest"):
        verdict.permission = "deny"
        verdict.updated_input = None


def _json(stdout: str) -> dict[str, Any] | None:
    if not stdout.startswith("{"):
        return None
    try:
        value = json.loads(stdout)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
