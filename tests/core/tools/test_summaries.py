"""Each built-in tool writes the one line people read about its result, and the same facts in
numbers: real tools on real files (what the lane shows live, after a resume, and headless)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.text.summary import changed, default_summary, diff_stats
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import default_registry


async def _run(cwd: Path, name: str, ctx: ToolContext | None = None, **args: Any) -> ToolOutput:
    registry = default_registry()
    tool = registry.get(name)
    assert tool is not None
    return await tool.call(tool.input_model.model_validate(args), ctx or ToolContext(cwd=cwd))


async def test_read_file_says_which_lines(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"{i}\n" for i in range(120)), encoding="utf-8")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    out = await _run(tmp_path, "read_file", path="a.txt", offset=3, limit=10)
    assert out.summary == "lines 3–12 of 120"
    assert (out.facts.first, out.facts.last, out.facts.total_lines) == (3, 12, 120)
    empty = await _run(tmp_path, "read_file", path="empty.txt")
    assert empty.summary == "empty file"


async def test_writes_and_edits_count_lines_added_and_removed(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    created = await _run(tmp_path, "write_file", ctx, path="new.py", content="x\n" * 9)
    assert created.summary == "+9 · new file"
    assert (created.facts.added, created.facts.created) == (9, True)
    await _run(tmp_path, "read_file", ctx, path="new.py")
    edited = await _run(
        tmp_path, "edit_file", ctx, path="new.py", old_string="x\n" * 9, new_string="y\nz\n"
    )
    assert edited.summary == "+2 −9"
    assert (edited.facts.added, edited.facts.removed) == (2, 9)
    rewritten = await _run(tmp_path, "write_file", ctx, path="new.py", content="only\n")
    assert rewritten.facts.created is False
    assert rewritten.summary == changed(rewritten.facts.added or 0, rewritten.facts.removed or 0)


async def test_shell_says_the_exit_code_and_what_a_failure_said_last(tmp_path: Path) -> None:
    ok = await _run(tmp_path, "run_shell", command="echo hi")
    assert ok.summary == "exit 0"
    assert ok.facts.exit_code == 0
    failed = await _run(tmp_path, "run_shell", command="echo first; echo 'it broke' >&2; exit 3")
    assert failed.is_error
    assert failed.summary == "exit 3 · it broke"


async def test_searches_count_what_they_found(tmp_path: Path) -> None:
    for name in ("a.py", "b.py", "c.md"):
        (tmp_path / name).write_text("TOKEN here\n", encoding="utf-8")
    found = await _run(tmp_path, "glob", pattern="*.py")
    assert found.summary == "2 files"
    assert found.facts.files == 2
    none = await _run(tmp_path, "glob", pattern="*.rs")
    assert none.summary == "no files"
    grep = await _run(tmp_path, "grep", pattern="TOKEN")
    assert grep.summary == "3 matches"
    assert grep.facts.matches == 3
    listed = await _run(tmp_path, "list_dir", path=".")
    assert listed.summary == "3 entries"
    assert listed.facts.entries == 3


def test_helpers() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n-a\n+b\n+c\n d"
    assert diff_stats(diff) == (2, 1)
    assert changed(2, 1) == "+2 −1"
    assert default_summary("\n\n  first words \nmore") == "first words"
    assert default_summary("") == "(no output)"
