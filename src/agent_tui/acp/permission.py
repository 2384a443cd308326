"""The executor's asker for an ACP client: an ask becomes ``session/request_permission``.

Our pipeline decides every call; only a call it asks about reaches the client, as it would
reach the TUI's prompt. The options are allow once, allow always (only when the decision
suggests rules to save: the narrowest ones, exactly what the TUI's "always" saves — the
executor saves ``Decision.suggestions`` itself) and reject. Whatever the client answers that
is not one of the options it was offered — a cancelled request, an unknown or forged option
id, a malformed answer, a request that failed — rejects the call: the client can only pick
among what our pipeline offered, and never widen it. A deny rule, plan mode or a protected
path's refusal never asks, so no answer of the client can run such a call.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallLocation,
    ToolCallUpdate,
)

from agent_tui.core.permissions import Approval, ApprovalRequest, PendingApproval, Scope
from agent_tui.core.permissions.policy import describe_input

log = logging.getLogger(__name__)

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT = "reject_once"

RequestPermission = Callable[..., Awaitable[RequestPermissionResponse]]
"""The connection's ``request_permission`` (``session_id``, ``tool_call``, ``options``)."""


def options_for(request: ApprovalRequest) -> list[PermissionOption]:
    """What the client may answer: allow once, allow always when there are rules to save
    (named in its label), reject."""
    decision = request.decision
    suggestions = decision.suggestions if decision is not None else ()
    options = [PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once")]
    if suggestions:
        rules = ", ".join(map(str, suggestions))
        options.append(
            PermissionOption(
                option_id=ALLOW_ALWAYS, name=f"Always allow {rules}", kind="allow_always"
            )
        )
    options.append(PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"))
    return options


def tool_call_of(request: ApprovalRequest, title: str) -> ToolCallUpdate:
    """The call asked about, as the client shows it in its prompt (``title``: the call's)."""
    decision = request.decision
    locations = None
    if decision is not None and decision.path is not None:
        locations = [ToolCallLocation(path=str(decision.path))]
    reason = request.reason
    if request.agent:
        reason = f"asked by subagent {request.agent}: {reason}"
    meta: dict[str, Any] = {"reason": reason}
    if request.caveats:
        meta["caveats"] = list(request.caveats)
    if decision is not None and not decision.suggestions and decision.no_suggestion:
        meta["no_always"] = decision.no_suggestion
    return ToolCallUpdate(
        tool_call_id=request.call.id,
        title=f"{title} — {reason}" if reason else title,
        status="pending",
        raw_input=describe_input(request.input),
        locations=locations,
        field_meta={"agent-tui": meta},
    )


def approval_of(response: RequestPermissionResponse, offered: list[PermissionOption]) -> Approval:
    """The answer as our ``Approval``: an option offered, or a rejection."""
    outcome = response.outcome
    if not isinstance(outcome, AllowedOutcome):  # cancelled
        return Approval(allowed=False, feedback="The client cancelled the permission request.")
    ids = {option.option_id for option in offered}
    chosen = outcome.option_id
    if chosen not in ids:
        log.warning("the ACP client answered an option it was not offered: %r", chosen)
        return Approval(allowed=False, feedback=f"Not an option offered: {chosen!r}.")
    if chosen == ALLOW_ONCE:
        return Approval(allowed=True)
    if chosen == ALLOW_ALWAYS:
        return Approval(allowed=True, scope=Scope.ALWAYS)
    return Approval(allowed=False)


class ClientAsker:
    """Asks the client of ``session_id`` through ``request`` (the connection's
    ``request_permission``); ``title`` names a call as its tool-call card does."""

    def __init__(
        self,
        request: RequestPermission,
        session_id: str,
        title: Callable[[ApprovalRequest], str],
    ) -> None:
        self.request = request
        self.session_id = session_id
        self.title = title
        self.waiting: set[PendingApproval] = set()
        """The asks waiting for the client's answer (a mode change judges them again)."""

    async def __call__(self, request: ApprovalRequest) -> Approval:
        options = options_for(request)
        pending = request.pending
        if pending is not None:
            self.waiting.add(pending)
        try:
            response = await self.request(
                session_id=self.session_id,
                tool_call=tool_call_of(request, self.title(request)),
                options=options,
            )
        finally:
            if pending is not None:
                self.waiting.discard(pending)
        return approval_of(response, options)
