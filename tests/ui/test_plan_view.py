"""A plan step reads as text: its `code spans` shown as answers show inline code, without the
backticks (an approved plan's steps come from Markdown, and models write update_plan items
with backticks too)."""

from __future__ import annotations

from agent_tui.core.events import PlanStep
from agent_tui.ui.calls.plan_view import CODE_STYLE, compact_line, step_line


def test_code_spans_lose_their_backticks_and_take_the_code_style() -> None:
    line = step_line(PlanStep(content="Write `hello.txt` with a greeting", status="pending"))
    assert line.plain == "○ Write hello.txt with a greeting"
    code = [span for span in line.spans if span.style == CODE_STYLE]
    assert [line.plain[span.start : span.end] for span in code] == ["hello.txt"]


def test_an_unpaired_backtick_is_kept_as_written() -> None:
    line = step_line(PlanStep(content="quote the ` in sed", status="in_progress"))
    assert line.plain == "▶ quote the ` in sed"
    assert not [span for span in line.spans if span.style == CODE_STYLE]


def test_the_compact_line_shows_the_step_the_same_way() -> None:
    steps = [PlanStep(content="Run `pytest -q`", status="in_progress")]
    assert compact_line(steps).plain.endswith("▶ Run pytest -q")
