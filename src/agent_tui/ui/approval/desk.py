"""The executor's asker for the TUI: pending asks queue, and the prompt shows them one at a time.

``ApprovalDesk.ask`` is what the executor awaits. Each ask waits its turn in a FIFO; the
permission prompt (imported when the first ask comes) shows the oldest and counts the others.
The desk never decides: each request carries its own future (``PendingApproval``), which the
prompt's answer resolves; the desk watches it and closes the prompt, or drops the ask from the
queue, however it is settled — answered, cancelled by an interrupt, or decided by the policy
after a mode change. When the permission mode changes, ``mode_changed`` tells every waiting
ask so: the executor judges each again; one it still asks about keeps its prompt, which says so.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from agent_tui.core.permissions import Approval, ApprovalRequest, PendingApproval
from agent_tui.core.permissions.policy import PermissionPolicy, describe_input
from agent_tui.core.settings import LOCAL_SETTINGS_FILE, PROJECT_DIR

if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App

    from agent_tui.ui.approval.screen import ApprovalScreen, Ask


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
class _Waiting:
    request: ApprovalRequest
    pending: PendingApproval


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
        self.queue: deque[_Waiting] = deque()
        self.current: _Waiting | None = None
        self.screen: ApprovalScreen | None = None
        self.on_pending: Callable[[int], None] | None = None
        """Told the number of asks waiting whenever it changes (the terminal's title and
        notifications: ``ui.shell.attention``)."""
        self._told = 0

    @property
    def pending(self) -> int:
        """Asks not answered yet (the one shown included)."""
        return len(self.queue) + (self.current is not None)

    async def ask(self, request: ApprovalRequest) -> Approval:
        """Wait for the answer to ``request`` (after the asks queued before it): the user's,
        or the policy's after a mode change. A request without a future of its own (not from
        the executor) gets one."""
        pending = request.pending
        if pending is None:
            pending = PendingApproval()
            request = replace(request, pending=pending)
        waiting = _Waiting(request, pending)
        self.queue.append(waiting)
        pending.watch(lambda approval: self._settled(waiting, approval))
        self._show_next()
        try:
            return await pending.wait()
        except asyncio.CancelledError:  # the turn was interrupted while it waited
            pending.cancel()
            raise

    def mode_changed(self, mode: str) -> None:
        """The permission mode changed (to ``mode``): tell every waiting ask. The executor
        judges each again; one the policy now allows or denies is settled by it (its prompt
        closes: ``_settled``); the prompt of one that still asks says so. Nothing is decided
        here."""
        waiting = [self.current] if self.current is not None else []
        for each in [*waiting, *self.queue]:
            decision = each.pending.mode_changed()
            if decision is None or decision.kind != "ask":
                continue
            if each is self.current and self.screen is not None:
                self.screen.still_asks(mode, decision.reason)

    def _settled(self, waiting: _Waiting, approval: Approval | None) -> None:
        """``waiting`` is settled (None: cancelled): off the queue, its prompt closed."""
        if waiting is self.current:
            screen, self.current, self.screen = self.screen, None, None
            if screen is not None:
                screen.withdraw()
        elif waiting in self.queue:
            self.queue.remove(waiting)
        if approval is not None:
            self.on_answer(waiting.request, approval)
        self._show_next()

    def _tell(self) -> None:
        if self.on_pending is not None and self.pending != self._told:
            self._told = self.pending
            self.on_pending(self.pending)

    def _show_next(self) -> None:
        self._tell()
        if self.current is not None:
            if self.screen is not None:
                self.screen.set_waiting(len(self.queue))
            return
        if not self.queue:
            return
        from agent_tui.ui.approval.screen import ApprovalScreen

        waiting = self.current = self.queue.popleft()
        self.screen = ApprovalScreen(
            self.describe(waiting.request), waiting=len(self.queue), cursor_blink=self.cursor_blink
        )
        self.app.push_screen(self.screen, callback=lambda answer: self._answered(waiting, answer))

    def _answered(self, waiting: _Waiting, approval: Approval | None) -> None:
        """The prompt closed with the user's answer (None: closed without one, a deny)."""
        if waiting is self.current:  # its screen is gone already: nothing to withdraw
            self.current, self.screen = None, None
        waiting.pending.answer(approval or Approval(allowed=False))
        self._show_next()
