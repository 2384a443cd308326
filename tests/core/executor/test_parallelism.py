"""Parallel batches: they really overlap, and ``max_parallel`` caps them."""

from __future__ import annotations

import time
from pathlib import Path

from tests.core.executor.helpers import Probe, call, executor, finals, run_calls, work_tools
from tests.core.helpers import of_type


async def test_ten_read_only_calls_of_200_ms_run_at_once(tmp_path: Path) -> None:
    probe = Probe()
    ex = executor(tmp_path, work_tools(probe))
    calls = [call(f"c{n}", tag=f"c{n}", seconds=0.2) for n in range(10)]
    began = time.monotonic()
    events, out = await run_calls(ex, calls)
    took = time.monotonic() - began
    assert probe.peak == 10  # all ten were running at the same time
    assert took < 1.5  # one after another would take at least 2 s
    ids = [c.id for c in calls]
    assert [g.ids for g in of_type(events, "tool_group")] == [ids]
    assert finals(events) == [(i, "tool_result") for i in ids]
    assert [m.tool_call_id for m in out] == ids
    assert all(r.elapsed >= 0.2 for r in of_type(events, "tool_result"))


async def test_max_parallel_caps_how_many_run_at_once(tmp_path: Path) -> None:
    probe = Probe()
    ex = executor(tmp_path, work_tools(probe), max_parallel=3)
    calls = [call(f"c{n}", tag=f"c{n}", seconds=0.02) for n in range(10)]
    events, out = await run_calls(ex, calls)
    assert probe.peak == 3
    # the run runs three at a time, and is still one group to the user (issue 41, item 7)
    groups = [g.ids for g in of_type(events, "tool_group")]
    assert groups == [[c.id for c in calls]]
    assert [m.tool_call_id for m in out] == [c.id for c in calls]
    assert all(m.record is not None and m.record.group == groups[0] for m in out)


async def test_sixty_reads_of_one_message_are_one_group(tmp_path: Path) -> None:
    probe = Probe()
    ex = executor(tmp_path, work_tools(probe))
    calls = [call(f"c{n}", tag=f"c{n}") for n in range(60)]
    events, out = await run_calls(ex, calls)
    assert probe.peak <= 10  # max_parallel still caps what runs at once
    assert [g.ids for g in of_type(events, "tool_group")] == [[c.id for c in calls]]
    assert [m.tool_call_id for m in out] == [c.id for c in calls]


async def test_an_unsafe_call_runs_alone_between_parallel_batches(tmp_path: Path) -> None:
    probe = Probe()
    ex = executor(tmp_path, work_tools(probe), policy=None)
    ex.policy.allowed.add("touch")  # type: ignore[attr-defined]
    calls = [
        call("a", tag="a", seconds=0.02),
        call("b", tag="b", seconds=0.02),
        call("t", "touch", tag="t.txt"),
        call("c", tag="c"),
    ]
    events, _ = await run_calls(ex, calls)
    assert [g.ids for g in of_type(events, "tool_group")] == [["a", "b"]]
    assert probe.calls == ["a", "b", "t.txt", "c"]
    assert (tmp_path / "t.txt").read_text() == "touched"
