"""One approval path: a call's permission is decided by the executor, once per judgement.

The asker here is a front end like the TUI's desk: it never returns an answer of its own
making, it resolves the request's own future (``request.pending``) or tells it the mode
changed — and it never calls ``policy.decide``. A policy that records who called ``decide``
proves the executor made every decision: one when the call comes, one per mode change while
it waits, none after it is settled. A subagent's ask goes the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agent_tui.core.events import Event, ToolRejected, ToolResult
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    Decision,
    Mode,
    PendingApproval,
    PermissionPipeline,
)
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.tools.builtin import read_file, run_shell, write_file
from tests.core.subagents.helpers import Routed, make_agent, reply, step
from tests.core.subagents.helpers import call as child_call

from .helpers import DEADLINE, EXECUTOR, call, executor, record_decisions, run_calls

Front = Callable[[PermissionPipeline, ApprovalRequest, PendingApproval], Awaitable[None]]


async def _run(
    tmp_path: Path, calls: list[Any], front: Front
) -> tuple[list[Event], list[ApprovalRequest], list[tuple[str, str, str]]]:
    """Run ``calls`` in default mode; ``front`` plays the user at each prompt, through the
    request's own future; the asker only waits for it, as the TUI's desk does."""
    policy = PermissionPipeline(tmp_path)
    made = record_decisions(policy)
    asked: list[ApprovalRequest] = []

    async def asker(request: ApprovalRequest) -> Approval:
        asked.append(request)
        assert request.pending is not None
        asyncio.get_running_loop().create_task(front(policy, request, request.pending))
        return await request.pending.wait()

    tools = [read_file.TOOL, write_file.TOOL, run_shell.TOOL]
    events, _ = await run_calls(executor(tmp_path, tools, policy=policy, asker=asker), calls)
    return events, asked, made


def _of(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


async def test_a_mode_change_is_judged_once_by_the_executor_and_the_call_runs(
    tmp_path: Path,
) -> None:
    told: list[Decision | None] = []

    async def front(policy: PermissionPipeline, request: ApprovalRequest, pending: Any) -> None:
        policy.set_mode(Mode.ACCEPT_EDITS)
        told.append(pending.mode_changed())

    calls = [call("w", "write_file", path="a.txt", content="x\n")]
    events, asked, made = await _run(tmp_path, calls, front)
    assert made == [("w", "default", EXECUTOR), ("w", "accept-edits", EXECUTOR)]
    assert [d.kind for d in told if d is not None] == ["allow"]
    assert len(asked) == 1
    assert len(_of(events, "permission_request")) == 1
    (result,) = _of(events, "tool_result")
    assert result.allowed_by == "accept-edits mode"
    assert (tmp_path / "a.txt").read_text() == "x\n"


async def test_a_still_ask_keeps_its_one_prompt_then_plan_rejects_it(tmp_path: Path) -> None:
    told: list[Decision | None] = []

    async def front(policy: PermissionPipeline, request: ApprovalRequest, pending: Any) -> None:
        for mode in (Mode.ACCEPT_EDITS, Mode.PLAN):
            policy.set_mode(mode)
            told.append(pending.mode_changed())
        assert pending.done
        assert pending.mode_changed() is None  # settled: nothing is judged again

    calls = [call("s", "run_shell", command="touch made")]
    events, asked, made = await _run(tmp_path, calls, front)
    assert made == [
        ("s", "default", EXECUTOR),
        ("s", "accept-edits", EXECUTOR),
        ("s", "plan", EXECUTOR),
    ]
    assert [d.kind if d else None for d in told] == ["ask", "deny"]
    assert len(asked) == 1  # one prompt, never a second
    assert len(_of(events, "permission_request")) == 1
    (rejected,) = _of(events, "tool_rejected")
    assert (rejected.by, rejected.step) == ("plan", "plan mode")
    assert not (tmp_path / "made").exists()


async def test_the_users_answer_after_a_still_ask_is_the_one_that_counts(
    tmp_path: Path,
) -> None:
    async def front(policy: PermissionPipeline, request: ApprovalRequest, pending: Any) -> None:
        policy.set_mode(Mode.ACCEPT_EDITS)
        assert pending.mode_changed().kind == "ask"
        assert pending.answer(Approval(allowed=False, feedback="not that"))
        assert not pending.answer(Approval(allowed=True))  # settled once: the first wins
        assert not pending.cancel()

    events, _, made = await _run(tmp_path, [call("s", "run_shell", command="touch made")], front)
    assert [m[1] for m in made] == ["default", "accept-edits"]
    (rejected,) = _of(events, "tool_rejected")
    assert (rejected.by, rejected.feedback) == ("user", "not that")
    assert not (tmp_path / "made").exists()


async def test_a_check_that_fails_on_the_mode_change_keeps_asking(tmp_path: Path) -> None:
    async def front(policy: PermissionPipeline, request: ApprovalRequest, pending: Any) -> None:
        policy.decide = _broken  # type: ignore[method-assign]
        assert pending.mode_changed() is None
        assert not pending.done
        pending.answer(Approval(allowed=False))

    events, _, _ = await _run(tmp_path, [call("s", "run_shell", command="touch made")], front)
    assert [r.by for r in _of(events, "tool_rejected")] == ["user"]


def _broken(request: ApprovalRequest) -> Decision:
    raise RuntimeError("the check fell over")


async def test_an_interrupt_cancels_the_future_and_both_sides_see_it(tmp_path: Path) -> None:
    policy = PermissionPipeline(tmp_path)
    made = record_decisions(policy)
    interrupted = asyncio.Event()
    seen: list[Approval | None] = []
    waiting: list[PendingApproval] = []

    async def asker(request: ApprovalRequest) -> Approval:
        assert request.pending is not None
        waiting.append(request.pending)
        request.pending.watch(seen.append)
        interrupted.set()  # Esc while the prompt is open
        return await request.pending.wait()

    ex = executor(tmp_path, [run_shell.TOOL], policy=policy, asker=asker)
    events, _ = await run_calls(ex, [call("s", "run_shell", command="touch made")], interrupted)
    (pending,) = waiting
    assert pending.cancelled
    assert seen == [None]  # told once, and told it was cancelled
    assert pending.mode_changed() is None  # and no decision after it
    assert len(made) == 1
    assert [(e.id, e.code) for e in _of(events, "tool_error")] == [("s", "interrupted")]
    assert not (tmp_path / "made").exists()


async def test_a_subagents_ask_is_judged_again_by_its_own_executor(tmp_path: Path) -> None:
    agents = tmp_path / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "writer.md").write_text(
        "---\nname: writer\ndescription: Writes files\ntools: read_file, write_file\n"
        "---\nYou write files.\n"
    )
    task = child_call("task", "t1", description="write", prompt="write it", agent="writer")
    write = child_call("write_file", "w1", path="out.txt", content="done\n")
    provider = Routed(
        [step(reply("", task)), step(reply("ok"))],
        {"write it": [step(reply("", write)), step(reply("written"))]},
    )
    policy = build_pipeline(tmp_path, persist_always=False).pipeline
    made = record_decisions(policy)
    agent = make_agent(provider, tmp_path, policy=policy)
    asked: list[ApprovalRequest] = []

    async def asker(request: ApprovalRequest) -> Approval:
        asked.append(request)
        assert request.pending is not None
        policy.set_mode(Mode.ACCEPT_EDITS)
        decision = request.pending.mode_changed()
        assert decision is not None
        assert decision.kind == "allow"
        return await request.pending.wait()

    async def collect() -> list[Event]:
        return [e async for e in agent.run("go", asker=asker)]

    events = await asyncio.wait_for(collect(), DEADLINE)
    assert [(r.call.id, r.agent) for r in asked] == [("w1", "writer")]
    assert [m for m in made if m[0] == "w1"] == [
        ("w1", "default", EXECUTOR),
        ("w1", "accept-edits", EXECUTOR),
    ]
    results = [e for e in events if isinstance(e, ToolResult) and e.id == "w1"]
    assert [r.allowed_by for r in results] == ["accept-edits mode"]
    assert not [e for e in events if isinstance(e, ToolRejected)]
    assert (tmp_path / "out.txt").read_text() == "done\n"
