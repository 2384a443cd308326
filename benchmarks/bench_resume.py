"""Resuming a long session in the TUI: time from the app starting to the resumed transcript on
screen (the chat, the lane's cards, the status bar), for a session of many turns and calls.

    PYTHONPATH=src python benchmarks/bench_resume.py --make /tmp/resume.jsonl --turns 200
    PYTHONPATH=src python benchmarks/bench_resume.py --time /tmp/resume.jsonl

``--make`` writes a session file by running real turns of the script model (reads in parallel
batches, a write, a failing shell command each turn), so every message is as the agent writes
it. ``--time`` resumes it in a headless app and prints the seconds until the "Resumed" notice
is shown; it uses only what every version of the app has, so ``farm-bench --vs`` can time two
checkouts on the same file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path


def make(path: Path, turns: int, per_turn: int = 4) -> None:
    """``turns`` real turns of the script model, each ``per_turn`` parallel reads, a write and a
    failing shell command (``per_turn + 2`` calls a turn)."""
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.conversation.session_store import SessionStore
    from agent_tui.core.permissions import SimplePolicy
    from agent_tui.core.providers.script import ScriptProvider
    from agent_tui.core.settings import CompactionSettings, ModelSettings, Settings
    from agent_tui.core.tools.builtin import default_registry

    work = Path(tempfile.mkdtemp())
    for i in range(per_turn):
        (work / f"f{i}.txt").write_text("".join(f"line {n}\n" for n in range(50)))
    script: list[dict[str, object]] = []
    for t in range(turns):
        reads = [
            {"id": f"r{t}_{i}", "name": "read_file", "arguments": {"path": f"f{i}.txt"}}
            for i in range(per_turn)
        ]
        script.append({"text": f"Turn {t}: reading.", "tool_calls": reads})
        script.append(
            {
                "text": "Writing.",
                "tool_calls": [
                    {
                        "id": f"w{t}",
                        "name": "write_file",
                        "arguments": {"path": f"o{t}.txt", "content": "x\n"},
                    },
                    {"id": f"s{t}", "name": "run_shell", "arguments": {"command": "exit 3"}},
                ],
            }
        )
        script.append({"text": f"Done with turn {t}."})
    (work / "script.json").write_text(json.dumps({"turns": script}))
    store = SessionStore(work / "sessions")
    session = store.new(work, "script")
    agent = Agent(
        ScriptProvider(work / "script.json"),
        default_registry(),
        work,
        policy=SimplePolicy(["*"]),
        session=session,
        system="bench",
        # every turn stays in the live transcript (no compaction folds the early ones away)
        settings=Settings(
            compaction=CompactionSettings(threshold="off"),
            model=ModelSettings(context_window=100_000_000),
        ),
    )

    async def run() -> None:
        for t in range(turns):
            async for _ in agent.run(f"prompt {t}"):
                pass

    asyncio.run(run())
    path.write_bytes(session.path.read_bytes())
    print(
        f"{path}: {turns} turns, {len(session.messages)} messages, {turns * (per_turn + 2)} calls"
    )


def time_resume(path: Path) -> float:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.conversation.session import SessionLog
    from agent_tui.core.permissions import SimplePolicy
    from agent_tui.core.providers.demo import DemoProvider
    from agent_tui.core.tools.builtin import default_registry
    from agent_tui.ui.app import AgentApp

    session = SessionLog.load(path)
    agent = Agent(
        DemoProvider(),
        default_registry(),
        Path(tempfile.mkdtemp()),
        policy=SimplePolicy(),
        session=session,
        system="bench",
    )
    app = AgentApp(agent=agent)

    async def run() -> float:
        start = time.perf_counter()
        async with app.run_test(size=(120, 40)) as pilot:
            while not any("Resumed" in str(getattr(n, "text", "")) for n in app.main.chat.children):
                await pilot.pause()
            return time.perf_counter() - start

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--make", type=Path)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--reads", type=int, default=4, help="parallel reads a turn")
    parser.add_argument("--time", type=Path)
    args = parser.parse_args()
    if args.make:
        make(args.make, args.turns, args.reads)
    if args.time:
        print(f"resume to screen: {time_resume(args.time):.3f} s")
    if not (args.make or args.time):
        parser.print_help()
        sys.exit(2)


if __name__ == "__main__":
    main()
