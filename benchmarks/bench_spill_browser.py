"""Spill browser benchmark: opening a spill and jumping to its end, 1 GB against 1 MB.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_spill_browser.py            # the README figures
    PYTHONPATH=src python benchmarks/bench_spill_browser.py --quick    # 100 MB instead of 1 GB

Both spills are written with the streaming spill writer (the 1 GB one in 4 MB pieces) in a
temporary directory (``--dir`` chooses its parent), removed at the end. Measured, for each:

- the core calls the browser makes: open (check the pointer, read the first window) and end
  (find the last window under read_file's caps, read it), warm and cold page cache;
- the browser itself, in the real app run headless (``App.run_test``, 120×40): from the open
  action (what ``o`` on a card or Ctrl+O does) to the window on screen, and from the ``G`` key
  to the last window on screen, warm and cold; a key that only scrolls one row is the floor;
- a search through the whole file for a line at its end (core, and through the app's ``/``);
- the process's peak memory over the browser steps on the big spill (Linux ``VmHWM``).

Timings are medians of several runs (wall clock).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_budget import MB, evict, lines_text

from agent_tui.core.agent.agent import Agent
from agent_tui.core.browse import (
    open_reader,
    read_window,
    resolve_spill,
    window_ending_at,
    window_of,
)
from agent_tui.core.browse.search import search_spill
from agent_tui.core.budget.index import index_path
from agent_tui.core.budget.store import SpillRecord, SpillStore
from agent_tui.core.providers.demo import DemoProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.app import AgentApp
from agent_tui.ui.spills.browser import SpillBrowser

NEEDLE = "LAST LINE: the needle"
SIZE = (120, 40)


class BenchApp(AgentApp):
    CURSOR_BLINK = False


def report(label: str, value: str) -> None:
    print(f"| {label:<62} | {value:>20} |", flush=True)


def write_spill(store: SpillStore, size: int, name: str) -> SpillRecord:
    chunk = lines_text(min(4 * MB, size))
    with store.open_writer("run_shell", name) as writer:
        for _ in range(max(size // len(chunk), 1)):
            writer.write(chunk)
        writer.write(NEEDLE + "\n")
        return writer.commit()


def cold(record: SpillRecord) -> None:
    evict(record.path)
    evict(index_path(record.path))


def median_ms(run: Callable[[], object], repeat: int, before: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def median_ms_async(
    run: Callable[[], Awaitable[object]], repeat: int, before: Callable[[], Awaitable[object]]
) -> float:
    times = []
    for _ in range(repeat):
        await before()
        start = time.perf_counter()
        await run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def reset_peak() -> int:
    """Start the process's peak resident set (``VmHWM``) again from now; the RSS now (kB)."""
    Path("/proc/self/clear_refs").write_text("5")
    return status_kb("VmRSS")


def status_kb(field: str) -> int:
    found = re.search(rf"{field}:\s+(\d+) kB", Path("/proc/self/status").read_text())
    return int(found.group(1)) if found else 0


def bench_core(store: SpillStore, record: SpillRecord, label: str, repeat: int) -> None:
    def open_first() -> None:
        path = resolve_spill(store, record.shown)
        window = read_window(path, record.shown, 1, 2000)
        assert window.offset == 1

    def jump_end() -> None:
        with open_reader(record.path, record.shown) as reader:
            start = window_ending_at(reader, reader.lines, 2000)
            window = window_of(reader, record.shown, start, 2000)
        assert window.last == record.lines

    for kind, before in (("warm", lambda: None), ("cold", lambda: cold(record))):
        report(
            f"{label}: core open + first window, {kind}",
            f"{median_ms(open_first, repeat, before):,.2f} ms",
        )
        report(
            f"{label}: core last window (G), {kind}",
            f"{median_ms(jump_end, repeat, before):,.2f} ms",
        )


async def bench_ui(
    app: BenchApp, record: SpillRecord, label: str, repeat: int, memory: bool
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()

        async def settle(condition: Callable[[], bool]) -> None:
            """Wait for ``condition`` the way a user does: the app runs, this task sleeps
            (spinning ``pilot.pause()`` would keep the event loop busy and slow the search
            thread, which needs the GIL back after each read), then one refresh."""
            deadline = time.monotonic() + 120
            while not condition():
                assert time.monotonic() < deadline, "timed out"
                await asyncio.sleep(0.005)
            await pilot.pause()

        def browser() -> SpillBrowser:
            screen = app.screen
            assert isinstance(screen, SpillBrowser)
            return screen

        async def open_it() -> None:
            app.action_open_spill(record.shown)
            await settle(lambda: isinstance(app.screen, SpillBrowser))
            await settle(lambda: browser().view.window is not None)
            await pilot.pause()

        async def close_it() -> None:
            if isinstance(app.screen, SpillBrowser):
                await pilot.press("q")
                await settle(lambda: not isinstance(app.screen, SpillBrowser))

        async def to_end() -> None:
            await pilot.press("G")
            window = browser().view.window
            assert window is not None
            assert window.last == record.lines

        async def to_start() -> None:
            browser().go_to_line(1)
            await pilot.pause()

        async def scroll_row() -> None:
            await pilot.press("j")

        async def cold_close() -> None:
            await close_it()
            cold(record)

        async def cold_start() -> None:
            await to_start()
            cold(record)

        async def nothing() -> None:
            return None

        if memory:
            base = reset_peak()
        for kind, before_open, before_end in (
            ("warm", close_it, to_start),
            ("cold", cold_close, cold_start),
        ):
            ms = await median_ms_async(open_it, repeat, before_open)
            report(f"{label}: app, open action → first window shown, {kind}", f"{ms:,.0f} ms")
            ms = await median_ms_async(to_end, repeat, before_end)
            report(f"{label}: app, G → last window shown, {kind}", f"{ms:,.0f} ms")
        ms = await median_ms_async(scroll_row, repeat, nothing)
        report(f"{label}: app, floor: a key that scrolls one row", f"{ms:,.0f} ms")

        for kind in ("cold", "warm"):  # cold first: the cold search warms the cache
            await to_start()
            if kind == "cold":
                cold(record)
            await pilot.press("slash", *NEEDLE[:9])
            start = time.perf_counter()
            await pilot.press("enter")
            await settle(lambda: not browser().searching)
            seconds = time.perf_counter() - start
            hit = browser().view.hit
            assert hit is not None, browser().status.text
            assert hit.line == record.lines
            report(
                f"{label}: app, / Enter → match on the last line shown, {kind}", f"{seconds:,.2f} s"
            )
        if memory:
            grown = (status_kb("VmHWM") - base) / 1024
            report(f"{label}: peak memory growth over all app steps", f"{grown:,.0f} MB")


def bench_search(record: SpillRecord, label: str) -> None:
    """Search the whole file for its last line: warm cache (read once before), then cold."""
    mb = record.bytes / MB
    for kind in ("warm", "cold"):
        for query, case in ((NEEDLE[:9], "matching case"), (NEEDLE[:9].lower(), "ignoring case")):
            if kind == "cold":
                cold(record)
            else:
                search_spill(record.path, query, 0)
            start = time.perf_counter()
            hit = search_spill(record.path, query, 0)
            seconds = time.perf_counter() - start
            assert hit is not None
            assert hit.line == record.lines
            took = f"{seconds * 1000:,.1f} ms" if seconds < 1 else f"{seconds:,.2f} s"
            rate = f"{took} ({mb / seconds:,.0f} MB/s)"
            report(f"{label}: core search to the last line, {case}, {kind}", rate)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 MB instead of 1 GB")
    parser.add_argument("--dir", type=Path, help="where to create the temporary data")
    parser.add_argument("--huge-gb", type=float, default=1.0, help="size of the big spill")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    big = int((0.1 if args.quick else args.huge_gb) * 1e9)
    root = Path(tempfile.mkdtemp(prefix="agent-tui-bench-", dir=args.dir))
    os.environ.setdefault("AGENT_TUI_DATA_DIR", str(root / "data"))
    os.environ.setdefault("AGENT_TUI_CONFIG_DIR", str(root / "config"))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, data in {root}\n")
    try:
        agent = Agent(DemoProvider(delay=0), default_registry(), root, system="bench")
        store = agent.spills
        start = time.perf_counter()
        small = write_spill(store, 1 * MB, "small")
        large = write_spill(store, big, "large")
        print(
            f"spills written in {time.perf_counter() - start:,.1f} s: "
            f"{small.bytes / MB:,.1f} MB ({small.lines:,} lines), "
            f"{large.bytes / MB:,.0f} MB ({large.lines:,} lines)\n"
        )
        print(f"| {'measure':<62} | {'result':>20} |")
        print(f"|{'-' * 64}|{'-' * 22}|")
        for record, label in ((small, "1 MB"), (large, f"{large.bytes / 1e9:.1f} GB")):
            bench_core(store, record, label, args.repeat)
        for record, label in ((small, "1 MB"), (large, f"{large.bytes / 1e9:.1f} GB")):
            app = BenchApp(agent=agent, cwd_label="~/bench")
            asyncio.run(bench_ui(app, record, label, args.repeat, memory=record is large))
        for record, label in ((small, "1 MB"), (large, f"{large.bytes / 1e9:.1f} GB")):
            bench_search(record, label)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
