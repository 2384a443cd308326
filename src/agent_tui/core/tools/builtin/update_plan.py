"""update_plan: the model's list of steps, shown to the user as it changes (``core.plan``).

Read-only and never asks: it changes nothing but the plan. Not concurrency-safe, so two calls
in one message run one after the other and the last one wins, as the model wrote them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from agent_tui.core.calls import ResultFacts
from agent_tui.core.events import PlanStep
from agent_tui.core.plan import (
    MAX_EXPLANATION_CHARS,
    MAX_STEP_CHARS,
    MAX_STEPS,
    PLAN_ALIAS,
    PLAN_TOOL,
    Plan,
)
from agent_tui.core.text.summary import one_line
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput

DESCRIPTION = """\
Show the user your plan for work of several steps: send every step each time (it replaces the \
plan), each pending, in_progress or completed; at most one in_progress."""

_GLYPH = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


class StepInput(BaseModel):
    # built inline by UpdatePlanInput's first call; its own validator by a use of its own
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    content: str = Field(
        validation_alias=AliasChoices("content", "step", "title"), description="The step."
    )
    status: Literal["pending", "in_progress", "completed"] = Field(
        default="pending", description="pending, in_progress or completed."
    )

    @field_validator("content")
    @classmethod
    def _text(cls, value: str) -> str:
        text = " ".join(value.split())
        if not text:
            raise ValueError("is blank: say what the step does")
        if "\0" in text:
            raise ValueError("contains a NUL byte (\\0); remove it")
        if len(text) > MAX_STEP_CHARS:
            raise ValueError(f"is {len(text)} characters: keep a step under {MAX_STEP_CHARS}")
        return text


class UpdatePlanInput(ToolInput):
    plan: list[StepInput] = Field(description="Every step, in order.")
    explanation: str = Field(default="", description="Why it changed (optional).")

    @model_validator(mode="after")
    def _checks(self) -> UpdatePlanInput:
        if len(self.plan) > MAX_STEPS:
            raise ValueError(
                f"the plan has {len(self.plan)} steps: keep it to {MAX_STEPS} at most (merge "
                "small steps)"
            )
        if len(self.explanation) > MAX_EXPLANATION_CHARS:
            raise ValueError(f"explanation: keep it under {MAX_EXPLANATION_CHARS} characters")
        running = [i + 1 for i, step in enumerate(self.plan) if step.status == "in_progress"]
        if len(running) > 1:
            raise ValueError(
                f"steps {', '.join(map(str, running))} are all in_progress: at most one step "
                "can be in_progress; mark the others pending or completed"
            )
        return self


TODO_EXTRAS = ("activeForm", "id", "priority")
"""Fields of a Claude Code ``TodoWrite`` item with no place in a step: dropped."""


def from_todos(arguments: dict[str, Any]) -> dict[str, Any]:
    """Claude Code's ``TodoWrite`` shape, ``{"todos": [{content, status, activeForm}]}``, as a
    plan (``{"plan": [{content, status}]}``); anything else as it is. Its statuses are ours.
    With both ``plan`` and ``todos`` nothing is rewritten (validation names ``todos``)."""
    todos = arguments.get("todos")
    if "plan" in arguments or not isinstance(todos, list):
        return arguments
    steps = [
        {k: v for k, v in item.items() if k not in TODO_EXTRAS} if isinstance(item, dict) else item
        for item in todos
    ]
    out = {k: v for k, v in arguments.items() if k != "todos"}
    out["plan"] = steps
    return out


def _lines(plan: Plan) -> list[str]:
    return [f"{_GLYPH[step.status]} {step.content}" for step in plan.steps]


async def _call(inp: UpdatePlanInput, ctx: ToolContext) -> ToolOutput:
    plan = Plan(
        steps=[PlanStep(content=s.content, status=s.status) for s in inp.plan],
        explanation=" ".join(inp.explanation.split()),
    )
    total = len(plan.steps)
    if total == 0:
        summary, content = "plan cleared", "Plan cleared."
    else:
        current = plan.current
        summary = f"{plan.done}/{total} done" + (f" · {current.content}" if current else "")
        content = "Plan updated:\n" + "\n".join(_lines(plan))
    return ToolOutput(
        content,
        data={"plan": plan.data()},
        summary=one_line(summary),
        facts=ResultFacts(entries=total),
        never_spill=True,
    )


TOOL = Tool(
    name=PLAN_TOOL,
    description=DESCRIPTION,
    input_model=UpdatePlanInput,
    call=_call,
    aliases=(PLAN_ALIAS,),
    input_aliases=from_todos,
    call_aliases=(CallAlias("TodoWrite", from_todos),),
    meta=ToolMeta(read_only=True, concurrency_safe=False),
    timeout=10.0,
)
