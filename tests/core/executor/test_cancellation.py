"""A failing shell call cancels its running siblings; other failures do not propagate."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.executor import CallPhase
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.tools.builtin import run_shell
from tests.core.executor.helpers import (
    Probe,
    call,
    executor,
    finals,
    parallel_shell,
    run_calls,
    until_gone,
    work_tools,
)
from tests.core.helpers import of_type


def test_run_shell_declares_that_its_failure_cancels_siblings() -> None:
    assert run_shell.TOOL.meta.cancels_siblings_on_failure is True
    assert run_shell.TOOL.meta.concurrency_safe is False  # so today it always runs alone


@pytest.mark.parametrize(
    ("how", "reason"),
    [({"fail": True}, "exit 3"), ({"error": "timeout"}, "timeout")],
    ids=["non-zero-exit", "tool-error"],
)
async def test_a_failing_breaker_cancels_only_its_running_siblings(
    tmp_path: Path, how: dict[str, object], reason: str
) -> None:
    probe = Probe()
    ex = executor(tmp_path, work_tools(probe), policy=SimplePolicy({"touch"}))
    calls = [
        call("done", tag="done"),
        call("slow1", tag="slow1", hold=True),
        call(
            "b",
            "breaker",
            tag="b",
            command="make test",
            after=["done:done", "slow1:started", "slow2:started"],
            **how,
        ),
        call("slow2", tag="slow2", hold=True),
        call("after", "touch", tag="after.txt"),  # the next batch is not a sibling
        call("later", tag="later"),
    ]
    events, out = await run_calls(ex, calls)

    kinds = dict(finals(events))
    assert list(kinds) == ["done", "slow1", "b", "slow2", "after", "later"]
    assert kinds["done"] == kinds["after"] == kinds["later"] == "tool_result"
    errors = {e.id: e for e in of_type(events, "tool_error")}
    expected = f"cancelled because breaker `make test` failed ({reason})"
    for sibling in ("slow1", "slow2"):
        assert errors[sibling].code == "cancelled"
        assert errors[sibling].message == expected
        assert errors[sibling].retryable
    assert sorted(probe.cancelled) == ["slow1", "slow2"]
    if "fail" in how:
        assert kinds["b"] == "tool_result"
        assert of_type(events, "tool_result")[1].is_error
    else:
        assert errors["b"].code == "timeout"
    assert (tmp_path / "after.txt").read_text() == "touched"
    assert [m.tool_call_id for m in out] == [c.id for c in calls]
    assert expected in out[1].content
    assert out[1].is_error
    assert set(ex.states.values()) == {CallPhase.YIELDED}


async def test_failures_of_other_tools_do_not_propagate(tmp_path: Path) -> None:
    probe = Probe()
    ex = executor(tmp_path, work_tools(probe))
    calls = [
        call("f", tag="f", fail=True, after=["s:started"]),
        call("e", tag="e", error="not_found", after=["s:started"]),
        call("s", tag="s", after=["f:done", "e:done"]),
    ]
    events, _ = await run_calls(ex, calls)
    assert finals(events) == [("f", "tool_result"), ("e", "tool_error"), ("s", "tool_result")]
    assert [r.is_error for r in of_type(events, "tool_result")] == [True, False]
    assert probe.cancelled == []


async def test_a_failing_shell_kills_its_sibling_shells_process_groups(tmp_path: Path) -> None:
    """run_shell as if it were concurrency-safe: real shells, real process groups."""
    probe = Probe()
    tools = [parallel_shell(), *work_tools(probe)]
    ex = executor(tmp_path, tools, policy=SimplePolicy({"*"}))
    failing = "until [ -s c.pid ]; do sleep 0.01; done; exit 3"
    calls = [
        call("sleeper", "run_shell", command="sleep 60 & echo $! > c.pid; wait"),
        call("failing", "run_shell", command=failing),
        call("held", tag="held", hold=True),
    ]
    events, out = await run_calls(ex, calls)
    pid = int((tmp_path / "c.pid").read_text())
    await until_gone(pid)  # the sleeper's background child died with its group

    assert finals(events) == [
        ("sleeper", "tool_error"),
        ("failing", "tool_result"),
        ("held", "tool_error"),
    ]
    sleeper, held = of_type(events, "tool_error")
    expected = f"cancelled because run_shell `{failing}` failed (exit 3)"
    assert (sleeper.code, sleeper.message) == ("cancelled", expected)
    assert (held.code, held.message) == ("cancelled", expected)
    [result] = of_type(events, "tool_result")
    assert result.is_error
    assert result.content.endswith("[exit code 3]")
    assert [m.tool_call_id for m in out] == ["sleeper", "failing", "held"]
