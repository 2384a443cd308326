"""The model's plan: a short list of steps, each pending, in progress or completed.

``update_plan`` replaces the whole plan on each call; its result carries the plan as typed data
(``ToolResult.data["plan"]``), which the transcript keeps with the call's record. The ``plan``
event is made from that result (``plan_event``) both live and when a session is told again
(``core.conversation.replay``), and the current plan is the last one in the transcript
(``latest_plan``): a resumed session shows the very same plan, from the same record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from agent_tui.core.events import PlanEvent, PlanStep, ToolResult
from agent_tui.core.transcript import Message

PLAN_TOOL = "update_plan"
PLAN_ALIAS = "todo_write"
"""Its other name (the name of Claude Code's tool): a call by either is a plan."""
MAX_STEPS = 50
"""Steps of a plan."""
MAX_STEP_CHARS = 300
"""Characters of one step's text."""
MAX_EXPLANATION_CHARS = 1000

StepStatus = Literal["pending", "in_progress", "completed"]

__all__ = [
    "MAX_STEPS",
    "PLAN_ALIAS",
    "PLAN_TOOL",
    "Plan",
    "PlanStep",
    "StepStatus",
    "latest_plan",
    "plan_event",
]


class Plan(BaseModel):
    """The steps in order and why the plan changed (``explanation``, may be empty)."""

    steps: list[PlanStep] = Field(default_factory=list)
    explanation: str = ""

    @property
    def done(self) -> int:
        return sum(1 for step in self.steps if step.status == "completed")

    @property
    def current(self) -> PlanStep | None:
        """The step in progress, if any."""
        return next((s for s in self.steps if s.status == "in_progress"), None)

    def data(self) -> dict[str, Any]:
        """What the tool result carries (``ToolResult.data["plan"]``)."""
        return self.model_dump(mode="json")


def plan_of(result: ToolResult) -> Plan | None:
    """The plan a successful ``update_plan`` result carries (called directly or through
    ``run_tool``); None for any other result (or a record too damaged to read, which then shows
    no plan rather than a wrong one)."""
    if (result.ran or result.name) not in (PLAN_TOOL, PLAN_ALIAS) or result.is_error:
        return None
    raw = result.data.get("plan")
    if not isinstance(raw, dict):
        return None
    try:
        return Plan.model_validate(raw)
    except ValidationError:
        return None


def plan_event(event: object) -> PlanEvent | None:
    """The ``plan`` event that follows ``event`` when it is a successful ``update_plan``
    result (live in the loop, and in ``core.conversation.replay``: the same function, the same
    event)."""
    if not isinstance(event, ToolResult):
        return None
    plan = plan_of(event)
    if plan is None:
        return None
    return PlanEvent(id=event.id, steps=plan.steps, explanation=plan.explanation)


def latest_plan(messages: Sequence[Message]) -> Plan | None:
    """The plan the last successful ``update_plan`` call in ``messages`` set (None: none)."""
    for message in reversed(messages):
        if message.role != "tool" or message.record is None:
            continue
        end = message.record.end
        if isinstance(end, ToolResult):
            plan = plan_of(end)
            if plan is not None:
                return plan
    return None
