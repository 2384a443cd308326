"""Snapshots of the spill browser's new render states (issue 38, item 9): a page of a line
too long for a row (wrapped, with bytes that are not UTF-8 drawn ``\\xNN``), and the notice
that the filter hides the spill in view."""

from __future__ import annotations

import itertools
import types
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.core.budget import store as store_module
from agent_tui.core.budget.store import SpillStore
from agent_tui.ui.spills import spill_list

from .helpers import make_agent, make_app, open_browser, wait_for

SnapCompare = Callable[..., bool]
SIZE = (130, 36)


@pytest.fixture(autouse=True)
def _pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spill names with known tokens, times shown in UTC."""
    tokens = (f"{n:04x}" for n in itertools.count(0xB000))
    fake = types.SimpleNamespace(token_hex=lambda n: next(tokens)[: 2 * n].rjust(2 * n, "0"))
    monkeypatch.setattr(store_module, "secrets", fake)
    monkeypatch.setattr(spill_list, "DISPLAY_TZ", UTC)


def one_line_json() -> bytes:
    """A 60,000-byte one-line JSON output with two bytes that are not UTF-8 early on its
    second page."""
    items = [f'{{"id": {n}, "name": "item-{n}", "ok": true}}' for n in range(2000)]
    data = ("[" + ", ".join(items) + "]").encode()
    return data[:2100] + b"\xff\xfe" + data[2100:60_000]


def test_a_page_of_a_long_line(snap_compare: SnapCompare, tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    store = SpillStore(agent.spills.root, agent.cwd, durable=False)
    when = datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC)
    record = store.write_bytes([one_line_json()], "run_shell", "call_7_1", when, summary="curl")

    async def run_before(pilot: Pilot[Any]) -> None:
        browser = await open_browser(pilot, record.shown)
        browser.viewer.focus()
        await pilot.press("pagedown")
        window = browser.view.window
        assert window is not None
        assert window.segment
        await pilot.pause()

    assert snap_compare(make_app(agent), terminal_size=SIZE, run_before=run_before)


def test_the_filter_hides_the_spill_in_view(snap_compare: SnapCompare, tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    store = SpillStore(agent.spills.root, agent.cwd, durable=False)
    store.write("src/a.py:1: TODO\n", "grep", "call_2_1", datetime(2026, 1, 4, tzinfo=UTC))
    store.write(
        "".join(f"ok test_{n}\n" for n in range(300)),
        "run_shell",
        "call_3_1",
        datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC),
        summary="pytest -q",
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        browser = await open_browser(pilot)
        await pilot.press("f", *"grep")
        await wait_for(pilot, lambda: browser.has_class("-hidden"), "the viewer hidden")
        await pilot.pause()

    assert snap_compare(make_app(agent), terminal_size=SIZE, run_before=run_before)
