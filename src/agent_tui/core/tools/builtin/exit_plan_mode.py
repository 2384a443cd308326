"""exit_plan_mode: in plan mode, propose the plan and ask the user to approve it.

Offered only while plan mode is on (``ToolMeta.plan_mode_only``); a call in another mode is
refused with a clear error. Read-only (it changes no file), so plan mode lets it run; the call
waits for the user's answer (``ToolContext.plan_gate``, ``core.plan_review``). Approved: the
mode has switched and the result seeds the plan list with the plan's steps (``core.plan``).
Claude Code's ``ExitPlanMode`` call is this tool (``core.tools.claude_calls``).
"""

from __future__ import annotations

from pydantic import Field, field_validator

from agent_tui.core.calls import ResultFacts
from agent_tui.core.plan import EXIT_PLAN_TOOL, Plan, steps_from_markdown
from agent_tui.core.text.summary import one_line, plural
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput
from agent_tui.core.tools.claude_calls import from_exit_plan_mode
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.plan_gate import PlanVerdict

CLAUDE_NAME = "ExitPlanMode"
MAX_PLAN_CHARS = 40_000
"""Characters of a plan: a plan is read by a person before anything happens."""

DESCRIPTION = """\
Plan mode is on: you may read and search, not change anything. Explore the task, then call \
this with your plan (Markdown: what you will change, as numbered steps) to ask the user to \
approve it. Approved, the mode switches and you carry the plan out; otherwise the result holds \
the user's feedback: plan again. Ask for approval with this tool, not in text."""

MODE_MEANING = {
    "default": "file edits and commands ask the user first",
    "accept-edits": "file edits inside the workspace run without asking; commands still ask",
}


class ExitPlanInput(ToolInput):
    plan: str = Field(description="The plan, in Markdown, with its steps as a numbered list.")

    @field_validator("plan")
    @classmethod
    def _text(cls, value: str) -> str:
        text = value.strip()
        if not text:
            raise ValueError("is blank: write the plan the user is to approve")
        if len(text) > MAX_PLAN_CHARS:
            raise ValueError(
                f"is {len(text)} characters: keep the plan under {MAX_PLAN_CHARS} (a person "
                "reads it before anything happens)"
            )
        return text


def _approved(plan_text: str, verdict: PlanVerdict) -> ToolOutput:
    steps = steps_from_markdown(plan_text)
    meaning = MODE_MEANING.get(verdict.mode, "")
    content = (
        f"The user approved your plan. The permission mode is now {verdict.mode}"
        f"{f' ({meaning})' if meaning else ''}. Carry out the plan now."
    )
    data: dict[str, object] = {"verdict": "approved", "mode": verdict.mode}
    if steps:
        content += (
            f" The plan list holds its {plural(len(steps), 'step')}, all pending: mark your "
            "progress with update_plan as you go."
        )
        data["plan"] = Plan(steps=steps, explanation="the approved plan").data()
    summary = f"approved · {verdict.mode} mode"
    if steps:
        summary += f" · {plural(len(steps), 'step')}"
    return ToolOutput(
        content,
        data=data,
        summary=summary,
        facts=ResultFacts(entries=len(steps)),
        never_spill=True,
    )


def _not_approved(verdict: PlanVerdict) -> ToolOutput:
    if verdict.unattended:
        return ToolOutput(
            "Not approved: nobody can approve a plan in this run (no user: a headless run or "
            "a subagent). The permission mode stays plan, so nothing may be changed. The user "
            "has the plan; end your turn now with a one-line summary, without repeating it.",
            data={"verdict": "unattended"},
            summary="not approved: nobody to ask in this run",
            never_spill=True,
        )
    feedback = verdict.feedback
    if feedback:
        content = (
            "The user did not approve the plan and wants to keep planning. Their feedback:\n"
            f"{feedback}\n\nThe permission mode stays plan: revise the plan and propose it "
            "again with exit_plan_mode."
        )
        summary = one_line(f"keep planning: {feedback}")
    else:
        content = (
            "The user did not approve the plan and wants to keep planning (no feedback "
            "given). The permission mode stays plan: ask what they want changed, or refine "
            "the plan, before proposing it again."
        )
        summary = "keep planning"
    return ToolOutput(
        content,
        data={"verdict": "keep_planning", "feedback": feedback},
        summary=summary,
        never_spill=True,
    )


async def _call(inp: ExitPlanInput, ctx: ToolContext) -> ToolOutput:
    gate = ctx.plan_gate
    mode = gate.mode if gate is not None else None
    if gate is None or mode != "plan":
        raise ToolFailure(
            "not_in_plan_mode",
            f"exit_plan_mode is only for plan mode; the permission mode is {mode or 'not set'}.",
            "Plan mode is not on: go on with the task with the tools you have (show your steps "
            "with update_plan).",
        )
    verdict = await gate.review(inp.plan)
    return _approved(inp.plan, verdict) if verdict.approved else _not_approved(verdict)


TOOL = Tool(
    name=EXIT_PLAN_TOOL,
    description=DESCRIPTION,
    input_model=ExitPlanInput,
    call=_call,
    call_aliases=(CallAlias(CLAUDE_NAME, from_exit_plan_mode),),
    meta=ToolMeta(read_only=True, concurrency_safe=False, plan_mode_only=True),
    timeout=None,  # it waits for a person
)
