"""The call-state model and the wording helpers (no app needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.calls import ResultFacts
from agent_tui.core.events import (
    PermissionRequest,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolRejected,
    ToolResult,
    ToolUse,
)
from agent_tui.ui.calls.book import CallBook, CallStatus
from agent_tui.ui.calls.details import describe_call
from agent_tui.ui.common.format import (
    format_elapsed,
    format_tokens,
    group_title,
    mcp_parts,
    model_label,
    shorten_home,
    summarize_input,
)


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
            summary="exit 2 · boom",
            facts=ResultFacts(exit_code=2),
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
    book.apply(
        ToolRejected(id="a", name="read_file", reason="no", feedback="not that one", by="user")
    )
    book.apply(
        ToolErrorEvent(
            id="b", name="read_file", code="not_found", message="gone", next_step="list the dir"
        )
    )
    assert book.get("a").status_line() == "rejected by you · “not that one”"  # type: ignore[union-attr]
    b = book.get("b")
    assert b is not None
    assert b.code == "not_found"
    assert "next: list the dir" in b.content
    assert book.apply(ToolResult(id="zzz", name="x", content="")) == []
    abandoned = book.abandon("stopped")
    assert [s.id for s in abandoned] == ["c", "d"]
    assert all(s.status is CallStatus.ERROR for s in abandoned)


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


def test_a_result_shows_the_summary_its_tool_wrote() -> None:
    book = CallBook(FakeClock())
    book.apply(ToolUse(id="w", name="write_file", input={"path": "a.py"}))
    book.apply(ToolUse(id="m", name="mcp__x__y", input={}))
    book.apply(
        ToolResult(
            id="w",
            name="write_file",
            content="Wrote 9 lines (157 bytes) to a.py (new file).",
            summary="+9 · new file",
            facts=ResultFacts(added=9, removed=0, created=True),
        )
    )
    book.apply(ToolResult(id="m", name="mcp__x__y", content="\n\nfirst words\nmore"))
    assert book.calls["w"].status_line() == "ok · +9 · new file"
    assert book.calls["w"].facts.added == 9
    assert book.calls["m"].status_line() == "ok · first words"  # no summary: its first line


def test_group_titles_name_what_a_batch_does() -> None:
    assert group_title(["read_file"] * 4) == "Read 4 files"
    assert group_title(["grep", "glob", "grep"]) == "3 searches"
    assert group_title(["list_dir", "list_dir"]) == "2 listings"
    assert group_title(["read_file", "grep"]) == "Read 1 file · 1 search"
    assert group_title(["mcp__github__a", "mcp__github__b"]) == "2 github calls"
    assert mcp_parts("mcp__github__create_issue") == ("github", "create_issue")
    assert mcp_parts("read_file") is None


def test_interrupted_and_rejected_calls_say_how_they_ended() -> None:
    book = CallBook(FakeClock())
    for call_id in ("i", "c", "u", "r", "p"):
        book.apply(ToolUse(id=call_id, name="run_shell", input={"command": "x"}))
    book.apply(ToolErrorEvent(id="i", name="run_shell", code="interrupted", message="stopped"))
    book.apply(
        ToolErrorEvent(
            id="c", name="run_shell", code="cancelled", message="cancelled because make failed"
        )
    )
    book.apply(
        ToolRejected(id="u", name="run_shell", reason="The user denied this call.", by="user")
    )
    book.apply(
        ToolRejected(id="r", name="run_shell", reason="anything", by="rule", rule="run_shell(rm:*)")
    )
    book.apply(ToolRejected(id="p", name="run_shell", reason="plan mode is on: only …", by="plan"))
    states = book.calls
    assert states["i"].status is CallStatus.INTERRUPTED
    assert states["i"].status_line() == "interrupted · stopped by you"  # Esc or Ctrl+C
    assert states["c"].status is CallStatus.INTERRUPTED
    assert "cancelled because make failed" in states["c"].status_line()
    assert states["u"].status_line() == "rejected by you · no feedback"
    assert states["r"].status_line() == "rejected by rule · run_shell(rm:*)"
    assert states["p"].rejected_by == "plan mode"


@pytest.mark.parametrize(
    ("policy", "opened"),
    [("never", ""), ("always", "okfx"), ("failures", "fx"), ("success", "ok")],
)
def test_the_auto_open_policy(policy: str, opened: str) -> None:
    book = CallBook(FakeClock(), policy)  # type: ignore[arg-type]
    for call_id in ("ok", "fx", "rj"):
        book.apply(ToolUse(id=call_id, name="read_file", input={"path": call_id}))
    book.apply(ToolResult(id="ok", name="read_file", content="x"))
    book.apply(ToolErrorEvent(id="fx", name="read_file", code="not_found", message="no"))
    book.apply(ToolRejected(id="rj", name="read_file", reason="The user denied this call."))
    shown = "".join(i for i in ("ok", "fx") if book.calls[i].expanded)
    assert shown == opened
    assert book.calls["rj"].expanded is (policy == "always")


def test_the_prompt_describes_mcp_writes_and_edits(tmp_path: Path) -> None:
    mcp = describe_call("mcp__github__create_issue", {"repo": "a/b", "labels": ["x"]}).plain
    assert "MCP server: github" in mcp
    assert "tool: create_issue" in mcp
    assert 'labels: ["x"]' in mcp
    new = describe_call("write_file", {"path": "n.txt", "content": "a\nb\n"}, cwd=tmp_path).plain
    assert "size: 2 lines · 4 B" in new
    assert "a new file" in new
    (tmp_path / "n.txt").write_text("a\n", encoding="utf-8")
    over = describe_call("write_file", {"path": "n.txt", "content": "a\nb\n"}, cwd=tmp_path).plain
    assert "replaces the current 2 B" in over
    assert "+b" in over
    edit = {"path": "n.txt", "old_string": "a", "new_string": "z"}
    shown = describe_call("edit_file", edit, cwd=tmp_path).plain
    assert "-a" in shown
    assert "+z" in shown
    missing = describe_call("edit_file", {**edit, "old_string": "q"}, cwd=tmp_path).plain
    assert "no preview" in missing
    assert "- q" in missing


def test_what_allowed_a_call_comes_with_its_result() -> None:
    """A call the mode let run (Shift+Tab in its prompt): the result event says so, so a
    resumed session's card says it too."""
    book = CallBook(FakeClock())
    book.apply(ToolUse(id="e", name="edit_file", input={"path": "a.py"}))
    book.apply(
        ToolResult(
            id="e",
            name="edit_file",
            content="Edited a.py",
            summary="+1 −1",
            facts=ResultFacts(added=1, removed=1),
            allowed_by="accept-edits mode",
        )
    )
    assert book.calls["e"].status_line() == "ok · +1 −1 · allowed by accept-edits mode"


def test_unfinished_looks_only_at_the_calls_in_flight() -> None:
    """A long turn asks which calls are unfinished at every event; the answer must not walk
    every call of the session (``CallBook._open`` keeps the ones that may still run)."""
    book = CallBook(FakeClock())
    for n in range(500):
        book.apply(ToolUse(id=f"done{n}", name="read_file", input={"path": "a"}))
        book.apply(ToolResult(id=f"done{n}", name="read_file", content="x"))
    book.apply(ToolUse(id="live", name="run_shell", input={"command": "sleep 9"}))
    assert [c.id for c in book.unfinished()] == ["live"]
    assert list(book._open) == ["live"]  # the finished ones were let go
    book.apply(ToolResult(id="live", name="run_shell", content="ok"))
    assert book.unfinished() == []
    assert [c.id for c in book.abandon("stopped")] == []


def test_the_prompt_of_a_multi_edit_previews_all_its_edits(tmp_path: Path) -> None:
    """Claude Code's ``MultiEdit`` runs as one ``edit_file`` with ``more_edits``: the prompt
    shows the diff of every edit together, and not the further edits again as a field."""
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    edit = {
        "path": "m.py",
        "old_string": "a = 1",
        "new_string": "a = 10",
        "more_edits": [{"old_string": "b = 2", "new_string": "b = 20", "replace_all": False}],
    }
    shown = describe_call("edit_file", edit, cwd=tmp_path).plain
    assert "+a = 10" in shown
    assert "+b = 20" in shown
    assert "more_edits" not in shown
    broken = {**edit, "more_edits": [{"old_string": "zz", "new_string": "y"}]}
    unknown = describe_call("edit_file", broken, cwd=tmp_path).plain
    assert "no preview" in unknown
    assert "more_edits" in unknown  # not previewed: the further edits are listed as given
