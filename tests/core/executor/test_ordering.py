"""Batches, request order, progress out of order, and the per-call lifecycle (seed 3.5)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_tui.core.events import Event, ToolGroup
from agent_tui.core.executor import STARTED_MESSAGE, CallPhase, Lifecycle, Transition
from tests.core.executor.helpers import (
    DEADLINE,
    Probe,
    call,
    executor,
    finals,
    position,
    run_calls,
    work_tools,
)
from tests.core.helpers import of_type

Q, E, C, Y = CallPhase.QUEUED, CallPhase.EXECUTING, CallPhase.COMPLETED, CallPhase.YIELDED


def path(history: list[Transition], call_id: str) -> list[CallPhase]:
    return [t.state for t in history if t.call_id == call_id]


async def test_a_slow_first_call_and_a_fast_second_yield_in_request_order(tmp_path: Path) -> None:
    probe = Probe()
    fast_completed = asyncio.Event()

    def listen(transition: Transition) -> None:
        if transition.call_id == "fast" and transition.state is C:
            fast_completed.set()

    ex = executor(tmp_path, work_tools(probe), on_transition=listen)
    seen: list[Event] = []
    calls = [call("slow", tag="slow", hold=True), call("fast", tag="fast")]
    run = asyncio.create_task(run_calls(ex, calls, on_event=seen.append))
    async with asyncio.timeout(DEADLINE):
        await fast_completed.wait()
    # the fast call is done, but its result waits for the slow one before it
    assert ex.states == {"slow": E, "fast": C}
    assert finals(seen) == []
    probe.signal("release").set()
    events, out = await run

    assert events[0] == ToolGroup(ids=["slow", "fast"])
    assert finals(events) == [("slow", "tool_result"), ("fast", "tool_result")]
    assert [m.tool_call_id for m in out] == ["slow", "fast"]
    assert [m.content for m in out] == ["slow ok", "fast ok"]
    # progress bypasses the order: the fast call's progress comes before the slow result
    slow_result = position(events, "tool_result", "slow")
    assert position(events, "tool_progress", "fast", STARTED_MESSAGE) < slow_result
    fast_lines = [e for e in of_type(events, "tool_progress") if e.id == "fast" and e.tail]
    assert fast_lines[0].tail == ["fast working"]
    assert events.index(fast_lines[0]) < slow_result
    # the four states, and "completed" before "yielded" in the order the seed describes
    assert ex.states == {"slow": Y, "fast": Y}
    history = ex.lifecycle.history
    assert path(history, "slow") == path(history, "fast") == [Q, E, C, Y]
    ends = [(t.call_id, t.state) for t in history if t.state in (C, Y)]
    assert ends == [("fast", C), ("slow", C), ("slow", Y), ("fast", Y)]


async def test_every_call_announces_its_start_once_and_before_its_result(tmp_path: Path) -> None:
    ex = executor(tmp_path, work_tools(Probe()))
    calls = [call(f"c{n}", tag=f"c{n}") for n in range(3)]
    events, _ = await run_calls(ex, calls)
    for c in calls:
        started = [
            e
            for e in of_type(events, "tool_progress")
            if e.id == c.id and e.message == STARTED_MESSAGE
        ]
        assert len(started) == 1
        assert started[0].elapsed == 0.0
        assert events.index(started[0]) < position(events, "tool_result", c.id)
    # the group comes before any call of it starts
    assert events[0].type == "tool_group"


async def test_calls_that_never_run_skip_executing_and_do_not_announce_a_start(
    tmp_path: Path,
) -> None:
    ex = executor(tmp_path, work_tools(Probe()))  # SimplePolicy, no asker: touch is rejected
    calls = [
        call("bad", "work", nope=1),
        call("missing", "no_such_tool"),
        call("denied", "touch", tag="f.txt"),
        call("ok", tag="ok"),
    ]
    events, out = await run_calls(ex, calls)
    assert finals(events) == [
        ("bad", "tool_error"),
        ("missing", "tool_error"),
        ("denied", "tool_rejected"),
        ("ok", "tool_result"),
    ]
    started = {e.id for e in of_type(events, "tool_progress") if e.message == STARTED_MESSAGE}
    assert started == {"ok"}
    history = ex.lifecycle.history
    for call_id in ("bad", "missing", "denied"):
        assert path(history, call_id) == [Q, C, Y]
    assert path(history, "ok") == [Q, E, C, Y]
    assert [m.tool_call_id for m in out] == ["bad", "missing", "denied", "ok"]
    assert not (tmp_path / "f.txt").exists()


def test_the_lifecycle_only_moves_forward() -> None:
    seen: list[Transition] = []
    life = Lifecycle(["a", "b"], seen.append)
    life.advance(0, E)
    life.advance(0, E)  # re-entering the current state is a no-op
    life.advance(0, C)
    life.advance(1, C)  # never ran: straight to completed
    assert life.states == {"a": C, "b": C}
    assert life.count(C) == 2
    with pytest.raises(ValueError, match="cannot go from completed to executing"):
        life.advance(0, E)
    with pytest.raises(ValueError, match="from queued to yielded"):
        Lifecycle(["x"]).advance(0, Y)  # a result is yielded only once it is completed
    assert [(t.call_id, t.state) for t in seen] == [("a", E), ("a", C), ("b", C)]


def test_a_broken_listener_does_not_break_the_lifecycle() -> None:
    def boom(_: Transition) -> None:
        raise RuntimeError("observer bug")

    life = Lifecycle(["a"], boom)
    life.advance(0, E)
    assert life.state(0) is E
