"""The model's plan: a short list of steps, each pending, in progress or completed.

``update_plan`` replaces the whole plan on each call; its result carries the plan as typed data
(``ToolResult.data["plan"]``), which the transcript keeps with the call's record. The ``plan``
event is made from that result (``plan_event``) both live and when a session is told again
(``core.conversation.replay``), and the current plan is the last one in the transcript
(``latest_plan``): a resumed session shows the very same plan, from the same record.

A plan the user approved through ``exit_plan_mode`` seeds the list the same way: its result
carries the steps read from the plan's Markdown (``steps_from_markdown``), all pending.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_tui.core.empty import empty_list
from agent_tui.core.events import PlanEvent, PlanStep, ToolResult
from agent_tui.core.transcript import Message

PLAN_TOOL = "update_plan"
PLAN_ALIAS = "todo_write"
"""Its other name (the name of Claude Code's tool): a call by either is a plan."""
EXIT_PLAN_TOOL = "exit_plan_mode"
"""The plan-mode hand-off (``core.plan_review``): an approved plan's result carries steps too."""
MAX_STEPS = 50
"""Steps of a plan."""
MAX_STEP_CHARS = 300
"""Characters of one step's text."""
MAX_EXPLANATION_CHARS = 1000

StepStatus = Literal["pending", "in_progress", "completed"]

__all__ = [
    "EXIT_PLAN_TOOL",
    "MAX_STEPS",
    "PLAN_ALIAS",
    "PLAN_TOOL",
    "Plan",
    "PlanStep",
    "StepStatus",
    "latest_plan",
    "plan_event",
    "steps_from_markdown",
]


class Plan(BaseModel):
    """The steps in order and why the plan changed (``explanation``, may be empty)."""

    model_config = ConfigDict(defer_build=True)  # built by the first plan (issue 45)

    steps: list[PlanStep] = Field(default_factory=empty_list)
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
    ``run_tool``), or an approved ``exit_plan_mode`` plan's steps; None for any other result
    (or a record too damaged to read, which then shows no plan rather than a wrong one)."""
    if (result.ran or result.name) not in (PLAN_TOOL, PLAN_ALIAS, EXIT_PLAN_TOOL):
        return None
    if result.is_error:
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


_FENCE = re.compile(r"^\s*(```|~~~)")
_ITEM = re.compile(r"^(?P<indent>\s*)(?:(?P<number>\d{1,3})[.)]|[-*+])\s+(?P<text>\S.*)$")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")


def steps_from_markdown(text: str) -> list[PlanStep]:
    """The steps of a plan written in Markdown, each pending: its numbered list items when it
    has any (a plan's context is often bulleted, its steps numbered), else its bulleted ones;
    only the outermost items of that kind (a sub-item is part of its step), none inside a
    fenced code block. A step keeps its text on one line (a ``[ ]`` checkbox dropped), cut to
    ``MAX_STEP_CHARS``; at most ``MAX_STEPS``. No list: no steps."""
    numbered: list[tuple[int, str]] = []
    bulleted: list[tuple[int, str]] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _ITEM.match(line.expandtabs(4))
        if match is None:
            continue
        item = _CHECKBOX.sub("", match["text"]).strip()
        if not item:
            continue
        kind = numbered if match["number"] else bulleted
        kind.append((len(match["indent"]), item))
    items = numbered or bulleted
    if not items:
        return []
    outer = min(indent for indent, _ in items)
    steps: list[PlanStep] = []
    for indent, item in items:
        if indent != outer:
            continue
        content = " ".join(item.split())
        if len(content) > MAX_STEP_CHARS:
            content = content[: MAX_STEP_CHARS - 1] + "…"
        steps.append(PlanStep(content=content))
    return steps[:MAX_STEPS]
