"""The executor's asker for the TUI: pending asks queue, and the prompt shows them one at a time.

``ApprovalDesk.ask`` is what the executor awaits. Each ask waits its turn in a FIFO; the
permission prompt (imported when the first ask comes) shows the oldest and counts the others.
An ask cancelled by an interrupt leaves the queue, or closes its prompt if it is showing.
When the permission mode changes, ``redecide`` judges the waiting asks again and settles the
ones the new mode allows or denies (the executor then decides again itself).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.core.permissions import Approval, ApprovalRequest, Decision
from agent_tui.core.permissions.policy import PermissionPolicy, describe_input
from agent_tui.core.settings import LOCAL_SETTINGS_FILE, PROJECT_DIR

if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App

    from agent_tui.ui.approval.screen import ApprovalScreen, Ask

log = logging.getLogger(__name__)


def describe_request(request: ApprovalRequest, policy: PermissionPolicy, cwd: Path) -> Ask:
    """What the prompt shows for ``request``: the rule "always" saves and where, or why
    "always" is not offered (all from the request's typed decision)."""
    from agent_tui.ui.approval.screen import Ask

    decision = request.decision
    suggestions = decision.suggestions if decision is not None else ()
    return Ask(
        tool=request.call.name,
        input=describe_input(request.input),
        reason=f"asked by subagent {request.agent}: {request.reason}"
        if request.agent
        else request.reason,
        always=", ".join(map(str, suggestions)) if suggestions else None,
        no_always=(decision.no_suggestion or "no rule can allow this call")
        if decision is not None and not suggestions
        else None,
        every_mode=decision is not None and decision.every_mode,
        saves_to=f"{PROJECT_DIR}/{LOCAL_SETTINGS_FILE}" if policy.saves_rules else None,
        cwd=cwd,
        shelter=decision.shelter if decision is not None else None,
        caveats=request.caveats,
    )


@dataclass(eq=False)
class _Pending:
    request: ApprovalRequest
    future: asyncio.Future[Approval]


class ApprovalDesk:
    """Queues asks and shows each in an ``ApprovalScreen`` in turn."""

    def __init__(
        self,
        app: App[Any],
        describe: Callable[[ApprovalRequest], Ask],
        on_answer: Callable[[ApprovalRequest, Approval], None],
        *,
        cursor_blink: bool = True,
    ) -> None:
        self.app = app
        self.describe = describe
        self.on_answer = on_answer
        self.cursor_blink = cursor_blink
        self.queue: deque[_Pending] = deque()
        self.current: _Pending | None = None
        self.screen: ApprovalScreen | None = None

    @property
    def pending(self) -> int:
        """Asks not answered yet (the one shown included)."""
        return len(self.queue) + (self.current is not None)

    async def ask(self, request: ApprovalRequest) -> Approval:
        """Wait for the user's answer to ``request`` (after the asks queued before it)."""
        pending = _Pending(request, asyncio.get_running_loop().create_future())
        self.queue.append(pending)
        self._show_next()
        try:
            return await pending.future
        except asyncio.CancelledError:  # the turn was interrupted while it waited
            self._withdraw(pending)
            raise

    def _withdraw(self, pending: _Pending) -> None:
        if pending in self.queue:
            self.queue.remove(pending)
        elif pending is self.current:
            screen, self.current, self.screen = self.screen, None, None
            if screen is not None:
                screen.withdraw()
        self._show_next()

    def redecide(self, policy: PermissionPolicy) -> list[tuple[ApprovalRequest, Decision]]:
        """The permission mode changed: judge every waiting ask again. One the policy now
        allows or denies is settled with that decision (``Approval.decided``: the executor
        decides again itself and acts on its own decision, so this can never allow what the
        policy does not); the others keep waiting, the prompt saying it still asks in the new
        mode. A check that fails keeps asking. Returns the settled requests and decisions."""
        settled: list[tuple[ApprovalRequest, Decision]] = []
        waiting = [self.current] if self.current is not None else []
        for pending in [*waiting, *self.queue]:
            try:
                decision = policy.decide(pending.request)
            except Exception:
                log.exception("judging a waiting call again failed; it keeps asking")
                continue
            if decision.kind == "ask":
                if pending is self.current and self.screen is not None and policy.mode:
                    self.screen.still_asks(policy.mode.value, decision.reason)
                continue
            if pending is self.current:
                screen, self.current, self.screen = self.screen, None, None
                if screen is not None:
                    screen.withdraw()
            elif pending in self.queue:
                self.queue.remove(pending)
            if not pending.future.done():
                approval = Approval(allowed=decision.kind == "allow", decided=decision)
                self.on_answer(pending.request, approval)
                pending.future.set_result(approval)
                settled.append((pending.request, decision))
        self._show_next()
        return settled

    def _show_next(self) -> None:
        if self.current is not None:
            if self.screen is not None:
                self.screen.set_waiting(len(self.queue))
            return
        if not self.queue:
            return
        from agent_tui.ui.approval.screen import ApprovalScreen

        pending = self.current = self.queue.popleft()
        self.screen = ApprovalScreen(
            self.describe(pending.request), waiting=len(self.queue), cursor_blink=self.cursor_blink
        )
        self.app.push_screen(self.screen, callback=lambda answer: self._answered(pending, answer))

    def _answered(self, pending: _Pending, approval: Approval | None) -> None:
        if pending is self.current:
            self.current, self.screen = None, None
        approval = approval or Approval(allowed=False)
        if not pending.future.done():
            self.on_answer(pending.request, approval)
            pending.future.set_result(approval)
        self._show_next()
