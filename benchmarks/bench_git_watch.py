"""What the git watch costs a command (``core.sandbox.git_watch``): run_shell takes a look
before and after every command, sandboxed or not. A look is the cached walk of the workspace
(one ``stat`` per unchanged directory) and a ``stat`` per watched file (configs, hooks,
attributes); the first look of a session walks the tree cold.

    PYTHONPATH=src python benchmarks/bench_git_watch.py               # a 16,000-file tree
    PYTHONPATH=src python benchmarks/bench_git_watch.py --tree DIR    # a copy of DIR instead
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent_tui.core.sandbox import walk
from agent_tui.core.sandbox.git_watch import Watch


def _tree(work: Path, source: Path | None, copies: int) -> None:
    if source is not None:
        shutil.copytree(source, work / "tree", symlinks=True)
    else:
        packages = Path(sys.prefix) / "lib"
        for n in range(copies):
            shutil.copytree(packages, work / f"copy{n}", symlinks=True)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    for n in range(5):  # a few nested repositories and a bare one
        subprocess.run(["git", "init", "-q", str(work / f"vendor/lib{n}")], check=True)
    subprocess.run(["git", "init", "-q", "--bare", str(work / "remote.git")], check=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path)
    parser.add_argument("--copies", type=int, default=2)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp()).resolve()
    try:
        _tree(work, args.tree, args.copies)
        files = sum(1 for p in work.rglob("*") if p.is_file())
        dirs = sum(1 for p in work.rglob("*") if p.is_dir())
        watch = Watch(work)
        walk.forget()
        start = time.perf_counter()
        first = watch.look()
        cold = time.perf_counter() - start
        time.sleep(2.1)  # the walk trusts a directory's listing once it has been quiet 2 s
        watch.look()
        looks: list[float] = []
        baselines: list[float] = []
        checks: list[float] = []
        for _ in range(args.runs):
            start = time.perf_counter()
            watch.look()
            looks.append(time.perf_counter() - start)
            start = time.perf_counter()
            before = watch.baseline()  # right after a check: no walk
            baselines.append(time.perf_counter() - start)
            start = time.perf_counter()
            watch.check(before)
            checks.append(time.perf_counter() - start)
        print(f"tree: {files:,} files, {dirs:,} directories, {len(first.found.gitdirs)} git dirs")
        print(f"  {len(first.items)} watched files")
        print(f"first look (cold cache): {cold * 1000:.0f} ms")
        directories = [str(p) for p in work.rglob("*") if p.is_dir() and not p.is_symlink()]
        floors = []
        for _ in range(args.runs):
            start = time.perf_counter()
            for directory in directories:
                os.stat(directory)
            floors.append(time.perf_counter() - start)
        floor = statistics.median(floors)
        print(f"the floor: a stat of every directory, median: {floor * 1000:.1f} ms")
        look, base = statistics.median(looks), statistics.median(baselines)
        check = statistics.median(checks)
        print(f"full look (warm cache: a walk), median: {look * 1000:.1f} ms")
        print(f"baseline right after a check (no walk), median: {base * 1000:.2f} ms")
        print(f"check after a command (a walk), median: {check * 1000:.1f} ms")
        print(f"per command in a run of commands: {(base + check) * 1000:.1f} ms")
        print(f"per command after a pause: {(look + check) * 1000:.1f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
