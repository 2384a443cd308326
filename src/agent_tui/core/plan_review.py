"""Plan mode's hand-off: the model proposes its plan (``exit_plan_mode``), the user decides.

In plan mode the model may only read. When its plan is ready it calls ``exit_plan_mode`` with
the plan in Markdown; ``PlanReview.review`` shows it to the user through the front end's
``PlanReviewer`` and applies the answer:

- approved, with the mode to work in (``default`` or ``accept-edits``): the mode switches
  through ``switch`` (the front end's own switch, the one Shift+Tab uses; else the policy's),
  and the tool's result seeds the plan list with the plan's steps (``core.plan``);
- keep planning, with feedback or without: the mode stays plan, the feedback is the result;
- nobody to ask (no reviewer: a headless run, a subagent): never approved, the mode stays plan
  (fail closed: no writing mode without a person's say).

An answer naming any other mode (plan, bypass, a typo) is not an approval: the mode stays plan.
The executor gives each call its session's ``PlanReview`` (``ToolContext.plan_gate``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from agent_tui.core.permissions.modes import Mode
from agent_tui.core.tools.plan_gate import PlanGate, PlanVerdict

if TYPE_CHECKING:
    from agent_tui.core.permissions.policy import PermissionPolicy

log = logging.getLogger(__name__)

PlanReviewer = Callable[[str], Awaitable[PlanVerdict]]
"""What a front end supplies: show the plan (Markdown), return the user's answer — approved
with the mode to switch to, or not, with feedback. It does not switch the mode itself."""
ModeSwitch = Callable[[Mode], None]
"""Puts the session in a mode and shows it (the TUI's ``PermissionModes.switch``)."""

APPROVED_MODES = (Mode.DEFAULT, Mode.ACCEPT_EDITS)
"""The modes an approved plan may switch to: never bypass (it has its own confirmation)."""


class PlanReview(PlanGate):
    """One session's plan hand-off: its policy (the mode; ``policy_of`` gives the one in force,
    which a session may replace), the front end's reviewer and mode switch (``attach``; none:
    nobody to ask)."""

    def __init__(self, policy_of: Callable[[], PermissionPolicy]) -> None:
        self.policy_of = policy_of
        self.reviewer: PlanReviewer | None = None
        self.switch: ModeSwitch | None = None

    @property
    def mode(self) -> str | None:
        mode = self.policy_of().mode
        return None if mode is None else mode.value

    def attach(self, reviewer: PlanReviewer, switch: ModeSwitch | None = None) -> None:
        """The front end asks the user (``reviewer``) and shows a mode switch (``switch``)."""
        self.reviewer = reviewer
        self.switch = switch

    def detach(self) -> None:
        self.reviewer = None
        self.switch = None

    async def review(self, plan: str) -> PlanVerdict:
        reviewer = self.reviewer
        if reviewer is None:
            return PlanVerdict(approved=False, unattended=True)
        answer = await reviewer(plan)
        if not answer.approved:
            return PlanVerdict(approved=False, feedback=answer.feedback.strip())
        target = next((m for m in APPROVED_MODES if m.value == answer.mode), None)
        if target is None:
            log.warning("a plan approval named the mode %r: not approved", answer.mode)
            return PlanVerdict(approved=False)
        (self.switch or self.policy_of().set_mode)(target)
        return PlanVerdict(approved=True, mode=target.value)


__all__ = ["APPROVED_MODES", "ModeSwitch", "PlanReview", "PlanReviewer"]
