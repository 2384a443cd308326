"""The call-state model and the wording helpers (no app needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.events import (
    PermissionRequest,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolRejected,
    ToolResult,
    ToolUse,
)
from agent_tui.core.transcript import Message, ToolCall
from agent_tui.ui.format import (
    format_elapsed,
    format_tokens,
    model_label,
    outcome_line,
    shorten_home,
    summarize_input,
)
from agent_tui.ui.tool_calls import CallBook, CallStatus, states_from_history


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_call_walks_through_its_states() -> None:
    clock = FakeClock()
    book = CallBook(clock)
    (state,) = book.apply(ToolUse(id="c", name="run_shell", input={"command": "make"}))
    assert state.status is CallStatus.QUEUED
    assert state.summary == "make"
    book.apply(PermissionRequest(id="c", name="run_shell", reason="asks"))
    assert state.status is CallStatus.APPROVAL
    book.apply(ToolProgress(id="c", name="run_shell", elapsed=1.5, tail=["a", "b"]))
    assert state.status is CallStatus.RUNNING
    assert state.tail == ["a", "b"]
    clock.now += 2
    assert state.live_elapsed(clock()) == pytest.approx(3.5)
    book.apply(
        ToolResult(
            id="c",
            name="run_shell",
            content="boom\n",
            is_error=True,
            elapsed=4.0,
            data={"exit_code": 2},
        )
    )
    assert state.status is CallStatus.FAILED
    assert state.outcome == "exit 2 · boom"
    clock.now += 10
    assert state.live_elapsed(clock()) == 4.0
    assert book.unfinished() == []


def test_rejections_errors_groups_and_abandoned_calls() -> None:
    book = CallBook(FakeClock())
    for call_id in ("a", "b", "c", "d"):
        book.apply(ToolUse(id=call_id, name="read_file", input={"path": f"{call_id}.py"}))
    changed = book.apply(ToolGroup(ids=["a", "b"]))
    assert [s.group for s in changed] == ["a", "a"]
    assert changed[0].group_size == 2
    book.apply(ToolRejected(id="a", name="read_file", reason="no", feedback="not that one"))
    book.apply(
        ToolErrorEvent(
            id="b", name="read_file", code="not_found", message="gone", next_step="list the dir"
        )
    )
    assert book.get("a").status_line() == "rejected · “not that one”"  # type: ignore[union-attr]
    b = book.get("b")
    assert b is not None
    assert b.code == "not_found"
    assert "next: list the dir" in b.content
    assert book.apply(ToolResult(id="zzz", name="x", content="")) == []
    abandoned = book.abandon("stopped")
    assert [s.id for s in abandoned] == ["c", "d"]
    assert all(s.status is CallStatus.ERROR for s in abandoned)


def test_history_states_for_a_resumed_session() -> None:
    call = ToolCall(id="x", name="read_file", arguments='{"path": "a.py"}')
    messages = [
        Message.user("hi"),
        Message.assistant("", [call]),
        Message.tool(call, "1\tprint()", is_error=False),
    ]
    states = states_from_history(messages)
    assert states["x"].status is CallStatus.OK
    assert states["x"].summary == "a.py"


@pytest.mark.parametrize(
    ("input", "raw", "expected"),
    [
        ({"path": "src/a.py", "offset": 3}, "", "src/a.py"),
        ({"command": "git status"}, "", "git status"),
        ({"pattern": "TODO", "path": "src"}, "", "TODO in src"),
        ({"pattern": "*.md"}, "", "*.md"),
        ({}, "", ""),
        (None, '{"path": oops', '{"path": oops'),
        ({"n": 3}, "", '{"n": 3}'),
    ],
)
def test_summaries(input: dict[str, object] | None, raw: str, expected: str) -> None:
    assert summarize_input(input, raw) == expected


def test_wording_helpers() -> None:
    assert (
        outcome_line("1\ta\n[lines 1-1 of 1]", {"first": 1, "last": 1, "total_lines": 1}, False)
        == "lines 1–1 of 1"
    )
    assert outcome_line("", {"total_lines": 0, "first": 1, "last": 0}, False) == "empty file"
    assert outcome_line("\n\nWrote it.\n", {}, False) == "Wrote it."
    error = '{"error": "No such file.", "code": "not_found", "retryable": false}'
    assert outcome_line(error, {}, True) == "not_found: No such file."
    assert format_elapsed(0.012) == "12ms"
    assert format_elapsed(0.4, live=True) == "0.4s"
    assert format_elapsed(42.7) == "42s"
    assert format_elapsed(185) == "3m05s"
    assert format_tokens(950) == "950"
    assert format_tokens(12_345) == "12.3k"
    assert shorten_home(Path("/home/me/src"), Path("/home/me")) == "~/src"
    assert shorten_home(Path("/home/meme"), Path("/home/me")) == "/home/meme"
    assert model_label("script:/tmp/x/turns.json") == "script:turns.json"
    assert model_label("openai:gpt-4o") == "openai:gpt-4o"
