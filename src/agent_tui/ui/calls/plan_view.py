"""The model's plan for people: one line per step with its state's glyph, and the one-line
count (``plan 3/7 ✓``). Shared by the pinned plan panel and the ``update_plan`` card."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.content import Content

from agent_tui.core.events import PlanStep

GLYPHS = {"completed": "✓", "in_progress": "▶", "pending": "○"}
STYLES = {
    "completed": "$text-success",
    "in_progress": "bold $text-accent",
    "pending": "$foreground-muted",
}


CODE_STYLE = "$text-warning"
"""A `code span` of a step, as answers show inline code (its backticks dropped)."""


def step_line(step: PlanStep) -> Content:
    """``✓ read the parser``: the glyph in the state's colour, a finished step dimmed, its
    `code spans` as in answers."""
    text_style = {"completed": "dim", "in_progress": "bold", "pending": ""}[step.status]
    parts = step.content.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: the text as written
        parts = [step.content]
    text = Content.assemble(
        *((part, CODE_STYLE) if index % 2 else part for index, part in enumerate(parts) if part)
    )
    return Content.assemble(
        (GLYPHS[step.status] + " ", STYLES[step.status]),
        text.stylize(text_style) if text_style else text,
    )


def steps_content(steps: Sequence[PlanStep]) -> Content:
    if not steps:
        return Content.styled("(the plan is empty)", "$foreground-muted")
    return Content("\n").join(step_line(step) for step in steps)


def count_label(steps: Sequence[PlanStep]) -> str:
    """``plan 3/7`` and ``✓`` once every step is done."""
    done = sum(1 for s in steps if s.status == "completed")
    mark = " ✓" if steps and done == len(steps) else ""
    return f"plan {done}/{len(steps)}{mark}"


def compact_line(steps: Sequence[PlanStep]) -> Content:
    """``☰ plan 3/7 · ▶ edit the parser``: the count and the step in progress (else the
    next pending one)."""
    label = Content.styled(f"☰ {count_label(steps)}", "bold")
    current = next((s for s in steps if s.status == "in_progress"), None)
    if current is None:
        current = next((s for s in steps if s.status == "pending"), None)
    if current is None:
        return label
    return Content.assemble(label, ("  ", ""), step_line(current))


def steps_of(data: dict[str, Any]) -> list[PlanStep] | None:
    """The steps an ``update_plan`` result's data carries (typed: ``core.plan.Plan``), or
    None when it carries none."""
    from pydantic import ValidationError

    from agent_tui.core.plan import Plan

    raw = data.get("plan")
    if not isinstance(raw, dict):
        return None
    try:
        return Plan.model_validate(raw).steps
    except ValidationError:
        return None
