"""What keeping the Claude Code transcript current costs before a hook (``claude_export``).

    PYTHONPATH=src python benchmarks/bench_claude_transcript.py [--messages 1000] [--runs 200]

A session of ``--messages`` messages (prompt, a reply with a shell call, its result, a reply:
four a round) is written by the real ``SessionLog``; then, timed:

- **first refresh**: the export built whole (what the first hook of a resumed session pays);
- **refresh after one message**: one message appended to the session, then a refresh (what
  each later hook pays: the new bytes read, one entry appended), median and p90 of ``--runs``;
- **refresh, nothing new**: a hook right after another (a ``stat`` and an ``fstat``);
- **full rewrite**, for comparison: the export built whole again, as a rewrite on every hook
  would cost.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from agent_tui.core.calls import ToolCall
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.transcript import Message


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        session = SessionStore(root / "sessions").new(root, "demo")
        for n in range(args.messages // 4):
            call = ToolCall(id=f"c{n}", name="run_shell", arguments=json.dumps({"command": "ls"}))
            session.append(Message.user(f"prompt {n}: " + "words " * 20))
            session.append(Message.assistant("Let me look. " * 10, [call]))
            session.append(Message.tool(call, "file.txt\n" * 30))
            session.append(Message.assistant("Here is what I found. " * 30))
        export = session.claude_transcript()
        started = time.perf_counter()
        first = export.refresh()
        first_took = time.perf_counter() - started
        one: list[float] = []
        idle: list[float] = []
        for n in range(args.runs):
            session.append(Message.assistant(f"one more {n} " + "text " * 40))
            started = time.perf_counter()
            done = export.refresh()
            one.append(time.perf_counter() - started)
            assert done.written == 1
            assert not done.rebuilt
            started = time.perf_counter()
            export.refresh()
            idle.append(time.perf_counter() - started)
        rewrites: list[float] = []
        for _ in range(5):
            export.target.unlink()
            started = time.perf_counter()
            assert export.refresh().rebuilt
            rewrites.append(time.perf_counter() - started)
        size = export.target.stat().st_size
        deciles = statistics.quantiles(one, n=10)
        print(f"session: {first.written} messages, {session.path.stat().st_size:,} bytes")
        print(f"export: {size:,} bytes after {args.runs} more messages")
        print(f"first refresh (built whole): {_ms(first_took)}")
        print(
            f"refresh after one message: median {_ms(statistics.median(one))}, "
            f"p90 {_ms(deciles[8])}"
        )
        print(f"refresh, nothing new: median {_ms(statistics.median(idle))}")
        print(f"full rewrite (for comparison): median {_ms(statistics.median(rewrites))}")


if __name__ == "__main__":
    main()
