"""Output-budget benchmarks: a big command output, spilling, paging a huge spill, compression.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_budget.py            # the figures in README.md
    PYTHONPATH=src python benchmarks/bench_budget.py --quick    # small sizes, a few seconds

Everything is created in a temporary directory (``--dir`` to choose where) and removed at
the end. Timings are wall-clock medians of several runs unless the row says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.budget import BudgetSettings, PendingResult, SpillStore, apply_budget
from agent_tui.core.budget.compress import compress_log
from agent_tui.core.budget.index import index_path
from agent_tui.core.budget.raw import RawOutput
from agent_tui.core.budget.store import SpillRecord
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools import ToolRegistry
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import read_file, run_shell

MB = 1_000_000


def lines_text(size: int, seed: int = 0) -> str:
    """About ``size`` characters of varied, line-shaped output (ASCII and some UTF-8)."""
    block = "".join(
        f"row {n}: id={n * 7 + seed} name=user_{n} email=user_{n}@example.com city=Zürich ok\n"
        for n in range(10_000)
    )
    return (block * (size // len(block) + 1))[:size]


def vitest_like_log(size: int) -> str:
    """A test log: mostly passing lines, a failure with a stack trace every ~500 lines."""
    block = [
        f"   ✓ src/mod_{n % 40}.test.ts > suite > handles case {n} {n % 9 + 1}ms"
        for n in range(500)
    ]
    block += [
        " FAIL  src/mod_3.test.ts > suite > rejects bad input",
        "AssertionError: expected 'ok' to be 'fail' // Object.is equality",
        "    at /home/dev/project/src/mod_3.test.ts:23:17",
        "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
    ]
    text = "\n".join(block) + "\n"
    return (text * (size // len(text) + 1))[:size]


def coloured(text: str) -> str:
    """``text`` as a test runner forced to colour prints it (vitest with FORCE_COLOR=1)."""
    return (
        text.replace("✓", "\x1b[32m✓\x1b[39m")
        .replace(" > ", "\x1b[2m > \x1b[22m")
        .replace(" FAIL ", "\x1b[31m\x1b[1m\x1b[7m FAIL \x1b[27m\x1b[22m\x1b[39m")
        .replace("AssertionError", "\x1b[31m\x1b[1mAssertionError\x1b[22m\x1b[39m")
    )


def median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def evict(path: Path) -> None:
    """Drop a file from the page cache (a cold read), where the platform allows it."""
    if not hasattr(os, "posix_fadvise"):
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def report(label: str, value: str) -> None:
    print(f"| {label:<58} | {value:>22} |", flush=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_shell(root: Path, lines: int) -> None:
    """``seq 1 N`` through the agent as the model would call it: run_shell (the output kept
    in its spool file), log compression (nothing to fold), the budget, the spill of the exact
    bytes. Run first: the peak RSS is then this part's."""
    command = f"seq 1 {lines} | tee seq.txt"
    call = {"id": "c", "name": "run_shell", "arguments": {"command": command}}
    script = root / "script.json"
    script.write_text(json.dumps({"turns": [{"tool_calls": [call]}, {"text": "done"}]}))
    registry = ToolRegistry([run_shell.TOOL])
    policy = SimplePolicy(["run_shell"])
    agent = Agent(ScriptProvider(script), registry, root, policy=policy, settings=Settings())

    async def run() -> list[Any]:  # progress events are not kept (a UI draws and drops them)
        return [e async for e in agent.run("go") if e.type in ("spill", "tool_result")]

    before = peak_rss_mb()
    start = time.perf_counter()
    events = asyncio.run(run())
    seconds = time.perf_counter() - start
    [spill] = [e for e in events if e.type == "spill"]
    path = Path(spill.abs_path)
    exact = path.read_bytes() == (root / "seq.txt").read_bytes()
    mb = path.stat().st_size / MB
    report(
        f"run_shell seq 1 {lines:,} ({mb:,.0f} MB): run + budget + spill",
        f"{seconds:,.1f} s{'' if exact else ' (NOT EXACT)'}",
    )
    report("  its peak RSS (Python itself included)", f"{max(before, peak_rss_mb()):,.0f} MB")
    (root / "seq.txt").unlink()
    path.unlink()


def bench_spill(root: Path, size: int, repeat: int) -> None:
    text = lines_text(size)
    store = SpillStore(Path("spill"), root)
    data = text.encode()
    mb = len(data) / MB
    raw = RawOutput(data)  # a command's exact bytes, read in 1 MiB chunks (run_shell's spool)
    writes: dict[str, Callable[[], SpillRecord]] = {
        "text": lambda: store.write(text, "run_shell", "bench"),
        "raw": lambda: store.write_bytes(raw.chunks(), "run_shell", "bench"),
    }
    times: dict[str, list[float]] = {name: [] for name in writes}
    for _ in range(repeat):  # alternating, each file removed before the next write
        for name, write in writes.items():
            start = time.perf_counter()
            record = write()
            times[name].append((time.perf_counter() - start) * 1000)
            store.remove(record.path)
    for name, label in (
        ("text", f"spill {mb:,.0f} MB output (write + index + fsync)"),
        ("raw", f"spill {mb:,.0f} MB of raw bytes (the same, decoded to count)"),
    ):
        ms = statistics.median(times[name])
        report(label, f"{ms:,.1f} ms ({mb / ms * 1000:,.0f} MB/s)")
    if size <= 10 * MB:
        settings = BudgetSettings()
        ms = median_ms(
            lambda: apply_budget([PendingResult("c", "fetch", text)], settings, store), repeat
        )
        report(f"budget of a {mb:,.0f} MB result (excerpt + pointer + spill)", f"{ms:,.1f} ms")

        def raw_budget() -> None:
            pending = PendingResult("c", "fetch", text, raw=RawOutput(data))
            apply_budget([pending], settings, store)

        ms = median_ms(raw_budget, repeat)
        report(f"budget of a {mb:,.0f} MB result spilled from its raw bytes", f"{ms:,.1f} ms")
    for path in store.files():
        store.remove(path)


def bench_huge(root: Path, size: int, repeat: int) -> None:
    store = SpillStore(Path("spill"), root)
    chunk = lines_text(4 * MB)
    start = time.perf_counter()
    with store.open_writer("run_shell", "huge") as writer:
        for _ in range(size // len(chunk)):
            writer.write(chunk)
        record = writer.commit()
    seconds = time.perf_counter() - start
    gb = record.bytes / 1e9
    report(
        f"write a {gb:.1f} GB spill, streamed in 4 MB pieces",
        f"{seconds:,.1f} s ({record.bytes / MB / seconds:,.0f} MB/s)",
    )
    index_mb = os.path.getsize(index_path(record.path)) / MB
    report(f"its index ({record.lines:,} lines)", f"{index_mb:,.0f} MB")
    ctx = ToolContext(cwd=root)

    def page(offset: int, cold: bool) -> None:
        if cold:
            evict(record.path)
            evict(index_path(record.path))
        inp = read_file.ReadFileInput(path=record.shown, offset=offset, limit=2000)
        out = asyncio.run(read_file.TOOL.call(inp, ctx))
        assert out.data["first"] == offset, out.content[-200:]

    last = record.lines - 1999
    for cold in (False, True):
        kind = "cold cache" if cold else "warm cache"
        first_ms = median_ms(lambda c=cold: page(1, c), repeat)
        last_ms = median_ms(lambda c=cold: page(last, c), repeat)
        report(f"read_file first 2,000-line window, {kind}", f"{first_ms:,.2f} ms")
        report(f"read_file last 2,000-line window, {kind}", f"{last_ms:,.2f} ms")
    plain = root / "plain.txt"  # the same bytes without an index: read_file must scan
    os.link(record.path, plain)
    start = time.perf_counter()
    asyncio.run(read_file.TOOL.call(read_file.ReadFileInput(path="plain.txt", offset=last), ctx))
    report(
        "  same last window of the file without index (1 run)",
        f"{time.perf_counter() - start:,.1f} s",
    )
    plain.unlink()
    store.remove(record.path)


def bench_compress(size: int, repeat: int) -> None:
    log = vitest_like_log(size)
    for name, text in (
        ("test log", log),
        ("coloured test log", coloured(log)),
        ("quiet output", lines_text(size)),
    ):
        mb = len(text.encode()) / MB
        result = compress_log(text)
        ms = median_ms(lambda t=text: compress_log(t), repeat)
        what = f"{result.savings:.0%} smaller" if result.compressed else "untouched"
        report(
            f"compress a {mb:,.0f} MB {name} ({what})", f"{ms:,.0f} ms ({mb / ms * 1000:,.0f} MB/s)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--dir", type=Path, help="where to create the temporary data")
    parser.add_argument("--huge-gb", type=float, default=1.0, help="size of the paged spill")
    args = parser.parse_args()
    scale = 0.01 if args.quick else 1.0
    root = Path(tempfile.mkdtemp(prefix="agent-tui-bench-", dir=args.dir))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, data in {root}\n")
    print(f"| {'measure':<58} | {'result':>22} |")
    print(f"|{'-' * 60}|{'-' * 24}|")
    try:
        bench_shell(root, int(30_000_000 * scale))
        bench_spill(root, int(2 * MB), repeat=9)
        bench_spill(root, int(200 * MB * scale), repeat=3)
        bench_huge(root, int(args.huge_gb * 1e9 * scale), repeat=9)
        bench_compress(int(2 * MB), repeat=5)
        bench_compress(int(50 * MB * scale), repeat=3)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS of the whole run: {peak:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
