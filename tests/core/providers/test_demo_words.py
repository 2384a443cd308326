"""The demo model words what it says about the app for the front end it is told it runs in."""

from __future__ import annotations

import pytest

from agent_tui.core.providers.demo_plans import WORDS, plan_for
from agent_tui.core.transcript import Message, ToolCall

TUI_ONLY = ("lane", "card", "Enter", "Esc", "your approval", "You denied")
PROMPTS = (
    "tour",
    "help",
    "what?",
    "read README.md",
    "list src",
    "find *.py",
    "search TODO in src",
    "run git status",
    'replace "a" with "b" in notes.txt',
    "write notes.txt: hi",
)


def _result(ok: bool) -> Message:
    call = ToolCall(id="c1", name="read_file", arguments="{}")
    content = "1\tfine" if ok else '{\n "error": "README.md does not exist.",\n "code": "x"\n}'
    return Message.tool(call, content, is_error=not ok)


def _everything_said(prompt: str, frontend: str) -> list[str]:
    words = WORDS[frontend]  # type: ignore[index]
    said = []
    for step in plan_for(prompt, words):
        for results in ([], [_result(True)], [_result(False)]):
            said.append(step.render_text(results))
    said += [words.refused("The user denied this call."), words.refused("a deny rule")]
    return said


@pytest.mark.parametrize("prompt", PROMPTS)
def test_headless_words_do_not_speak_of_the_tui(prompt: str) -> None:
    for text in _everything_said(prompt, "headless"):
        assert not [w for w in TUI_ONLY if w in text], text


def test_the_tui_words_are_those_of_the_tui() -> None:
    [_, done] = plan_for("read README.md", WORDS["tui"])
    assert done.render_text([_result(True)]) == (
        "Read `README.md` — the full output is on the card in the lane (Enter expands it)."
    )
    assert done.render_text([_result(False)]) == (
        "That did not work (failed: README.md does not exist). The card in the lane has the "
        "full error, including what to try next."
    )
    assert WORDS["tui"].refused("The user denied this call.").startswith("You denied")
    assert WORDS["tui"].refused("denied by the rule x").startswith("That call was refused")
