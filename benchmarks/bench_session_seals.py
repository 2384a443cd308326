"""What seals cost: one session append (the lines' write and the seal's), loading a sealed
session, and a trust-store save.

    PYTHONPATH=src python benchmarks/bench_session_seals.py
    PYTHONPATH=src python benchmarks/bench_session_seals.py --appends 5000 --rounds 7

Uses only what every version with seals has (``SessionStore.new`` / ``append`` / ``latest``,
``ProjectTrust.trust``), so two checkouts can be timed on the same machine, interleaved:

    for tree in base/src src; do PYTHONPATH=$tree python benchmarks/bench_session_seals.py; done

- **append**: ``SessionLog.append`` of a 200-byte user message (one write of the line, and the
  seal's writes), wall-clock per call, median and p90 over ``--appends`` calls, the median of
  the ``--rounds`` medians; also of a 4 KB message.
- **load**: ``SessionStore.latest`` of the session the appends made (the seal checked, the file
  hashed, the lines parsed), median of the rounds.
- **trust save**: ``ProjectTrust.trust`` (a new store written, synced and renamed into place,
  its seal synced), median of 20.

The data directory is a temporary directory (on this machine's disk, not a tmpfs, when
``TMPDIR`` says so).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def _appends(root: Path, count: int, size: int) -> tuple[float, float]:
    from agent_tui.core.conversation.session_store import SessionStore
    from agent_tui.core.transcript import Message

    session = SessionStore(root).new(root.parent, "demo")
    message = Message.user("x" * size)
    took = []
    for _ in range(count):
        start = time.perf_counter_ns()
        session.append(message)
        took.append(time.perf_counter_ns() - start)
    session.release()
    took.sort()
    return statistics.median(took) / 1000, took[int(len(took) * 0.9)] / 1000


def _load(root: Path) -> float:
    from agent_tui.core.conversation.session_store import SessionStore

    start = time.perf_counter()
    loaded = SessionStore(root).latest(root.parent)
    assert loaded is not None
    return (time.perf_counter() - start) * 1000


def _trust_saves(workspace: Path, count: int = 20) -> float:
    from agent_tui.core.state.trust import ProjectTrust, TrustItem

    trust = ProjectTrust(workspace, path=workspace / "data" / "trust.json")
    took = []
    for n in range(count):
        item = TrustItem("allow_rule", Path("settings.json"), f"run_shell(tool{n} *)", "x", "x")
        start = time.perf_counter()
        trust.trust([item])
        took.append(time.perf_counter() - start)
    return statistics.median(took) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    small, small_p90, big, loads = [], [], [], []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "sessions"
            median, p90 = _appends(root, args.appends, 200)
            small.append(median)
            small_p90.append(p90)
            loads.append(_load(root))
        with tempfile.TemporaryDirectory() as tmp:
            big.append(_appends(Path(tmp) / "sessions", args.appends // 4, 4096)[0])
    with tempfile.TemporaryDirectory() as tmp:
        trust_ms = _trust_saves(Path(tmp))
    print(
        f"append 200 B: median {statistics.median(small):.0f} us "
        f"(p90 {statistics.median(small_p90):.0f} us); "
        f"append 4 KB: median {statistics.median(big):.0f} us; "
        f"load of {args.appends} messages: {statistics.median(loads):.1f} ms; "
        f"trust save: {trust_ms:.2f} ms"
    )


if __name__ == "__main__":
    main()
