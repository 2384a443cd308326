"""What ``exit_plan_mode`` needs of the session: the permission mode, and the user's review of a
plan (``core.plan_review`` implements it; the executor hands it to each call's context).

Typed here, with the mode as its string, because ``core.tools`` cannot import
``core.permissions`` (which imports the tools).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class PlanVerdict:
    """What came of a proposed plan.

    ``approved``: the user approved it and the permission mode is now ``mode`` (``default`` or
    ``accept-edits``). Otherwise the mode stays plan, and ``feedback`` is what the user wants
    changed (may be empty: they want more planning without saying what), or ``unattended`` says
    nobody could be asked (a headless run, a subagent): the plan is not approved."""

    approved: bool
    mode: str = ""
    feedback: str = ""
    unattended: bool = False


class PlanGate(Protocol):
    """The session's side of a plan hand-off."""

    @property
    def mode(self) -> str | None:
        """The permission mode now (None: the policy has no modes)."""
        ...

    async def review(self, plan: str) -> PlanVerdict:
        """Show ``plan`` to the user and wait for the answer; an approval has switched the
        mode before this returns."""
        ...


__all__ = ["PlanGate", "PlanVerdict"]
