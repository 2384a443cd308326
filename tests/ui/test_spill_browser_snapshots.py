"""Snapshots of the spill browser: a spill with a search match (dark and light themes), no
spills yet, and a spill that cannot be shown. Spill names, times and sizes are pinned."""

from __future__ import annotations

import itertools
import types
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.budget import store as store_module
from agent_tui.core.budget.index import index_path
from agent_tui.core.budget.store import SpillRecord, SpillStore
from agent_tui.core.transcript import Message, ToolCall
from agent_tui.ui.spills import spill_list

from .helpers import make_agent, make_app, open_browser, wait_for

SnapCompare = Callable[..., bool]
SIZE = (130, 36)


@pytest.fixture(autouse=True)
def _pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spill names with known tokens, times shown in UTC."""
    tokens = (f"{n:04x}" for n in itertools.count(0xA000))
    fake = types.SimpleNamespace(token_hex=lambda n: next(tokens)[: 2 * n].rjust(2 * n, "0"))
    monkeypatch.setattr(store_module, "secrets", fake)
    monkeypatch.setattr(spill_list, "DISPLAY_TZ", UTC)


def build_log() -> str:
    rows = []
    for n in range(1, 401):
        if n % 50 == 0:
            rows.append(f"FAIL test_case_{n}\tAssertionError: expected 200, got 500\x1b[0m")
        else:
            rows.append(f"ok   test_case_{n}\t{n % 13} ms")
    return "\n".join(rows) + "\n"


def spills(agent: Agent) -> tuple[SpillRecord, SpillRecord]:
    """A run_shell log the live transcript points to (its command comes from the live call)
    and a grep spill whose index keeps what the call was."""
    store = SpillStore(agent.spills.root, agent.cwd, durable=False)
    log = store.write(
        build_log(), "run_shell", "call_3_1", datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC)
    )
    grep = store.write(
        "src/app.py:12: TODO\n" * 40 + "x" * 3000 + "\n",
        "grep",
        "call_4_2",
        datetime(2026, 1, 5, 14, 30, 2, tzinfo=UTC),
        summary="TODO|FIXME in src/agent_tui/ui/spills/browser.py",  # kept in its index
    )
    call = ToolCall(id="call_3_1", name="run_shell", arguments='{"command": "pytest"}')
    agent.messages += [
        Message.assistant("", [call]),
        Message.tool(call, f"…FAIL test_case_400… The full output is in {log.shown}."),
    ]
    return log, grep


@pytest.mark.parametrize("theme", ["agent-dark", "agent-light"])
def test_browser_with_a_search_match(snap_compare: SnapCompare, tmp_path: Path, theme: str) -> None:
    agent = make_agent(tmp_path, [])
    log, _ = spills(agent)

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.theme = theme
        browser = await open_browser(pilot, log.shown)
        await pilot.press("w", "ctrl+u", *"120", "enter")
        await pilot.press("slash", *"expected 200", "enter")
        await wait_for(pilot, lambda: not browser.searching, "the search")
        await pilot.pause()

    assert snap_compare(make_app(agent), terminal_size=SIZE, run_before=run_before)


def test_browser_with_no_spills_yet(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_browser(pilot)

    app = make_app(make_agent(tmp_path, []))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_browser_on_a_spill_it_cannot_show(snap_compare: SnapCompare, tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    _, grep = spills(agent)
    index_path(grep.path).unlink()

    async def run_before(pilot: Pilot[Any]) -> None:
        browser = await open_browser(pilot)
        assert browser.view.error is not None

    assert snap_compare(make_app(agent), terminal_size=SIZE, run_before=run_before)


def test_browser_on_a_small_terminal(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """80×24: the list narrows to a fixed width so the viewer keeps most of the screen."""
    agent = make_agent(tmp_path, [])
    log, _ = spills(agent)

    async def run_before(pilot: Pilot[Any]) -> None:
        browser = await open_browser(pilot, log.shown)
        assert browser.has_class("-narrow")

    assert snap_compare(make_app(agent), terminal_size=(80, 24), run_before=run_before)
