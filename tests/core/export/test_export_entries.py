"""The export's entries from a history: compaction summaries marked, calls that never ran,
rejected calls, and text with backtick fences that cannot break the Markdown."""

from __future__ import annotations

from agent_tui.core.events import ToolRejected
from agent_tui.core.export import export_doc, render
from agent_tui.core.export.entries import SessionInfo
from agent_tui.core.transcript import CallRecord, Folding, Message, ToolCall


def _history() -> list[Message]:
    return [
        Message(role="user", content="first ask"),
        Message(role="assistant", content="first answer"),
        Message(
            role="user",
            content="They asked X; we did Y.",
            compaction=Folding(folded=2, reason="manual", tokens_before=900, tokens_after=40),
        ),
        Message(role="user", content="show ````code```` please"),
        Message(
            role="assistant",
            content="",
            tool_calls=[
                ToolCall(id="a", name="write_file", arguments='{"path": "x"}'),
                ToolCall(id="b", name="run_shell", arguments="not json"),
            ],
        ),
        Message(
            role="tool",
            tool_call_id="a",
            name="write_file",
            content="Rejected: no",
            is_error=True,
            record=CallRecord.of(ToolRejected(id="a", name="write_file", reason="user said no")),
        ),
    ]


def test_entries_in_order_with_the_compaction_marked() -> None:
    doc = export_doc(_history(), SessionInfo(id="s1", cwd="/w"), "2026-01-01T00:00:00+00:00")
    kinds = [e.kind for e in doc.entries]
    assert kinds == ["prompt", "answer", "compaction", "prompt", "tool_call", "tool_call"]
    rejected, unran = doc.entries[4], doc.entries[5]
    assert rejected.kind == "tool_call"
    assert rejected.outcome == "rejected"
    assert rejected.summary == "user said no"
    assert rejected.output == "Rejected: no"
    assert unran.kind == "tool_call"
    assert unran.outcome == "no_result"
    assert unran.input is None
    assert unran.raw_input == "not json"


def test_markdown_marks_the_summary_and_fences_hold() -> None:
    doc = export_doc(_history(), SessionInfo(id="s1"), "now")
    text = render(doc, "markdown")
    assert "### Compaction summary (manual)" in text
    assert "The 2 messages before this point were folded" in text
    assert "`````\nshow ````code```` please\n`````" in text  # a fence longer than the text's
    assert "Result: no result (the turn stopped before it ran)" in text
    assert "Result: rejected · user said no" in text
