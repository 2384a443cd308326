"""The mode changes while a prompt is open: the executor decides again (``Approval.decided``).

The front end answers with the policy's new decision; the executor does not take its word for
it: it decides again itself. An allow runs, a deny is the policy's rejection, a call that still
asks is asked again. Deny rules win in every mode, bypass included.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui.core.events import Event
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    Decision,
    Mode,
    PermissionPipeline,
    Rule,
)
from agent_tui.core.tools.builtin import edit_file, read_file, run_shell, write_file

from .helpers import call, executor, run_calls


def _of(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


async def _run(
    tmp_path: Path,
    calls: list[Any],
    answer: Callable[[PermissionPipeline, ApprovalRequest, int], Approval],
) -> tuple[list[Event], list[ApprovalRequest]]:
    """Run ``calls`` with a pipeline in default mode; ``answer(policy, request, n)`` answers
    the n-th ask (it may switch the mode first, as Shift+Tab does)."""
    policy = PermissionPipeline(tmp_path)
    asked: list[ApprovalRequest] = []

    async def asker(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return answer(policy, request, len(asked))

    tools = [read_file.TOOL, edit_file.TOOL, write_file.TOOL, run_shell.TOOL]
    events, _ = await run_calls(executor(tmp_path, tools, policy=policy, asker=asker), calls)
    return events, asked


def _switch(mode: Mode) -> Callable[[PermissionPipeline, ApprovalRequest, int], Approval]:
    """Switch to ``mode`` and answer with the policy's new decision (as the TUI does)."""

    def answer(policy: PermissionPipeline, request: ApprovalRequest, n: int) -> Approval:
        policy.set_mode(mode)
        decision = policy.decide(request)
        return Approval(allowed=decision.kind == "allow", decided=decision)

    return answer


def _write(call_id: str = "w", path: str = "a.txt") -> Any:
    return call(call_id, "write_file", path=path, content="x\n")


async def test_switching_to_accept_edits_runs_the_pending_write(tmp_path: Path) -> None:
    events, asked = await _run(tmp_path, [_write()], _switch(Mode.ACCEPT_EDITS))
    assert len(asked) == 1
    assert len(_of(events, "permission_request")) == 1  # not asked again
    (result,) = _of(events, "tool_result")
    assert result.id == "w"
    assert result.allowed_by == "accept-edits mode"  # typed: the card says it, also resumed
    assert (tmp_path / "a.txt").read_text() == "x\n"


async def test_switching_to_plan_rejects_it_by_the_policy(tmp_path: Path) -> None:
    events, _ = await _run(tmp_path, [_write()], _switch(Mode.PLAN))
    [rejected] = _of(events, "tool_rejected")
    assert (rejected.by, rejected.step) == ("plan", "plan mode")
    assert not (tmp_path / "a.txt").exists()


async def test_a_command_still_asks_in_accept_edits_and_is_asked_again(tmp_path: Path) -> None:
    def answer(policy: PermissionPipeline, request: ApprovalRequest, n: int) -> Approval:
        if n == 1:  # a front end that claims the mode allowed it
            policy.set_mode(Mode.ACCEPT_EDITS)
            return Approval(allowed=True, decided=Decision("allow"))
        return Approval(allowed=False)

    events, asked = await _run(tmp_path, [call("s", "run_shell", command="touch made")], answer)
    assert len(asked) == 2  # the executor decided again: still an ask, so it asked again
    assert [e.id for e in _of(events, "permission_request")] == ["s", "s"]
    assert [r.by for r in _of(events, "tool_rejected")] == ["user"]
    assert not (tmp_path / "made").exists()


async def test_a_deny_rule_wins_after_switching_to_bypass(tmp_path: Path) -> None:
    def answer(policy: PermissionPipeline, request: ApprovalRequest, n: int) -> Approval:
        policy.rules.deny.append(Rule.parse("write_file(a.txt)", source="test"))
        policy.set_mode(Mode.BYPASS)
        return Approval(allowed=True, decided=Decision("allow"))  # what it claims

    events, asked = await _run(tmp_path, [_write()], answer)
    assert len(asked) == 1
    [rejected] = _of(events, "tool_rejected")
    assert (rejected.by, rejected.rule) == ("rule", "write_file(a.txt)")
    assert not (tmp_path / "a.txt").exists()


async def test_a_protected_path_still_asks_in_bypass(tmp_path: Path) -> None:
    answers = iter([_switch(Mode.BYPASS), lambda *_: Approval(allowed=False)])

    def answer(policy: PermissionPipeline, request: ApprovalRequest, n: int) -> Approval:
        return next(answers)(policy, request, n)

    events, asked = await _run(tmp_path, [_write(path=".mcp.json")], answer)
    assert len(asked) == 2
    assert [r.by for r in _of(events, "tool_rejected")] == ["user"]
    assert asked[1].decision is not None
    assert asked[1].decision.every_mode
    assert not (tmp_path / ".mcp.json").exists()
