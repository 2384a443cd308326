"""What checkpoints cost: a turn that edits 10 files, and the workspace scan around run_shell.

    PYTHONPATH=src python benchmarks/bench_checkpoints.py                  # scan this checkout
    PYTHONPATH=src python benchmarks/bench_checkpoints.py --tree /work/main --runs 20

**A turn editing 10 files**: the real loop (script model, real ``edit_file`` calls on ten
300-line files, a session file on disk), run with the turn's checkpoint and without it
(``Rewinder.checkpoint`` returning None), alternating, medians; then what the checkpoint stored
(blobs, session-file bytes), the preview of a rewind of that turn and the rewind itself.

**The run_shell change scan** on ``--tree`` (default: this checkout; a tree with a virtualenv
is the interesting case): one ``scan_workspace`` (mtime and size of every file, ``.git``
skipped), the diff of two, and — run as ``run_shell`` runs it, in a worker thread — the
longest the event loop was kept from running while a scan was in progress (a 1 ms ticker).
Then what it adds to a turn of three ``run_shell true`` calls, with and without the turn's
checkpoint, in a hard-linked copy of the tree (so nothing is run in the tree itself): with
the model answering at once (each call waits for the scan after the one before: the worst
case) and with it taking ``--think`` seconds per request (the scan after a call runs while
the model thinks).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _checkpoints(on: bool) -> contextlib.AbstractContextManager[Any]:
    """With ``on`` false, turns start with no checkpoint, as without a session file (the agent's
    ``Rewinder`` makes them). Before the Agent was composed this replaced ``Agent._checkpoint``,
    a method gone since 7331233: from then until this fix both columns measured checkpoints."""
    from unittest import mock

    from agent_tui.core.agent.rewinding import Rewinder

    if on:
        return contextlib.nullcontext()
    return mock.patch.object(Rewinder, "checkpoint", return_value=None)


FILES = 10
LINES = 300


def _workspace(root: Path) -> list[str]:
    names = []
    for n in range(FILES):
        name = f"src/module_{n}.py"
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"value_{i} = {i} * {n}  # line {i}\n" for i in range(LINES)))
        names.append(name)
    return names


def _script(names: list[str], rounds: int) -> list[dict[str, Any]]:
    """``rounds`` turns, each reading then editing every file once."""
    turns: list[dict[str, Any]] = []
    for r in range(rounds):
        turns.append(
            {"tool_calls": [{"name": "read_file", "arguments": {"path": n}} for n in names]}
        )
        for i, name in enumerate(names):
            edit = {"path": name, "old_string": f"value_{r} = ", "new_string": f"value_{r}_x = "}
            turns.append(
                {"tool_calls": [{"id": f"e{r}_{i}", "name": "edit_file", "arguments": edit}]}
            )
        turns.append({"text": "done"})
    return turns


async def _turns(rounds: int) -> dict[str, Any]:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.conversation.session_store import SessionStore
    from agent_tui.core.permissions import SimplePolicy
    from agent_tui.core.providers.script import ScriptProvider
    from agent_tui.core.tools.builtin import default_registry

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        timings: dict[bool, list[float]] = {True: [], False: []}
        kept: dict[str, Any] = {}
        for r in range(rounds * 2):
            with_checkpoint = r % 2 == 0
            work = base / f"w{r}"
            names = _workspace(work)
            script = base / f"s{r}.json"
            script.write_text(json.dumps({"turns": _script(names, 1)}))
            store = SessionStore(base / f"sessions{r}")
            agent = Agent(
                ScriptProvider(script),
                default_registry(),
                work,
                policy=SimplePolicy(["edit_file"]),
                session=store.new(work, "script"),
                sessions=store,
                system="bench",
            )
            start = time.perf_counter()
            with _checkpoints(with_checkpoint):
                async for _ in agent.run("edit ten files"):
                    pass
            timings[with_checkpoint].append(time.perf_counter() - start)
            if with_checkpoint and not kept:
                session = agent.session
                assert session is not None
                blobs = list((session.files_dir / "blobs").rglob("*"))
                turn = agent.turns()[0]
                t0 = time.perf_counter()
                preview = await agent.preview_rewind(turn.id)
                t1 = time.perf_counter()
                report = await agent.rewind(turn.id, "code")
                t2 = time.perf_counter()
                assert report.files is not None
                assert len(report.files.restored) == FILES
                kept = {
                    "blob_files": sum(1 for b in blobs if b.is_file()),
                    "blob_bytes": sum(b.stat().st_size for b in blobs if b.is_file()),
                    "checkpoint_lines": sum(
                        1
                        for line in session.path.read_text().splitlines()
                        if json.loads(line)["type"] == "checkpoint"
                    ),
                    "checkpoint_bytes": sum(
                        len(line) + 1
                        for line in session.path.read_text().splitlines()
                        if json.loads(line)["type"] == "checkpoint"
                    ),
                    "preview_ms": (t1 - t0) * 1000,
                    "rewind_ms": (t2 - t1) * 1000,
                    "files_previewed": len(preview.files),
                }
            await agent.close()
        on = statistics.median(timings[True]) * 1000
        off = statistics.median(timings[False]) * 1000
        return {"with_ms": on, "without_ms": off, **kept}


def _recorder(rounds: int) -> dict[str, float]:
    """The checkpoint's own work for a turn that changes 10 files, alone (no loop, no tool):
    ``before_change`` (read, hash, keep the blob, flushed; the session line) and ``changed``
    (the session line) for each file, new contents every round; median."""
    from agent_tui.core.checkpoints.turn import TurnRecorder
    from agent_tui.core.conversation.session_store import SessionStore

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        names = _workspace(base / "w")
        files = [base / "w" / n for n in names]
        session = SessionStore(base / "sessions").new(base / "w", "bench")
        times = []
        for r in range(rounds):
            for f in files:
                f.write_text(f"round {r}\n" + f.read_text())
            recorder = TurnRecorder(f"t{r}", session.blobs, session.record)
            start = time.perf_counter()
            for f in files:
                recorder.before_change(f)
                recorder.changed(f, "0" * 64)
            times.append(time.perf_counter() - start)
        return {"median_ms": statistics.median(times) * 1000, "max_ms": max(times) * 1000}


async def _scan(tree: Path, runs: int) -> dict[str, Any]:
    from agent_tui.core.checkpoints.scan import changes_between, scan_workspace

    times, cpu = [], []
    scan = scan_workspace(str(tree))
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        scan = scan_workspace(str(tree))
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    other = scan_workspace(str(tree))
    start = time.perf_counter()
    changes_between(scan, other)
    diff = time.perf_counter() - start

    lag = 0.0
    stop = False

    async def ticker() -> None:
        nonlocal lag
        while not stop:
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            lag = max(lag, time.perf_counter() - before - 0.001)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    lag = 0.0
    started = time.perf_counter()
    for _ in range(5):
        await asyncio.to_thread(scan_workspace, str(tree))
    scanning = time.perf_counter() - started
    scan_lag, lag = lag, 0.0
    await asyncio.sleep(scanning)  # as long again, with no scan: the machine's own stalls
    stop = True
    await tick
    return {
        "entries": scan.entries,
        "files": len(scan.files),
        "truncated": scan.truncated,
        "median_ms": statistics.median(times) * 1000,
        "cpu_ms": statistics.median(cpu) * 1000,
        "min_ms": min(times) * 1000,
        "max_ms": max(times) * 1000,
        "diff_ms": diff * 1000,
        "loop_lag_ms": scan_lag * 1000,
        "idle_lag_ms": lag * 1000,
    }


async def _shell_turns(tree: Path, runs: int, think: float) -> dict[str, float]:
    import os
    import shutil

    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.conversation.session_store import SessionStore
    from agent_tui.core.permissions import SimplePolicy
    from agent_tui.core.providers.script import ScriptProvider
    from agent_tui.core.settings import Settings
    from agent_tui.core.tools.builtin import default_registry

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        work = base / "tree"
        shutil.copytree(
            tree, work, symlinks=True, copy_function=os.link, ignore_dangling_symlinks=True
        )
        settings = Settings.model_validate({"sandbox": {"mode": "off"}})
        out: dict[str, float] = {}
        for label, delay in (("at once", 0.0), (f"thinking {think:g} s", think)):
            shell = {"name": "run_shell", "arguments": {"command": "true"}}
            step = {"text": "a b", "delay": delay / 2, "tool_calls": [shell]}
            script = base / "s.json"
            script.write_text(json.dumps({"turns": [step, step, step, {"text": "done"}]}))
            timings: dict[bool, list[float]] = {True: [], False: []}
            for r in range(runs * 2):
                with_checkpoint = r % 2 == 0
                store = SessionStore(base / f"sessions-{label}-{r}")
                agent = Agent(
                    ScriptProvider(script),
                    default_registry(),
                    work,
                    policy=SimplePolicy(["run_shell"]),
                    session=store.new(work, "script"),
                    sessions=store,
                    settings=settings,
                    system="bench",
                )
                start = time.perf_counter()
                with _checkpoints(with_checkpoint):
                    async for _ in agent.run("three commands"):
                        pass
                timings[with_checkpoint].append(time.perf_counter() - start)
                await agent.close()
            on = statistics.median(timings[True]) * 1000
            off = statistics.median(timings[False]) * 1000
            out[label] = on - off
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--runs", type=int, default=10, help="scans timed (default 10)")
    parser.add_argument("--turns", type=int, default=7, help="turns timed each way (7)")
    parser.add_argument("--think", type=float, default=1.0, help="model seconds a request (1)")
    args = parser.parse_args(argv)
    alone = _recorder(max(args.turns, 15))
    print(f"checkpoint of {FILES} changed files of {LINES} lines, alone:")
    print(f"  keep + record        {alone['median_ms']:8.1f} ms median ({alone['max_ms']:.1f} max)")
    turn = asyncio.run(_turns(args.turns))
    print(f"turn editing {FILES} files of {LINES} lines (median of {args.turns} each):")
    print(f"  with checkpoint      {turn['with_ms']:8.1f} ms")
    print(f"  without              {turn['without_ms']:8.1f} ms")
    print(f"  checkpoint costs     {turn['with_ms'] - turn['without_ms']:8.1f} ms")
    print(
        f"  kept: {turn['blob_files']} blobs, {turn['blob_bytes']:,} bytes; "
        f"{turn['checkpoint_lines']} session lines, {turn['checkpoint_bytes']:,} bytes"
    )
    print(f"  preview of its rewind {turn['preview_ms']:7.1f} ms ({turn['files_previewed']} files)")
    print(f"  rewind (code)        {turn['rewind_ms']:8.1f} ms")
    scan = asyncio.run(_scan(args.tree, args.runs))
    print(
        f"workspace scan of {args.tree} ({scan['entries']:,} entries, {scan['files']:,} files"
        f"{', truncated' if scan['truncated'] else ''}):"
    )
    print(
        f"  one scan             {scan['median_ms']:8.1f} ms median "
        f"({scan['min_ms']:.1f}–{scan['max_ms']:.1f}; CPU {scan['cpu_ms']:.1f} ms)"
    )
    print(f"  diff of two scans    {scan['diff_ms']:8.1f} ms")
    print(
        f"  longest event-loop stall during 5 scans in a thread: {scan['loop_lag_ms']:.1f} ms "
        f"(as long with no scan: {scan['idle_lag_ms']:.1f} ms)"
    )
    shell = asyncio.run(_shell_turns(args.tree, args.turns, args.think))
    print(
        "a turn of 3 run_shell calls in a copy of the tree, checkpoint on − off "
        f"(median of {args.turns}):"
    )
    for label, added in shell.items():
        print(f"  model answering {label:<14} {added:+8.1f} ms a turn ({added / 3:+.1f} ms a call)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
