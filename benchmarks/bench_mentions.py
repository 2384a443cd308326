"""The ``@`` picker on a big workspace: index build, and query latency per keystroke.

    PYTHONPATH=src python benchmarks/bench_mentions.py             # 100,000 files
    PYTHONPATH=src python benchmarks/bench_mentions.py --files 20000 --queries 100

A tree of ``--files`` empty files is generated in a temporary directory (a monorepo: packages
of nested source directories, 2–7 levels, names from a programming vocabulary, a
``.gitignore`` that ignores a build directory of 10 % more files), then:

- the index is built (``FileIndex.build``: the walk with the ignore files, and the strings
  the queries scan), twice — cold-ish (just written) and warm (page cache);
- queries of 1, 3 and 8 characters are timed, each on a fresh index state (no previous query
  to narrow from: the slowest case), median / p95 / max; the queries are taken from the
  tree's own names (substrings and initials: what a user types) plus some that match nothing
  (a full scan);
- typing: each query typed one character at a time, as the completer sees it — the time of
  each keystroke (narrowing from the previous one when it can);
- the completer itself (``MentionCompleter.complete`` on ``look at @que``), which adds the
  token parsing and the ``Completion`` objects.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import string
import tempfile
import time
from pathlib import Path

from agent_tui.core.mentions import FileIndex, MentionCompleter

WORDS = [
    "app",
    "api",
    "auth",
    "cache",
    "client",
    "config",
    "core",
    "data",
    "db",
    "debug",
    "engine",
    "event",
    "file",
    "format",
    "handler",
    "http",
    "index",
    "io",
    "job",
    "json",
    "lib",
    "log",
    "main",
    "model",
    "net",
    "node",
    "parser",
    "path",
    "plugin",
    "pool",
    "proto",
    "query",
    "queue",
    "render",
    "request",
    "response",
    "route",
    "runtime",
    "schema",
    "server",
    "service",
    "session",
    "shell",
    "spec",
    "state",
    "store",
    "stream",
    "sync",
    "task",
    "test",
    "text",
    "theme",
    "thread",
    "token",
    "tool",
    "tree",
    "type",
    "ui",
    "user",
    "util",
    "view",
    "watch",
    "worker",
    "admin",
    "billing",
    "cart",
    "checkout",
    "invoice",
    "order",
    "payment",
    "product",
    "search",
    "shipping",
    "account",
    "profile",
]
EXTS = [".py", ".ts", ".tsx", ".js", ".go", ".rs", ".md", ".json", ".yaml", ".css", ".txt"]


def generate(root: Path, files: int, seed: int = 7) -> int:
    """A monorepo-like tree of ``files`` files; returns how many were written."""
    rng = random.Random(seed)
    (root / ".gitignore").write_text("build/\n*.log\n")

    def name() -> str:
        parts = rng.sample(WORDS, rng.choice((1, 1, 2, 2, 3)))
        return rng.choice(("_", "-", "")).join(parts)

    # directories first: packages/<name>/src, then subdirectories 2-7 levels below
    dirs: list[Path] = []
    frontier = [root / "packages" / f"{name()}-{i}" / "src" for i in range(max(files // 2000, 1))]
    while len(dirs) < files // 12:
        here = frontier.pop(rng.randrange(len(frontier))) if frontier else rng.choice(dirs)
        dirs.append(here)
        if len(here.relative_to(root).parts) < rng.randint(4, 9):
            frontier.extend(here / name() for _ in range(rng.randint(1, 4)))
    for directory in dirs:
        directory.mkdir(parents=True, exist_ok=True)
    written = 0
    while written < files:
        path = rng.choice(dirs) / (name() + rng.choice(EXTS))
        if not path.exists():
            path.touch()
            written += 1
    build = root / "build"
    build.mkdir()
    for index in range(files // 10):  # ignored: never indexed
        (build / f"out{index}.o").touch()
    return written


def stats(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return (
        f"median {statistics.median(ordered) * 1000:6.2f} ms · p95 {p95 * 1000:6.2f} ms · "
        f"max {ordered[-1] * 1000:6.2f} ms  ({len(ordered)} queries)"
    )


def queries(labels: list[str], length: int, count: int, rng: random.Random) -> list[str]:
    names = [label.rstrip("/").rsplit("/", 1)[-1].lower() for label in labels]
    long_enough = [n for n in names if len(n) >= length]
    out: list[str] = []
    if length == 1:
        out = list(string.ascii_lowercase) + list("_.-/0123456789")
    while len(out) < count:
        name = rng.choice(long_enough or names)
        kind = rng.random()
        if kind < 0.5:  # a substring
            start = rng.randrange(0, max(len(name) - length, 0) + 1)
            out.append(name[start : start + length])
        elif kind < 0.85:  # characters in order (an abbreviation)
            picks = sorted(rng.sample(range(len(name)), min(length, len(name))))
            out.append("".join(name[i] for i in picks))
        else:  # nothing matches it: the scan goes through everything
            out.append("".join(rng.choice("qzxj") for _ in range(length)))
    return out[:count] if length > 1 else out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=None, help="parent of the temporary tree")
    args = parser.parse_args()
    rng = random.Random(11)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        written = generate(root, args.files)
        print(
            f"generated {written:,} files (+{args.files // 10:,} ignored) in "
            f"{time.perf_counter() - started:.1f} s"
        )
        builds = []
        index = FileIndex(root)
        for _ in range(2):
            index = FileIndex(root)
            started = time.perf_counter()
            index.build()
            builds.append(time.perf_counter() - started)
        dirs = sum(1 for label in index.labels() if label.endswith("/"))
        print(
            f"index: {len(index):,} entries ({dirs:,} directories); build "
            f"{builds[0]:.2f} s (just written), {builds[1]:.2f} s (warm)"
        )
        labels = index.labels()
        for length in (1, 3, 8):
            times = []
            for query in queries(labels, length, args.queries, rng):
                index._last = None  # no previous query to narrow from
                started = time.perf_counter()
                index.query(query)
                times.append(time.perf_counter() - started)
            print(f"query {length} char{'s' if length > 1 else ' '}: {stats(times)}")
        typed: list[float] = []
        for word in queries(labels, 8, args.queries // 3, rng):
            index._last = None
            for end in range(1, len(word) + 1):
                started = time.perf_counter()
                index.query(word[:end])
                typed.append(time.perf_counter() - started)
        print(f"typing, per keystroke: {stats(typed)}")
        completer = MentionCompleter(index)
        times = []
        for word in queries(labels, 3, args.queries, rng):
            index._last = None
            text = f"look at @{word}"
            started = time.perf_counter()
            completer.complete(text, len(text))
            times.append(time.perf_counter() - started)
        print(f"completer, 3 chars: {stats(times)}")
        print(f"(cpus: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
