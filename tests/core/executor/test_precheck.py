"""A call that cannot succeed is refused before anyone is asked (``Tool.precheck``).

``edit_file`` of a file not read, changed since it was read, or whose ``old_string`` is not
found or not unique ends as a ``tool_error`` with a next step, and no ``permission_request``
is emitted. A deny (rule or plan mode) still wins: it is reported as a rejection. The pre-check
only refuses: passing it (or failing with an exception) never turns an ask into an allow.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tui.core.events import Event
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    Mode,
    PermissionPipeline,
    Rule,
    RuleSet,
)
from agent_tui.core.tools import Tool, ToolErrorInfo
from agent_tui.core.tools.builtin import edit_file, read_file, write_file

from .helpers import call, executor, run_calls


class Asker:
    """Records every request and answers with ``answer``."""

    def __init__(self, answer: Approval | None = None) -> None:
        self.asked: list[ApprovalRequest] = []
        self.answer = answer or Approval(allowed=True)

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return self.answer


def _tools(*extra: Tool[Any]) -> list[Tool[Any]]:
    return [read_file.TOOL, edit_file.TOOL, write_file.TOOL, *extra]


def _of(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


def _edit(call_id: str, path: str, old: str, new: str, **more: Any) -> Any:
    return call(call_id, "edit_file", path=path, old_string=old, new_string=new, **more)


async def _run(
    tmp_path: Path,
    calls: list[Any],
    *,
    rules: RuleSet | None = None,
    mode: Mode = Mode.DEFAULT,
    asker: Asker | None = None,
    tools: list[Tool[Any]] | None = None,
) -> list[Event]:
    policy = PermissionPipeline(tmp_path, rules, mode)
    ex = executor(tmp_path, tools or _tools(), policy=policy, asker=asker)
    events, _ = await run_calls(ex, calls)
    return events


async def test_an_edit_of_a_file_not_read_is_an_error_without_asking(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("a = 1\n")
    asker = Asker()
    events = await _run(tmp_path, [_edit("e", "x.py", "a = 1", "a = 2")], asker=asker)
    assert asker.asked == []
    assert _of(events, "permission_request") == []
    [error] = _of(events, "tool_error")
    assert (error.id, error.code) == ("e", "not_read")
    assert "read_file" in error.next_step
    assert (tmp_path / "x.py").read_text() == "a = 1\n"


async def test_old_string_not_found_or_not_unique_is_an_error_without_asking(
    tmp_path: Path,
) -> None:
    (tmp_path / "x.py").write_text("a = 1\na = 1\nb = 2\n")
    calls = [
        call("r", "read_file", path="x.py"),
        _edit("missing", "x.py", "c = 3", "c = 4"),
        _edit("twice", "x.py", "a = 1", "a = 2"),
    ]
    asker = Asker()
    events = await _run(tmp_path, calls, asker=asker)
    assert asker.asked == []
    codes = {e.id: e.code for e in _of(events, "tool_error")}
    assert codes == {"missing": "not_found", "twice": "multiple_matches"}
    assert all(e.next_step for e in _of(events, "tool_error"))
    assert (tmp_path / "x.py").read_text() == "a = 1\na = 1\nb = 2\n"


async def test_a_file_changed_since_it_was_read_is_an_error_without_asking(
    tmp_path: Path,
) -> None:
    path = tmp_path / "x.py"
    path.write_text("a = 1\n")
    policy = PermissionPipeline(tmp_path)
    asker = Asker()
    ex = executor(tmp_path, _tools(), policy=policy, asker=asker)
    await run_calls(ex, [call("r", "read_file", path="x.py")])
    path.write_text("a = 1  # changed by someone else, and longer\n")
    events, _ = await run_calls(ex, [_edit("e", "x.py", "a = 1", "a = 2")])
    assert asker.asked == []
    assert [e.code for e in _of(events, "tool_error")] == ["stale_file"]


async def test_an_edit_that_can_succeed_still_asks_and_then_runs(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("a = 1\na = 1\n")
    calls = [
        call("r", "read_file", path="x.py"),
        _edit("e", "x.py", "a = 1", "a = 2", replace_all=True),  # not unique, but replace_all
    ]
    asker = Asker()
    events = await _run(tmp_path, calls, asker=asker)
    assert [r.call.id for r in asker.asked] == ["e"]
    assert [e.id for e in _of(events, "permission_request")] == ["e"]
    assert [e.id for e in _of(events, "tool_result")] == ["r", "e"]
    assert (tmp_path / "x.py").read_text() == "a = 2\na = 2\n"


async def test_a_deny_rule_wins_it_is_a_rejection_not_an_error(tmp_path: Path) -> None:
    """The decision comes first: the model learns the edit is denied, not that its
    ``old_string`` is wrong (fixing that would only be denied next)."""
    (tmp_path / "x.py").write_text("a = 1\n")
    rules = RuleSet(deny=[Rule.parse("edit_file(x.py)", source="test")])
    asker = Asker()
    events = await _run(tmp_path, [_edit("e", "x.py", "nowhere", "b")], rules=rules, asker=asker)
    assert asker.asked == []
    assert _of(events, "tool_error") == []
    [rejected] = _of(events, "tool_rejected")
    assert (rejected.id, rejected.by, rejected.rule) == ("e", "rule", "edit_file(x.py)")


async def test_plan_mode_is_a_rejection_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("a = 1\n")
    events = await _run(tmp_path, [_edit("e", "x.py", "a = 1", "b")], mode=Mode.PLAN, asker=Asker())
    assert _of(events, "tool_error") == []
    assert [(r.id, r.step) for r in _of(events, "tool_rejected")] == [("e", "plan mode")]


async def test_headless_gets_the_actionable_error_not_a_headless_rejection(
    tmp_path: Path,
) -> None:
    (tmp_path / "x.py").write_text("a = 1\n")
    events = await _run(tmp_path, [_edit("e", "x.py", "a = 1", "b")], asker=None)
    assert [e.code for e in _of(events, "tool_error")] == ["not_read"]
    assert _of(events, "tool_rejected") == []


async def test_an_allowed_call_still_fails_with_the_same_error(tmp_path: Path) -> None:
    """accept-edits allows the edit without asking; the tool's own check refuses it."""
    (tmp_path / "x.py").write_text("a = 1\n")
    asker = Asker()
    events = await _run(
        tmp_path, [_edit("e", "x.py", "a = 1", "b")], mode=Mode.ACCEPT_EDITS, asker=asker
    )
    assert asker.asked == []
    assert [e.code for e in _of(events, "tool_error")] == ["not_read"]


async def test_write_file_needs_no_read_and_still_asks(tmp_path: Path) -> None:
    """A write replaces the whole file and needs no earlier read (as before): it asks."""
    (tmp_path / "x.txt").write_text("old\n")
    calls = [call("w", "write_file", path="x.txt", content="new\n")]
    asker = Asker()
    await _run(tmp_path, calls, asker=asker)
    assert [r.call.id for r in asker.asked] == ["w"]
    assert (tmp_path / "x.txt").read_text() == "new\n"


async def test_write_file_onto_a_directory_is_an_error_without_asking(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    asker = Asker()
    events = await _run(tmp_path, [call("w", "write_file", path="d", content="x")], asker=asker)
    assert asker.asked == []
    assert [e.code for e in _of(events, "tool_error")] == ["is_directory"]


def _with_precheck(check: Any) -> Tool[Any]:
    return replace(write_file.TOOL, name="guarded_write", precheck=check, call_aliases=())


async def test_passing_the_precheck_never_allows(tmp_path: Path) -> None:
    """None from a pre-check means "go on": the call is asked about, and a deny answer holds."""
    seen: list[str] = []

    def check(inp: Any, ctx: Any) -> ToolErrorInfo | None:
        seen.append(inp.path)
        return None

    asker = Asker(Approval(allowed=False))
    events = await _run(
        tmp_path,
        [call("w", "guarded_write", path="x.txt", content="x")],
        asker=asker,
        tools=_tools(_with_precheck(check)),
    )
    assert seen == ["x.txt"]
    assert [r.call.id for r in asker.asked] == ["w"]
    assert [r.by for r in _of(events, "tool_rejected")] == ["user"]
    assert not (tmp_path / "x.txt").exists()


async def test_a_precheck_that_crashes_is_ignored_and_the_call_still_asks(
    tmp_path: Path,
) -> None:
    def check(inp: Any, ctx: Any) -> ToolErrorInfo | None:
        raise RuntimeError("bug in the pre-check")

    asker = Asker(Approval(allowed=False))
    events = await _run(
        tmp_path,
        [call("w", "guarded_write", path="x.txt", content="x")],
        asker=asker,
        tools=_tools(_with_precheck(check)),
    )
    assert [r.call.id for r in asker.asked] == ["w"]
    assert _of(events, "tool_error") == []
    assert not (tmp_path / "x.txt").exists()


async def test_the_precheck_sees_the_judged_path(tmp_path: Path) -> None:
    paths: list[Path | None] = []

    def check(inp: Any, ctx: Any) -> ToolErrorInfo | None:
        paths.append(ctx.judged_path)
        return None

    await _run(
        tmp_path,
        [call("w", "guarded_write", path="x.txt", content="x")],
        asker=Asker(Approval(allowed=False)),
        tools=_tools(_with_precheck(check)),
    )
    assert paths == [PermissionPipeline(tmp_path).workspace / "x.txt"]
