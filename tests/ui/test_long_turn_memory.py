"""A long turn does not keep what it no longer shows (issue 38, item 12): a compaction folds
the lane's cards of the calls before it (they all ended), and what the screen let go of is
collected at each model request's end, not only when the turn ends."""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import ModelSettings, Settings
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.lane.compaction_mark import CompactionMark
from agent_tui.ui.lane.turn_block import TurnBlock
from agent_tui.ui.shell import heap

from .helpers import SIZE, make_agent, make_app, submit, wait_for

CALLS = 14


def compacting_agent(cwd: Path) -> Agent:
    """One turn of ``CALLS`` reads of a 4 KB file, with a model window it fills in a few
    (each compaction takes one scripted answer as its summary)."""
    (cwd / "big.txt").write_text("".join(f"{n:04d} {'x' * 90}\n" for n in range(40)))
    turns: list[dict[str, Any]] = [
        {
            "text": f"Step {n}.",
            "tool_calls": [{"name": "read_file", "arguments": {"path": "big.txt"}}],
        }
        for n in range(CALLS)
    ]
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": [*turns, {"text": "Done."}]}), encoding="utf-8")
    settings = Settings(model=ModelSettings(context_window=8192, max_output_tokens=1024))
    agent = Agent(
        ScriptProvider(script), default_registry(), cwd, policy=SimplePolicy(("read_file",)),
        system="test", settings=settings,
    )  # fmt: skip
    agent.max_turns = CALLS + 5
    return agent


async def test_a_compaction_folds_the_lanes_cards_before_it(tmp_path: Path) -> None:
    """The blocks of the calls before a compaction fold at once (their calls all ended), so
    a turn that compacts again and again keeps one block's cards mounted; they stayed open
    until the next prompt."""
    app = make_app(compacting_agent(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_for(pilot, lambda: not app.busy, "the long turn to end", timeout=180)
        lane = app.main.lane
        marks = list(lane.query(CompactionMark))
        assert marks, "the turn compacted"
        blocks = list(lane.query(TurnBlock))
        assert len(blocks) == len(marks) + 1  # a block before each mark, one after the last
        assert [block.folded for block in blocks] == [True] * len(marks) + [False]
        last = blocks[-1]
        assert last.virtual_region.y > marks[-1].virtual_region.y


class Node:
    """An object in a reference cycle (only the cyclic collector frees it)."""

    def __init__(self) -> None:
        self.me = self


async def test_a_model_requests_end_collects_what_the_heap_let_die(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app freezes the heap after each full collection, so a cycle that dies after it
    (a reply, a row, a card that left the screen) waits for a collection of everything: at a
    model request's end once the heap grew, not only at the turn's end (300 calls later)."""
    monkeypatch.setattr(heap, "REFREEZE_GROWTH", 0)  # any growth: collect at the next chance
    waiting = "while [ ! -e go ]; do sleep 0.05; done; echo went"
    turns = [
        {"text": "First.", "tool_calls": [{"name": "run_shell", "arguments": {"command": "true"}}]},
        {
            "text": "Second.",
            "tool_calls": [{"name": "run_shell", "arguments": {"command": waiting}}],
        },
        {"text": "Done."},
    ]
    agent = make_agent(tmp_path, turns, allow=("run_shell",))
    app = make_app(agent)
    app.QUIET_GC = True  # as in the app's own process
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: heap._State.installed, "the heap tuned")
            node = Node()
            dead = weakref.ref(node)
            gc.collect()  # a full collection: its survivors (the node) are frozen
            del node
            gc.collect()
            assert dead() is not None  # frozen: no collection sees it
            await submit(pilot, "go")
            await wait_for(pilot, lambda: dead() is None, "the dead cycle collected", timeout=30)
            assert app.busy  # the turn goes on: its second call waits
            (tmp_path / "go").touch()
            await wait_for(pilot, lambda: not app.busy, "the turn to end")
    finally:
        heap.release()
        gc.collect()
