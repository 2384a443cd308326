"""Permission for one call, decided here and only here: the policy first, then the asker.

The order is: the policy's decision first, so a deny (a rule, plan mode, a failed check) is
always reported as a rejection, whatever else is wrong with the call; then, for a call that
would ask, the tool's ``precheck``: a call that cannot succeed (``edit_file`` of a file not
read, an ``old_string`` not found) ends as a ``tool_error`` the model can act on, without
asking anyone; only then the asker. The pre-check can only refuse: passing it never allows a
call. An allowed call is not pre-checked (it runs the same checks itself at once).

An ask is one object: the request with its own future (``PendingApproval``, see
``permissions.asking`` for why it rides the asker and not the event stream), which the front
end resolves. The wait is part of the turn: an interrupt while the prompt is open cancels it
(the front end closes its prompt) and the call ends as interrupted. When the permission mode
changes while the prompt is open, the front end tells the ask (``mode_changed``) and this
module judges the call again (``_judged_again``): an allow runs, a deny is the policy's
rejection, a call that still asks keeps its prompt (which says so). A front end never decides:
it can close a prompt the mode made moot but never allow a call the policy does not.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import Any

from agent_tui.core.events import Event, PermissionRequest, RejectedBy
from agent_tui.core.executor.partition import CallPlan, PromptAnswer
from agent_tui.core.executor.results import CallResults
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    Asker,
    Decision,
    PendingApproval,
    PermissionPolicy,
    Rule,
    Scope,
    Step,
)
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.errors import ToolErrorInfo

log = logging.getLogger(__name__)

PreHook = Callable[[CallPlan], AsyncIterator[Event]]
"""Runs the PreToolUse hooks of a call (``ToolExecutor._pre_hooks``): yields their events and
leaves their verdict in ``plan.hook`` (with a rewritten input already in ``plan.prepared``)."""
Notify = Callable[[CallPlan], Awaitable[list[Event]]]
"""Runs the Notification hooks of a permission prompt (``ToolExecutor._notify``), while the
prompt is open; their events follow its answer."""
AnswerPrompt = Callable[[CallPlan, Decision], Awaitable[tuple[list[Event], PromptAnswer | None]]]
"""Runs the PermissionRequest hooks of a call that would ask (``ToolExecutor._answer_prompt``):
their events and their answer in the user's place (None: the user is asked)."""
Precheck = Callable[[CallPlan], Awaitable[ToolErrorInfo | None]]
"""Runs a call's ``Tool.precheck`` (in the context the call would run in)."""


async def ask_unless_interrupted(
    asker: Asker, request: ApprovalRequest, interrupted: asyncio.Event
) -> Approval | None:
    """The answer to ``request`` (its ``pending`` future, settled by the front end or by the
    policy after a mode change), or None when the turn is interrupted first: the ask is then
    cancelled, and the front end closes its prompt. An asker that answers by returning settles
    the future with what it returns; one that fails raises here (the ask is cancelled)."""
    pending = request.pending
    assert pending is not None
    asking = asyncio.ensure_future(asker(request))
    waiter = asyncio.ensure_future(interrupted.wait())
    try:
        waits: set[asyncio.Future[Any]] = {pending.future, asking, waiter}
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        if not pending.done and asking.done() and not asking.cancelled():
            failure = asking.exception()
            if failure is not None:
                pending.cancel()
                raise failure
            pending.answer(asking.result())
        if not pending.done:  # interrupted first: whatever the asker does since is moot
            pending.cancel()
        return None if pending.cancelled else pending.future.result()
    finally:
        waiter.cancel()
        pending.cancel()  # a no-op once settled; cancelled here, the prompt closes
        if not asking.done():
            asking.cancel()
            await asyncio.wait({asking})  # the front end is done with it
        if not asking.cancelled():
            asking.exception()  # retrieved, so it is not reported as lost


def _judged_again(
    policy: PermissionPolicy, request: ApprovalRequest, plan: CallPlan
) -> Decision | None:
    """The decision on a waiting call after the permission mode changed (the front end told
    its ask, on the event loop, so the prompt can say at once that it still asks); None when
    the check fails: the call keeps asking, as it did."""
    try:
        decision = policy.decide(request)
    except Exception:
        log.exception("judging a waiting call again failed; it keeps asking")
        return None
    return _hooked(decision, plan)


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
    notify: Notify | None = None,
    answer_prompt: AnswerPrompt | None = None,
    grant: tuple[Rule, ...] = (),
) -> AsyncIterator[Event]:
    """Decide allow/ask/deny for ``plan``; yield the prompt event and any final event.
    ``grant``: allow rules of this call's turn (``ApprovalRequest.grant``).

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
    request = ApprovalRequest(plan.call, prepared.tool, prepared.input, grant=grant)
    # In a worker thread: a 1 MB command or a bounded walk of a tree (recursive reads and
    # deletes) takes up to ~100 ms, which the event loop should not wait out.
    decision = _hooked(await asyncio.to_thread(_decide, policy, request), plan)
    prechecked = redecided = hooks_answered = False
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
        if decision.kind == "ask" and answer_prompt is not None and not hooks_answered:
            hooks_answered = True
            events, answer = await answer_prompt(plan, decision)
            for event in events:
                yield event
            if answer is not None and not answer.allow:
                why = f"Rejected by a PermissionRequest hook: {answer.message}"
                await results.rejected(plan, why, None, by="hook", step=Step.HOOK.value)
                for event in results.drain():
                    yield event
                return
            if answer is not None and answer.rewritten:  # judge what will run now
                prepared = plan.prepared
                assert prepared is not None
                request = ApprovalRequest(plan.call, prepared.tool, prepared.input, grant=grant)
                again = await asyncio.to_thread(_decide, policy, request)
                if again.kind == "deny" or (again.kind == "ask" and again.every_mode):
                    decision = again  # the deny is the policy's; the ask, the user's
                    continue
            if answer is not None:
                plan.allowed_by = Step.HOOK.value
                return
        feedback: str | None = None
        by: RejectedBy = "policy"
        if decision.kind == "ask" and asker is not None:
            caveats = await asyncio.to_thread(_caveats, prepared.tool, decision)
            yield permission_request(plan, decision, caveats)
            pending = PendingApproval(partial(_judged_again, policy, request, plan))
            asking = ApprovalRequest(
                plan.call,
                prepared.tool,
                prepared.input,
                decision,
                caveats=caveats,
                pending=pending,
                grant=grant,
            )
            noticed = asyncio.ensure_future(notify(plan)) if notify is not None else None
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
            if noticed is not None:  # the Notification hooks ran while the prompt was open
                for event in await noticed:
                    yield event
            if approval is None:
                await results.interrupted(plan)
                for event in results.drain():
                    yield event
                return
            if pending.verdict is not None:
                # The mode changed while it asked and the policy, asked again here, no longer
                # asks: an allow runs, a deny is the policy's rejection.
                decision, redecided = pending.verdict, True
                continue
            if approval.decided is not None:
                # An asker that answered by returning says the mode changed: decide again,
                # here, whatever it saw (an allow runs, a deny is the policy's rejection, an
                # ask asks again: its answer is spent).
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
