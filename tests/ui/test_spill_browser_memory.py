"""A 200 MB spill in the browser: open, page, go to a line, jump to the end and search both
ways with the process's memory growing by far less than the file (it is never loaded).

Memory is the peak resident set of this process (Linux ``VmHWM``, reset before the steps by
writing 5 to ``/proc/self/clear_refs``) over the resident set before them: everything the
steps allocate, the search thread's reads included, however briefly. Where the peak cannot be
reset, Python's own allocations are traced instead (``tracemalloc``, slower)."""

from __future__ import annotations

import re
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

from agent_tui.core.budget.store import SpillRecord, SpillStore
from agent_tui.ui.spills.browser import SpillBrowser

from .helpers import SIZE, make_agent, make_app, wait_for

LINES = 2_500_000
FILLER = "0123456789abcdefghijklmnopqrstuvwxyz" * 2  # every line is 83 bytes
NEEDLES = (1_000_000, 2_000_000)
BLOCK = 10_000
BUDGET = 100 * 1024 * 1024


def write_big(store: SpillStore) -> SpillRecord:
    """~200 MB streamed through the spill writer, a block of lines at a time."""
    when = datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC)
    with store.open_writer("run_shell", "call_big", when) as writer:
        for start in range(1, LINES + 1, BLOCK):
            block = "".join(f"{n:09d} row {FILLER}\n" for n in range(start, start + BLOCK))
            for needle in NEEDLES:
                if start <= needle < start + BLOCK:
                    block = block.replace(f"{needle:09d} row", f"{needle:09d} Needle", 1)
            writer.write(block)
        return writer.commit()


def status(field: str) -> int:
    found = re.search(rf"{field}:\s+(\d+) kB", Path("/proc/self/status").read_text())
    assert found is not None, field
    return int(found.group(1)) * 1024


class PeakMemory:
    """Growth of the peak memory of this process from ``start()``."""

    def start(self) -> None:
        try:
            Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from here
            self.base = status("VmRSS")
            self.traced = False
        except OSError:
            tracemalloc.start()
            self.traced = True

    def growth(self) -> int:
        if self.traced:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            return peak
        return status("VmHWM") - self.base


async def test_a_200_mb_spill_pages_jumps_and_searches_in_bounded_memory(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    record = write_big(SpillStore(agent.spills.root, agent.cwd, durable=False))
    assert record.bytes > 200_000_000
    assert record.lines == LINES
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        memory = PeakMemory()
        memory.start()
        app.action_open_spill(record.shown)
        await wait_for(pilot, lambda: isinstance(app.screen, SpillBrowser), "the browser")
        browser = app.screen
        assert isinstance(browser, SpillBrowser)
        await pilot.pause()

        def first_row() -> str:
            return browser.viewer.rows[0].text

        def shown() -> tuple[int, int]:
            assert browser.view.window is not None
            return browser.view.window.offset, browser.view.window.last

        assert shown()[0] == 1
        assert first_row().startswith("000000001 row")
        await pilot.press("pagedown")
        offset, _last = shown()
        assert offset > 1000
        assert first_row().startswith(f"{offset:09d} row")
        await pilot.press("g", *"1234567", "enter")
        assert shown()[0] == 1_234_567
        assert first_row().startswith("001234567 row")
        await pilot.press("G")
        assert shown()[1] == LINES
        assert browser.viewer.rows[-1].text.startswith(f"{LINES:09d} row")

        async def search(*keys: str) -> int:
            await pilot.press(*keys)
            await wait_for(pilot, lambda: not browser.searching, "the search", timeout=60)
            await pilot.pause()
            assert browser.view.hit is not None, browser.status.text
            return browser.view.hit.line

        await pilot.press("g", "1", "enter")
        assert await search("slash", *"Needle", "enter") == NEEDLES[0]
        assert first_row().startswith(f"{NEEDLES[0]:09d} Needle")
        assert await search("n") == NEEDLES[1]
        assert await search("N") == NEEDLES[0]
        assert await search("N") == NEEDLES[1]  # backward past the start: wraps
        assert browser.view.hit is not None
        assert browser.view.hit.wrapped
        assert await search("question_mark", *"needle", "enter") == NEEDLES[0]
        grown = memory.growth()
    print(f"peak memory growth: {grown / 1e6:.1f} MB")
    assert grown < BUDGET, f"the peak memory grew by {grown / 1e6:.1f} MB"
