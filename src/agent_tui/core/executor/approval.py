"""Permission for one call: the policy decides; an ``ask`` waits for the front end's asker.

The order is: the policy's decision first, so a deny (a rule, plan mode, a failed check) is
always reported as a rejection, whatever else is wrong with the call; then, for a call that
would ask, the tool's ``precheck``: a call that cannot succeed (``edit_file`` of a file not
read, an ``old_string`` not found) ends as a ``tool_error`` the model can act on, without
asking anyone; only then the asker. The pre-check can only refuse: passing it never allows a
call. An allowed call is not pre-checked (it runs the same checks itself at once).

The wait is part of the turn: an interrupt while the prompt is open cancels the asker (the
front end closes its prompt on cancellation) and the call ends as interrupted. When the
permission mode changes while the prompt is open, the front end may answer with the policy's
new decision (``Approval.decided``): the executor then decides again itself and acts on that
(allow: it runs; deny: the policy's rejection; still ask: it asks again), so a front end can
close a prompt the mode made moot but can never allow a call the policy does not.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

from agent_tui.core.events import Event, PermissionRequest, RejectedBy
from agent_tui.core.executor.partition import CallPlan
from agent_tui.core.executor.results import CallResults
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    Asker,
    Decision,
    PermissionPolicy,
    Scope,
    Step,
)
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.errors import ToolErrorInfo

log = logging.getLogger(__name__)

PreHook = Callable[[CallPlan], AsyncIterator[Event]]
"""Runs the PreToolUse hooks of a call (``ToolExecutor._pre_hooks``): yields their events and
leaves their verdict in ``plan.hook`` (with a rewritten input already in ``plan.prepared``)."""
Precheck = Callable[[CallPlan], Awaitable[ToolErrorInfo | None]]
"""Runs a call's ``Tool.precheck`` (in the context the call would run in)."""


async def ask_unless_interrupted(
    asker: Asker, request: ApprovalRequest, interrupted: asyncio.Event
) -> Approval | None:
    """The asker's answer, or None when the turn is interrupted first (the ask is cancelled)."""
    answer = asyncio.ensure_future(asker(request))
    waiter = asyncio.ensure_future(interrupted.wait())
    try:
        done, _ = await asyncio.wait({answer, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not answer.done():
            answer.cancel()
            await asyncio.wait({answer})  # the front end closes its prompt
    if answer not in done:  # interrupted first: whatever the asker did since is moot
        if not answer.cancelled():
            answer.exception()  # retrieved, so it is not reported as lost
        return None
    return answer.result()


def _decide(policy: PermissionPolicy, request: ApprovalRequest) -> Decision:
    """The policy's decision; a policy that fails denies (fail closed) and says why."""
    try:
        return policy.decide(request)
    except Exception as exc:
        log.exception("the permission check failed")
        return Decision(
            "deny",
            f"the permission check failed on this call ({type(exc).__name__}: {exc}); it was "
            "not run",
            Step.INVALID,
        )


def headless_reason(name: str, decision: Decision) -> str:
    """What the model is told when a call would ask and nobody can be asked."""
    if decision.every_mode:
        how = (
            "It asks in every permission mode, so only a rule that names it explicitly "
            + (f"(e.g. --allow '{decision.suggestions[0]}') " if decision.suggestions else "")
            + "or an interactive session can permit it."
        )
    elif decision.suggestions:
        flags = " ".join(f"--allow '{rule}'" for rule in decision.suggestions)
        how = f"Re-run with {flags} (or --permission-mode) to permit it."
    else:
        why = f" ({decision.no_suggestion})" if decision.no_suggestion else ""
        how = f"No rule can permit it{why}; approve it in an interactive session."
    return (
        f"{name} needs approval ({decision.reason}) and nobody can be asked here "
        f"(headless mode). {how}"
    )


async def authorize(
    plan: CallPlan,
    policy: PermissionPolicy,
    asker: Asker | None,
    results: CallResults,
    interrupted: asyncio.Event,
    precheck: Precheck | None = None,
    pre_hook: PreHook | None = None,
) -> AsyncIterator[Event]:
    """Decide allow/ask/deny for ``plan``; yield the prompt event and any final event.

    A call that may run stays ``queued`` (with the path the decision judged in
    ``plan.judged_path``); any other already has its outcome (a rejection, a pre-check's
    error, or ``interrupted`` when the turn stopped during the prompt) and is ``completed``.
    """
    assert plan.prepared is not None
    if pre_hook is not None:
        async for event in pre_hook(plan):
            yield event
        hook = plan.hook
        if hook is not None and hook.refused is not None:
            await results.rejected(plan, hook.refused, None, by="hook", step=Step.HOOK.value)
            for event in results.drain():
                yield event
            return
    prepared = plan.prepared
    request = ApprovalRequest(plan.call, prepared.tool, prepared.input)
    # In a worker thread: a 1 MB command or a bounded walk of a tree (recursive reads and
    # deletes) takes up to ~100 ms, which the event loop should not wait out.
    decision = _hooked(await asyncio.to_thread(_decide, policy, request), plan)
    prechecked = redecided = False
    while True:  # once, or again when the mode changed while the prompt was open
        plan.judged_path = decision.path
        if decision.kind == "allow":
            if redecided or decision.step is Step.SANDBOX:  # the card says what let it run
                plan.allowed_by = decision.basis
            return
        if decision.kind == "ask" and precheck is not None and not prechecked:
            prechecked = True
            error = await precheck(plan)
            if error is not None:  # it cannot succeed: say why instead of asking
                await results.error(plan, error)
                for event in results.drain():
                    yield event
                return
        feedback: str | None = None
        by: RejectedBy = "policy"
        if decision.kind == "ask" and asker is not None:
            caveats = await asyncio.to_thread(_caveats, prepared.tool, decision)
            yield permission_request(plan, decision, caveats)
            asking = ApprovalRequest(
                plan.call, prepared.tool, prepared.input, decision, caveats=caveats
            )
            try:
                approval = await ask_unless_interrupted(asker, asking, interrupted)
            except Exception as exc:  # a broken prompt denies; it must not end the session
                log.exception("the permission asker failed")
                approval = Approval(allowed=False, feedback=None)
                reason = f"The permission prompt failed ({type(exc).__name__}: {exc})."
                by = "prompt"
            else:
                reason = "The user denied this call."
                by = "user"
            if approval is None:
                await results.interrupted(plan)
                for event in results.drain():
                    yield event
                return
            if approval.decided is not None:
                # The mode changed while it asked: decide again, here, whatever the front end
                # saw (an allow runs, a deny is the policy's rejection, an ask asks again).
                decision = _hooked(await asyncio.to_thread(_decide, policy, request), plan)
                redecided = True
                continue
            if approval.allowed:
                if approval.scope is not Scope.ONCE and decision.suggestions:
                    policy.remember(asking, approval.scope)
                return
            feedback = approval.feedback
        elif decision.kind == "ask":
            reason = headless_reason(plan.call.name, decision)
            by = "headless"
        else:
            reason = decision.reason or "Denied by a permission rule."
            by = _refused_by(decision.step)
        rule = str(decision.rule) if decision.rule is not None else None
        await results.rejected(plan, reason, feedback, by=by, step=decision.step.value, rule=rule)
        for event in results.drain():
            yield event
        return


def _hooked(decision: Decision, plan: CallPlan) -> Decision:
    """The policy's decision after the call's PreToolUse hooks: a hook's ``ask`` turns an
    allow into an ask; a hook's ``allow`` (only ever from the user's own settings) turns an ask
    some mode could skip into an allow. A deny stays a deny."""
    hook = plan.hook
    if hook is None or hook.permission is None:
        return decision
    why = hook.reason or "a hook"
    if hook.permission == "ask" and decision.kind == "allow":
        return replace(
            decision,
            kind="ask",
            reason=f"A hook asks about this call: {why}",
            step=Step.HOOK,
            suggestions=(),
            no_suggestion="a hook asks about it",
        )
    if hook.permission == "allow" and decision.kind == "ask" and not decision.every_mode:
        return replace(decision, kind="allow", reason=f"Allowed by a hook: {why}", step=Step.HOOK)
    return decision


def _caveats(tool: Tool[Any], decision: Decision) -> tuple[str, ...]:
    """What the user should know before allowing the call, beside the permission: a file
    write that cannot be rewound (the file is too big for a checkpoint to keep)."""
    from agent_tui.core.checkpoints.snapshot import unkept_note, unkept_size

    if not tool.meta.reports_changes or decision.path is None:
        return ()
    size = unkept_size(decision.path)
    return (unkept_note(size),) if size is not None else ()


def permission_request(
    plan: CallPlan, decision: Decision, caveats: tuple[str, ...] = ()
) -> PermissionRequest:
    """The ``permission_request`` event of an ask: the decision, field by field. It names the
    tool judged: a proxy's target, not the proxy."""
    assert plan.prepared is not None
    return PermissionRequest(
        id=plan.call.id,
        name=plan.prepared.tool.name,
        input=plan.prepared.input.model_dump(mode="json"),
        reason=decision.reason,
        step=decision.step.value,
        rule=str(decision.rule) if decision.rule is not None else None,
        understood=decision.understood,
        every_mode=decision.every_mode,
        suggestions=[str(rule) for rule in decision.suggestions],
        no_suggestion=decision.no_suggestion,
        caveats=list(caveats),
    )


def _refused_by(step: Step) -> RejectedBy:
    """Who refused a call the policy denied outright: a deny rule, plan mode, or the policy."""
    if step is Step.DENY_RULE:
        return "rule"
    if step is Step.PLAN_MODE:
        return "plan"
    return "policy"
