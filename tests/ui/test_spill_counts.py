"""A spill of one line says "1 line", not "1 lines" (the card, the expanded card, the headless
notice and the pointer the model reads); the pointer still reads back from old sessions."""

from __future__ import annotations

import io

from agent_tui.core.budget.excerpt import pointer_in, spill_pointer
from agent_tui.core.events import Spill, SpillPointer
from agent_tui.headless.text import TextRenderer
from agent_tui.ui.calls.state import CallState, CallStatus
from agent_tui.ui.lane.card_content import spill_content
from agent_tui.ui.lane.states.result import ResultView

PATH = ".agent-spill/20260105T142233Z-run_shell-c-abcd.txt"


def test_one_line_is_singular_everywhere() -> None:
    pointer = SpillPointer(path=PATH, chars=1, lines=1)
    call = CallState(id="c", name="run_shell", status=CallStatus.OK, spill=pointer)
    assert call.spill_line() == f"full output (1 line): {PATH}"
    assert "⤷ full output spilled: 1 line  o opens" in ResultView(call, 0.0).build(call, 0.0).plain
    content = spill_content(call)
    assert content is not None
    assert "(1 line, 1 char): " in content.plain
    err = io.StringIO()
    TextRenderer(io.StringIO(), err)(
        Spill(id="c", name="run_shell", path=PATH, abs_path="/x", chars=1, lines=1, bytes=1)
    )
    assert "full output (1 char, 1 line) in " in err.getvalue()
    text = spill_pointer(PATH, 1, 1, "run_shell")
    assert "(1 char, 1 line)" in text
    found = pointer_in(text)
    assert found is not None
    assert (found.chars, found.lines) == (1, 1)
    old = text.replace("(1 char, 1 line)", "(1 chars, 1 lines)")  # a session saved before
    assert pointer_in(old) is not None


def test_many_lines_stay_plural() -> None:
    text = spill_pointer(PATH, 2_000, 30, "run_shell")
    assert "(2,000 chars, 30 lines)" in text
    found = pointer_in(text)
    assert found is not None
    assert (found.chars, found.lines) == (2_000, 30)
