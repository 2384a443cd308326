"""Long sessions stay fast: a session of 500 turns and 5,000 tool calls, resumed in the app.

    PYTHONPATH=src python benchmarks/bench_sessions.py --make /tmp/long.jsonl      # ~1 min
    PYTHONPATH=src python benchmarks/bench_sessions.py /tmp/long.jsonl
    PYTHONPATH=src python benchmarks/bench_sessions.py /tmp/long.jsonl --profile resume
    PYTHONPATH=src python benchmarks/bench_sessions.py /tmp/long.jsonl --baseline /tmp/old

``--make`` writes the session file by running 500 real turns of the script model (8 parallel
reads, a write and a failing shell command each: 10 calls a turn; compaction off, so all 5,000
calls stay in the live transcript), with ``bench_resume.make``.

The figures, each against its target (issue 19), measured in this process with the real app
under ``App.run_test`` at 120×40 (the headless driver runs everything a terminal run does —
layout, styles, the compositor rendering every changed line into strips — except encoding the
strips as escape codes and writing them):

- **load**: ``SessionLog.load`` of the file (the CLI does it before the app starts).
- **resume**: from the app starting with the loaded session to the resumed transcript on
  screen and usable (the "Resumed" notice shown and the frame after it rendered), minus the
  same for an empty session in the same run (the app's own start-up), median of ``--runs``;
  and how long after that the earlier turns are read (the lane lists them: the app reads
  them in 8 ms slices after the first frame, answering keys between two).
- **navigation**: with the lane focused, a key (up / down / Home / End / Enter on a folded
  line) to the repainted screen (the key handled, the frame rendered), median and p95 of
  ``--presses``; Home goes to the first turn of the 500.
- **new turn**: Enter in the prompt with the big session loaded to the frame that shows the
  turn's prompt in the chat (the model's answer not waited for).

Every wait has a deadline (``DEADLINE_SECONDS``, generous): a run that gets stuck stops with
``Stuck`` saying what it waited for and a dump of every thread's stack, rather than spinning.
- **memory**: the process's peak RSS (``VmHWM``) after all of it, and ``VmRSS`` now.

``--baseline DIR`` (a tree with ``src/``: ``git archive OLD src themes | tar -x -C DIR``)
measures that version and this one side by side: ``--rounds`` rounds, each running the whole
measurement once per version in a fresh process, the order alternating; it prints each row's
median over the rounds, old and new, and the ratio new / old.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

TARGET_MS = 100.0
TARGET_MB = 300.0
DEADLINE_SECONDS = 300.0
"""How long any one wait may take before the run stops as stuck (a loaded machine included)."""
Span = tuple[float, float]
"""(wall-clock seconds, this process's CPU seconds) of one measurement."""


class Stuck(RuntimeError):
    """A wait of the benchmark passed its deadline."""


async def until(condition: Any, what: str, step: Any) -> None:
    """Await ``step()`` until ``condition()`` holds; ``Stuck`` after ``DEADLINE_SECONDS``."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            import faulthandler

            # the real stderr: the app under ``run_test`` replaced ``sys.stderr``
            faulthandler.dump_traceback(sys.__stderr__, all_threads=True)
            raise Stuck(f"waited {DEADLINE_SECONDS:.0f} s for {what}")
        await step()


def now() -> Span:
    return time.perf_counter(), time.process_time()


def since(start: Span) -> Span:
    wall, cpu = now()
    return wall - start[0], cpu - start[1]


def status_kb(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def copy_of(path: Path) -> Path:
    """A copy of the session file (an app's new turns are appended to the file it resumed)."""
    copy = Path(tempfile.mkdtemp()) / path.name
    copy.write_bytes(path.read_bytes())
    return copy


def app_for(session: Any) -> Any:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.permissions import SimplePolicy
    from agent_tui.core.providers.demo import DemoProvider
    from agent_tui.core.tools.builtin import default_registry
    from agent_tui.ui.app import AgentApp

    agent = Agent(
        DemoProvider(),
        default_registry(),
        Path(tempfile.mkdtemp()),
        policy=SimplePolicy(),
        session=session,
        system="bench",
    )
    AgentApp.QUIET_GC = True  # as in the app's own process (headless apps share theirs)
    return AgentApp(agent=agent)


def _resumed(app: Any) -> bool:
    return any("Resumed" in str(getattr(n, "text", "")) for n in app.main.chat.children)


async def _painted(app: Any) -> None:
    """Until the frame after now has been rendered."""
    done = asyncio.Event()
    app.call_after_refresh(done.set)
    await done.wait()


async def key(app: Any, name: str) -> None:
    """Press ``name`` as a terminal does (posted to the app, as the driver posts it) and
    return once the app has handled it. Not ``Pilot.press``: that waits for the process to
    look idle (``wait_for_idle``: at least 2 × 20 ms of sleep, up to a second while a
    turn's answer streams), which measured Pilot, not the app."""
    from textual import events

    handled = asyncio.Event()
    app.post_message(events.Key(name, None))
    app.call_later(handled.set)  # queued behind the key: runs once the app handled it
    await handled.wait()


def _earlier_listed(app: Any) -> bool:
    from agent_tui.ui.lane.folded_turns import FoldedTurns

    return bool(app.main.lane.query(FoldedTurns))


async def time_start(
    path: Path | None, profile: cProfile.Profile | None = None
) -> tuple[Span, Span | None]:
    """Seconds from the app starting to the (resumed) session on screen and usable; and,
    resuming, to its earlier turns read too (listed in the lane, after the first frame).

    Both waits go frame by frame: ``Pilot.pause`` waits for the process to look idle, which
    it does not while the earlier turns are read, so the first figure included that reading
    (its 8 ms slices, between which the app answers keys) until 2026-12-04."""
    from agent_tui.core.conversation.session import SessionLog
    from agent_tui.core.conversation.session_store import SessionStore

    if path is not None:
        session = SessionLog.load(copy_of(path))
    else:
        session = SessionStore(Path(tempfile.mkdtemp())).new(Path.cwd(), "demo")
    app = app_for(session)
    start = now()
    if profile is not None:
        profile.enable()
    listed = None
    async with app.run_test(size=(120, 40)):
        if path is not None:
            await until(lambda: _resumed(app), "the resumed notice", lambda: _painted(app))
        await _painted(app)
        seconds = since(start)
        if profile is not None:
            profile.disable()
        if path is not None:
            await until(lambda: _earlier_listed(app), "the earlier turns", lambda: _painted(app))
            listed = since(start)
    gc.collect()  # the app's heap, unfrozen as it ended: not frozen into the next app's
    return seconds, listed


async def new_turns(
    app: Any, pilot: Any, count: int, profile: cProfile.Profile | None
) -> list[Span]:
    """Seconds from Enter in the prompt to the turn's prompt shown (and the frame rendered)."""
    from agent_tui.ui.chat import UserPrompt

    times: list[Span] = []
    for n in range(count):
        prompt = app.main.query_one("#prompt")

        async def focus(prompt: Any = prompt) -> None:
            prompt.focus()  # again: an opened lane block may take the focus after it
            await pilot.pause()

        await focus()
        await until(lambda prompt=prompt: app.focused is prompt, "the prompt focused", focus)
        text = f"bench turn {n}"
        prompt.text = text
        started = now()
        if profile is not None:
            profile.enable()
        await key(app, "enter")
        await until(  # frame by frame: the prompt's mount refreshes the screen
            lambda text=text: any(
                isinstance(w, UserPrompt) and text in w.text for w in app.main.chat.children
            ),
            "the new turn's prompt in the chat",
            lambda: _painted(app),
        )
        await _painted(app)
        if profile is not None:
            profile.disable()
        times.append(since(started))
        await until(lambda: not app.busy, "the turn to end", pilot.pause)
    return times


async def empty_turns(count: int) -> list[Span]:
    """New turns in an empty session, for comparison."""
    from agent_tui.core.conversation.session_store import SessionStore

    app = app_for(SessionStore(Path(tempfile.mkdtemp())).new(Path.cwd(), "demo"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        return await new_turns(app, pilot, count, None)


async def interact(
    path: Path, presses: int, profile: cProfile.Profile | None, what: str
) -> dict[str, list[Span]]:
    """Lane navigation and a new turn's start, in one app with the session resumed."""
    from agent_tui.core.conversation.session import SessionLog

    app = app_for(SessionLog.load(copy_of(path)))
    times: dict[str, list[Span]] = {"up/down": [], "home/end": [], "open": [], "turn": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: _resumed(app), "the resumed notice", pilot.pause)
        # the earlier turns read (after the first frame)
        await until(app.backlog.ready.is_set, "the earlier turns read", pilot.pause)
        await pilot.pause()
        lane = app.main.lane
        assert lane.focus_lane()
        await pilot.pause()

        async def press(name: str, kind: str) -> None:
            started = now()
            if profile is not None and what == "navigation":
                profile.enable()
            await key(app, name)
            await _painted(app)
            if profile is not None and what == "navigation":
                profile.disable()
            times[kind].append(since(started))

        for i in range(presses):
            await press("up" if (i // 25) % 2 == 0 else "down", "up/down")
        for i in range(max(4, presses // 10)):
            await press("home" if i % 2 == 0 else "end", "home/end")
        for _ in range(max(4, presses // 20)):  # open the first turn's line, go back down
            await press("home", "home/end")
            await press("enter", "open")
            await press("end", "home/end")
        # a new turn: Enter in the prompt to the prompt shown in the chat
        turns = max(3, presses // 20)
        times["turn"] = await new_turns(app, pilot, turns, profile if what == "turn" else None)
    return times


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def figures(spans: list[Span], how: str = "median") -> Span:
    pick = statistics.median if how == "median" else p95
    return pick([w for w, _ in spans]) * 1e3, pick([c for _, c in spans]) * 1e3


def row(name: str, value: Span, target: float | None = None) -> str:
    wall, cpu = value
    line = f"{name:<42} {wall:8.1f} ms wall {cpu:8.1f} ms CPU"
    if target is None:
        return line
    ratios = f"ratio {wall / target:5.2f} wall, {cpu / target:5.2f} CPU"
    return f"{line}  target ≤ {target:3.0f} ms  {ratios}"


def _rows(out: str) -> dict[str, Span]:
    """The ``ms wall ... ms CPU`` rows of a run's output, by name."""
    found: dict[str, Span] = {}
    for line in out.splitlines():
        if " ms wall " not in line:
            continue
        name, _, rest = line.partition("  ")
        words = rest.split()
        try:
            wall, cpu = float(words[0]), float(words[3])
        except (IndexError, ValueError):
            continue
        found[name.strip()] = (wall, cpu)
    return found


def side_by_side(args: argparse.Namespace) -> None:
    """Old (``--baseline``) and new, a fresh process each, alternating, ``--rounds`` rounds."""
    import os
    import subprocess

    here = Path(__file__).resolve()
    versions = {"old": args.baseline.resolve() / "src", "new": here.parent.parent / "src"}
    runs: dict[str, list[dict[str, Span]]] = {"old": [], "new": []}
    loads = [Path("/proc/loadavg").read_text().split()[0]]
    for round_ in range(args.rounds):
        order = ["old", "new"] if round_ % 2 == 0 else ["new", "old"]
        for label in order:
            env = dict(os.environ, PYTHONPATH=f"{versions[label]}:{here.parent}")
            command = [sys.executable, str(here), str(args.path), "--runs", str(args.runs)]
            command += ["--presses", str(args.presses)]
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{label} failed:\n{done.stdout}\n{done.stderr[-3000:]}")
            runs[label].append(_rows(done.stdout))
            loads.append(Path("/proc/loadavg").read_text().split()[0])
            print(f"round {round_ + 1} {label}: done (load {loads[-1]})", flush=True)
    print(f"\nold {versions['old']} / new {versions['new']}; {args.rounds} rounds, each")
    print(f"--runs {args.runs} --presses {args.presses}; load average {', '.join(loads)}")
    print(f"{'median over the rounds':<44} {'old wall / CPU':>18} {'new wall / CPU':>18}  new/old")
    for name in runs["new"][0]:
        olds = [r[name] for r in runs["old"] if name in r]
        news = [r[name] for r in runs["new"] if name in r]
        if not olds or not news:
            continue
        old = (statistics.median(w for w, _ in olds), statistics.median(c for _, c in olds))
        new = (statistics.median(w for w, _ in news), statistics.median(c for _, c in news))
        ratio = (
            f"{new[0] / old[0]:.2f} / {new[1] / old[1]:.2f}" if old[0] > 0 and old[1] > 0 else "-"
        )
        print(f"{name:<44} {old[0]:7.1f} / {old[1]:7.1f} {new[0]:7.1f} / {new[1]:7.1f}  {ratio}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", type=Path, nargs="?")
    parser.add_argument("--make", type=Path, help="write a 500-turn, 5,000-call session here")
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--profile", choices=["resume", "navigation", "turn"])
    parser.add_argument("--baseline", type=Path, help="an old tree (with src/) to compare")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.make:
        from bench_resume import make

        make(args.make, args.turns, 8)
        return
    if args.path is None:
        parser.print_help()
        sys.exit(2)
    if args.baseline is not None:
        side_by_side(args)
        return
    from agent_tui.core.conversation.session import SessionLog

    loads = []
    for _ in range(args.runs):
        started = now()
        session = SessionLog.load(args.path)
        loads.append(since(started))
    calls = sum(len(m.tool_calls) for m in session.messages)
    turns = sum(1 for m in session.messages if m.role == "user")
    del session
    profile = cProfile.Profile() if args.profile else None
    resumes, empties, listings = [], [], []
    for run in range(args.runs):  # alternating: an empty session, then the long one
        empties.append(asyncio.run(time_start(None))[0])
        last = run == args.runs - 1
        chosen = profile if args.profile == "resume" and last else None
        shown, listed = asyncio.run(time_start(args.path, chosen))
        resumes.append(shown)
        assert listed is not None
        listings.append(listed)
    times = asyncio.run(interact(args.path, args.presses, profile, args.profile or ""))
    times["turn, empty session"] = asyncio.run(empty_turns(max(3, args.presses // 20)))
    peak, current = status_kb("VmHWM") / 1024, status_kb("VmRSS") / 1024
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"session: {turns:,} turns, {calls:,} calls, {args.path.stat().st_size / 1e6:.1f} MB")
    print(f"load average {' '.join(load)}; medians of {args.runs} runs / {args.presses} presses")
    print(row("load the session file (before the app)", figures(loads)))
    empty, long = figures(empties), figures(resumes)
    print(row("app start, empty session", empty))
    print(row("app start, the long session", long))
    resume = (long[0] - empty[0], long[1] - empty[1])
    print(row("resume (the difference)", resume, TARGET_MS))
    waited = figures(loads)
    waited = (waited[0] + resume[0], waited[1] + resume[1])
    print(row("  with the file's load: --continue's wait", waited))
    listed = figures(listings)
    print(
        row(
            "  and its earlier turns read (after start)", (listed[0] - long[0], listed[1] - long[1])
        )
    )
    for kind, spans in times.items():
        if not spans:
            continue
        name = f"new {kind} start" if kind.startswith("turn") else f"lane {kind}"
        print(row(f"{name} (median of {len(spans)})", figures(spans), TARGET_MS))
        print(row(f"{name} (p95)", figures(spans, "p95"), TARGET_MS))
    ratio = peak / TARGET_MB
    print(
        f"{'peak RSS (VmHWM)':<42} {peak:8.1f} MB  target ≤ {TARGET_MB:.0f} MB  ratio {ratio:.2f}"
    )
    print(f"{'RSS now (VmRSS)':<42} {current:8.1f} MB")
    if profile is not None:
        stats = pstats.Stats(profile)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(25)
        raw = Path(tempfile.gettempdir()) / f"bench-sessions-{args.profile}.prof"
        stats.dump_stats(raw)
        print(f"raw profile: {raw} (python -m pstats)")


if __name__ == "__main__":
    main()
