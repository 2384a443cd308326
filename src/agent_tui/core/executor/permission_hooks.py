"""The ``PermissionRequest`` hooks of a call that would ask: they may answer in the user's place.

Claude Code runs them when its permission dialog is about to open; a hook answers
``{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior":
"allow"|"deny", "message": …, "updatedInput": {…}, "interrupt": true}}}`` (or exits 2: deny), or
says nothing and the dialog opens. Here they run for every call the policy would ask about —
with a prompt, and headless, where nobody could be asked (so a user's approval hook works in
``agent-tui -p`` too). What holds, whatever a hook says:

- a deny rule, plan mode and the other denials never reach this point (the hooks see only asks);
- only a hook of the user's own settings may allow (``core.hooks.verdict``), and never an ask
  that holds in every permission mode (a protected path, a read a ``read_file`` deny covers, a
  path outside the workspace): those still open the prompt, and the hook's event says so;
- a rewritten input (``updatedInput``) is validated by the tool and judged again: a deny of
  the new input wins, and a new input that asks in every mode opens the prompt.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from agent_tui.core.events import Event, HookEvent
from agent_tui.core.executor.partition import CallPlan, PromptAnswer
from agent_tui.core.permissions import Decision
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import PreparedCall, ToolRegistry

if TYPE_CHECKING:
    from agent_tui.core.hooks import Hooks

log = logging.getLogger(__name__)


def rewritten(
    hooks: Hooks, registry: ToolRegistry, tool: str, updated: dict[str, Any]
) -> PreparedCall | str:
    """A hook's ``updatedInput`` (Claude Code's field names, or ours) validated again by
    ``tool``'s schema: the call to run, or what is wrong with it (``not valid for TOOL (…)``)."""
    again = registry.prepare(tool, json.dumps(hooks.our_input(tool, updated)))
    if isinstance(again, ToolErrorInfo):
        return f"not valid for {tool} ({again.message} {' '.join(again.details)})"
    return again


async def ask_the_hooks(
    hooks: Hooks, registry: ToolRegistry, plan: CallPlan, decision: Decision
) -> tuple[list[Event], PromptAnswer | None, str | None]:
    """Run the ``PermissionRequest`` hooks of ``plan`` (which would ask, for ``decision``):
    their events, their answer (None: ask as usual) and, when a hook said ``interrupt``, why
    the turn stops. Never raises: a failure is logged and the user is asked."""
    prepared = plan.prepared
    if prepared is None:
        return [], None, None
    tool = prepared.tool.name
    fields = hooks.tool_fields(tool, prepared.input.model_dump(mode="json", exclude_unset=True))
    fields["permission_suggestions"] = hooks.suggestions([str(r) for r in decision.suggestions])
    try:
        verdict = await hooks.run(
            "PermissionRequest",
            fields,
            tool=tool,
            call_id=plan.call.id,
            call=(prepared.tool, prepared.input.model_dump(mode="python")),
        )
    except Exception:
        log.exception("the PermissionRequest hooks of %s failed; the user is asked", tool)
        return [], None, None
    events: list[Event] = list(verdict.events)
    said: list[HookEvent] = verdict.events
    stop = verdict.stop_reason if verdict.stop else None
    if verdict.permission == "deny":
        return events, PromptAnswer(False, verdict.reason), stop
    if verdict.permission != "allow":
        return events, None, stop
    if decision.every_mode:
        note = (
            f"A PermissionRequest hook allowed {tool}, but this call asks in every permission "
            f"mode ({decision.reason}): only you can allow it"
        )
        events = [
            e.model_copy(update={"message": note}) if n == verdict.allowed_by else e
            for n, e in enumerate(said)
        ]
        return events, None, stop
    if verdict.updated_input is None:
        return events, PromptAnswer(True, verdict.permission_reason), stop
    again = rewritten(hooks, registry, tool, verdict.updated_input)
    if isinstance(again, str):
        why = (
            f"a PermissionRequest hook rewrote its input into one that is {again}; the call "
            "was not run"
        )
        return events, PromptAnswer(False, why), stop
    plan.prepared = again
    return events, PromptAnswer(True, verdict.permission_reason, rewritten=True), stop
