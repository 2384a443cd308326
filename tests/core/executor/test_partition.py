"""The partition (seed 3.4) and the ``executor`` settings section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.executor import MAX_PARALLEL, CallPlan, partition, plan_calls
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import Settings, load_settings
from agent_tui.core.tools import ToolRegistry
from tests.core.executor.helpers import Probe, call, work_tools
from tests.core.helpers import write_script


def plans(*kinds: str) -> list[CallPlan]:
    """``s`` a concurrency-safe call, ``u`` an unsafe one, ``x`` one that failed to prepare."""
    registry = ToolRegistry(work_tools(Probe()))
    calls = []
    for n, kind in enumerate(kinds):
        name = {"s": "work", "u": "touch", "x": "no_such_tool"}[kind]
        calls.append(call(f"{kind}{n}", name, tag=f"t{n}"))
    return plan_calls(registry, calls)


def shape(batches: list[list[CallPlan]]) -> list[list[str]]:
    return [[p.call.id for p in batch] for batch in batches]


def test_consecutive_safe_calls_share_a_batch_and_anything_else_runs_alone() -> None:
    # the seed's example: [Read, Read, Bash, Read] is three batches, not two
    assert shape(partition(plans("s", "s", "u", "s"))) == [["s0", "s1"], ["u2"], ["s3"]]
    assert shape(partition(plans("u", "u"))) == [["u0"], ["u1"]]
    # a call that failed before it could run (unknown tool) is unsafe: it cuts the run
    assert shape(partition(plans("s", "x", "s", "s"))) == [["s0"], ["x1"], ["s2", "s3"]]
    assert partition([]) == []


def test_a_batch_holds_at_most_max_parallel_calls() -> None:
    twelve = plans(*"s" * 12)
    assert [len(b) for b in partition(twelve)] == [MAX_PARALLEL, 2]
    assert [len(b) for b in partition(twelve, max_parallel=5)] == [5, 5, 2]
    assert [len(b) for b in partition(twelve, max_parallel=1)] == [1] * 12
    with pytest.raises(ValueError, match="at least 1"):
        partition(twelve, max_parallel=0)


def test_plans_keep_request_order_and_index() -> None:
    result = plans("u", "s", "x")
    assert [p.index for p in result] == [0, 1, 2]
    assert [p.concurrency_safe for p in result] == [False, True, False]
    assert result[2].error is not None
    assert result[2].error.code == "unknown_tool"


def test_the_executor_settings_section(tmp_path: Path) -> None:
    assert Settings().executor.max_parallel == 10
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"executor": {"max_parallel": 3}}))
    loaded = load_settings(tmp_path, paths=[good])
    assert loaded.problems == []
    assert loaded.settings.executor.max_parallel == 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"executor": {"max_parallel": 0}}))
    loaded = load_settings(tmp_path, paths=[bad])
    assert loaded.settings.executor.max_parallel == 10
    assert "max_parallel" in loaded.messages()[0]
    script = write_script(tmp_path / "script.json", [{"text": "hi"}])
    settings = Settings.model_validate({"executor": {"max_parallel": 4}})
    agent = Agent(ScriptProvider(script), ToolRegistry(), tmp_path, settings=settings)
    assert agent.executor.max_parallel == 4
