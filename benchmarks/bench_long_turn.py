"""A long turn stays fast: 300 tool calls in one TUI turn, the last 50 against the first 50.

    PYTHONPATH=src python benchmarks/bench_long_turn.py --runs 3        # ~2 min
    PYTHONPATH=src python benchmarks/bench_long_turn.py --calls 600 --compaction
    PYTHONPATH=src python benchmarks/bench_long_turn.py --headless      # the same, agent-tui -p
    PYTHONPATH=src python benchmarks/bench_long_turn.py --profile /tmp/lt   # lt-first.prof, …

The app is built as ``agent-tui`` builds it (``assemble`` from the command line, in a temporary
project, data and config directory: session file, spills, checkpoints and all) with a script
model (``--model script:PATH``) whose answer is ``--calls`` model requests of one cheap tool
call each (``read_file`` of a 40-line file, or ``--tool list_dir``) and a short text, then a
last text; the prompt is typed once the app is up (a second after its prompt has the focus),
so the whole run is one turn (``--max-turns`` above ``--calls``, ``--permission-mode
bypass``). It runs under
``App.run_test`` at 120×36: the headless driver does what a terminal run does — layout,
styles, the compositor rendering every changed line — except writing the escape codes. Each
run is a process of its own (``--runs``), so one run's heap does not weigh on the next.

The user settings give the model a window the turn never fills, so every call costs the same
work; ``--compaction`` keeps the script model's own (32k): the turn then compacts itself two
or three times, each compaction taking one scripted answer as its summary (a run makes a few
calls fewer than ``--calls``), and a window of 50 calls may or may not hold one.

Each call is timed as the app has shown its result (``on_agent_event`` returned), and the
process's RSS is read then. Printed per run: calls per second over the first 50 calls and over
the last 50, the RSS at the end of each, their ratio, the turn's wall time, and the widgets on
the main screen at call 50 and at the end (what a refresh lays out). ``--headless`` runs the
same script through ``run_headless`` (no UI) for comparison; ``--profile PREFIX`` writes a
cProfile of the first 50 calls and one of the last 50 (``PREFIX-first.prof``,
``PREFIX-late.prof``) to compare what grew; ``--count`` prints how many Python function calls
each window made per tool call (cProfile's count: the same however busy the machine is).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEADLINE_SECONDS = 600.0
WINDOW = 50


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def make_project(calls: int, tool: str, compaction: bool) -> tuple[Path, Path]:
    """A temporary project with a small file and the script; (cwd, script path). The data
    and config directories are temporary too; without ``compaction`` the user settings give
    the model a window the turn never fills."""
    root = Path(tempfile.mkdtemp(prefix="bench-long-turn-"))
    cwd = root / "project"
    cwd.mkdir()
    (cwd / "notes.txt").write_text("".join(f"line {n}\n" for n in range(40)), encoding="utf-8")
    for n in range(5):
        (cwd / f"file{n}.py").write_text("x = 1\n", encoding="utf-8")
    args = {"path": "notes.txt"} if tool == "read_file" else {"path": "."}
    turns: list[dict[str, Any]] = [
        {"text": f"Step {n}.", "tool_calls": [{"name": tool, "arguments": args}]}
        for n in range(calls)
    ]
    turns.append({"text": "Done."})
    script = root / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    os.environ["AGENT_TUI_DATA_DIR"] = str(root / "data")
    config = root / "config"
    config.mkdir()
    os.environ["AGENT_TUI_CONFIG_DIR"] = str(config)
    if not compaction:
        settings = {"model": {"context_window": 10_000_000}}
        (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return cwd, script


def command_line(script: Path, calls: int, cwd: Path) -> list[str]:
    return [
        "--model",
        f"script:{script}",
        "--max-turns",
        str(calls + 10),
        "--permission-mode",
        "bypass",
        "--cwd",
        str(cwd),
    ]


@dataclass
class Run:
    marks: list[tuple[float, float, float]] = field(default_factory=list)
    """(seconds since the start, RSS in MB, CPU seconds of the process) as each call's result
    was shown."""
    widgets: list[int] = field(default_factory=list)
    """Widgets on the main screen at call ``WINDOW`` and at the end."""
    python_calls: list[int] = field(default_factory=list)
    """Python function calls made during each window (``--count``)."""


MIDDLE = 2 * WINDOW
"""The middle window: calls ``MIDDLE + 1`` .. ``MIDDLE + WINDOW`` (101–150), where the chat
and the lane are already full (items freeze, cards fold): the steady state the first window
has not reached yet."""


class Profiles:
    """cProfile of each window (the first ``WINDOW`` calls, the middle ones, the last ones:
    from ``late`` to the turn's end): how many Python function calls each took is the same on
    a busy machine as on a quiet one, where seconds are not."""

    def __init__(self, late: int, prefix: Path | None, count: bool) -> None:
        self.starts = {0: 0, MIDDLE: 1, late: 2}
        self.stops = {WINDOW: 0, MIDDLE + WINDOW: 1}
        self.prefix = prefix
        self.on = count or prefix is not None
        self.profiles = [cProfile.Profile() for _ in range(3)]

    def at(self, done: int) -> None:
        """``done`` calls have been shown."""
        if not self.on:
            return
        if done in self.stops:
            self.profiles[self.stops[done]].disable()
        if done in self.starts:
            self.profiles[self.starts[done]].enable()

    def finish(self) -> list[int]:
        """Stop; the Python function calls of each window (none when not counted)."""
        if not self.on:
            return []
        self.profiles[2].disable()
        if self.prefix is not None:
            for name, profile in zip(("first", "middle", "last"), self.profiles, strict=True):
                profile.dump_stats(Path(f"{self.prefix}-{name}.prof"))
        return [pstats.Stats(profile).total_calls for profile in self.profiles]


async def run_tui(cwd: Path, script: Path, calls: int, profiles: Profiles) -> Run:
    from agent_tui.cli.assemble import assemble
    from agent_tui.cli.main import build_parser
    from agent_tui.core.events import ToolErrorEvent, ToolResult
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.shell.boot import Booted, first_look

    args = build_parser().parse_args([*command_line(script, calls, cwd), "go"])

    def boot() -> Booted:
        core = assemble(args, cwd)
        return Booted(core.agent, core.start)

    run = Run()
    clock: list[float] = []

    class TimedApp(AgentApp):
        async def on_agent_event(self, message: Any) -> None:
            """Each result timed once the app has shown it."""
            message.prevent_default()  # the handler called here is the app's: run it once
            if not clock:  # the turn's first event (its prompt): the clock starts
                clock.append(time.perf_counter())
                profiles.at(0)
            await AgentApp.on_agent_event(self, message)
            if isinstance(message.event, ToolResult | ToolErrorEvent):
                run.marks.append((time.perf_counter() - clock[0], rss_mb(), time.process_time()))
                profiles.at(len(run.marks))
                if len(run.marks) == WINDOW:
                    run.widgets.append(len(list(self.screen.walk_children())))

    TimedApp.QUIET_GC = True  # as in the app's own process
    app = TimedApp(boot=boot, first=first_look(args.model, "bypass", cwd))
    async with app.run_test(size=(120, 36)) as pilot:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while app.booted is None or not app.main.prompt.has_focus:
            if time.monotonic() > deadline:
                raise RuntimeError("the app did not boot")
            await pilot.pause()
        await asyncio.sleep(1.0)  # the start-up's background work done (mentions, preloads)
        app.main.prompt.insert("go")  # the prompt typed, as a user would once the app is up
        await pilot.press("enter")
        while not run.marks or app.busy:
            if time.monotonic() > deadline:
                raise RuntimeError(f"stuck at call {len(run.marks)} of {calls}")
            await asyncio.sleep(0.005)
        run.widgets.append(len(list(app.screen.walk_children())))
    run.python_calls = profiles.finish()
    return run


async def run_plain(cwd: Path, script: Path, calls: int) -> Run:
    """The same through ``run_headless`` (its text output thrown away), timed per call."""
    from agent_tui.cli.assemble import assemble
    from agent_tui.cli.main import build_parser
    from agent_tui.core.events import ToolErrorEvent, ToolResult
    from agent_tui.headless.run import run_headless

    args = build_parser().parse_args([*command_line(script, calls, cwd), "-p", "go"])
    core = assemble(args, cwd)
    agent = core.agent
    run = Run()
    start = time.perf_counter()
    turn = agent.run

    async def timed(prompt: str, **kwargs: Any) -> Any:
        async for event in turn(prompt, **kwargs):
            yield event
            if isinstance(event, ToolResult | ToolErrorEvent):  # once it was printed
                run.marks.append((time.perf_counter() - start, rss_mb(), time.process_time()))

    agent.run = timed  # type: ignore[method-assign]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        await run_headless(agent, "go", "text", session_start=core.start)
    return run


def rate(marks: list[tuple[float, float, float]], column: int = 0) -> float:
    """Calls per second (``column`` 0: wall-clock, 2: CPU) from the first mark to the last."""
    return (len(marks) - 1) / (marks[-1][column] - marks[0][column])


@dataclass
class Figures:
    calls: int
    seconds: float
    windows: list[str]
    rates: list[float]
    """Calls per second in each window."""
    cpu_rates: list[float]
    """Calls per CPU-second of the process (steadier than wall-clock on a shared machine)."""
    rss: list[float]
    """RSS at the end of each window."""
    widgets: list[int]
    python_calls: list[int]


def figures(run: Run) -> Figures:
    marks = run.marks
    calls = len(marks)
    parts = [(1, marks[:WINDOW]), (MIDDLE + 1, marks[MIDDLE : MIDDLE + WINDOW])]
    parts.append((calls - WINDOW + 1, marks[-WINDOW:]))
    return Figures(
        calls=calls,
        seconds=marks[-1][0],
        windows=[f"{start}–{start + len(part) - 1}" for start, part in parts],
        rates=[rate(part) for _, part in parts],
        cpu_rates=[rate(part, 2) for _, part in parts],
        rss=[part[-1][1] for _, part in parts],
        widgets=run.widgets,
        python_calls=run.python_calls,
    )


def report(found: Figures, what: str) -> None:
    print(f"{what}: {found.calls} calls in one turn, {found.seconds:.1f} s")
    per_call = [n / WINDOW for n in found.python_calls] or [0.0] * 3
    for name, wall, cpu, rss, python in zip(
        found.windows, found.rates, found.cpu_rates, found.rss, per_call, strict=True
    ):
        count = f", {python:,.0f} Python calls per call" if python else ""
        print(f"  calls {name:>9}: {wall:6.1f}/s ({cpu:6.1f} per CPU-s), RSS {rss:6.1f} MB{count}")
    ratio, cpu_ratio = found.rates[2] / found.rates[0], found.cpu_rates[2] / found.cpu_rates[0]
    steady = found.cpu_rates[2] / found.cpu_rates[1]
    print(
        f"  last/first: {ratio:.2f}× ({cpu_ratio:.2f}× per CPU-s; last/middle {steady:.2f}×), "
        f"RSS +{found.rss[2] - found.rss[0]:.1f} MB"
    )
    if found.widgets:
        first, end = found.widgets[0], found.widgets[-1]
        print(f"  widgets on the main screen: {first} at call {WINDOW}, {end} at the end")


def one_run(args: argparse.Namespace) -> Figures:
    cwd, script = make_project(args.calls, args.tool, args.compaction)
    if args.headless:
        run = asyncio.run(run_plain(cwd, script, args.calls))
    else:
        late = args.calls - WINDOW - (15 if args.compaction else 0)  # compactions take a few
        profiles = Profiles(late, args.profile, args.count)
        run = asyncio.run(run_tui(cwd, script, args.calls, profiles))
    return figures(run)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--runs", type=int, default=1, help="each in a process of its own")
    parser.add_argument("--tool", choices=["read_file", "list_dir"], default="read_file")
    parser.add_argument("--headless", action="store_true", help="run_headless instead of the TUI")
    parser.add_argument(
        "--compaction",
        action="store_true",
        help="the script model's own 32k window: the turn compacts itself (a few calls fewer)",
    )
    parser.add_argument("--profile", type=Path, help="cProfile two windows: PREFIX-first.prof …")
    parser.add_argument(
        "--count", action="store_true", help="count the Python function calls of both windows"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.calls < 3 * WINDOW:
        parser.error(f"--calls must be at least {3 * WINDOW}")
    if args.json:  # one run, for the process that started this one
        print(json.dumps(one_run(args).__dict__))
        return
    what = "headless" if args.headless else "TUI"
    found: list[Figures] = []
    for number in range(args.runs):
        child = [sys.executable, __file__, "--json", "--calls", str(args.calls)]
        child += ["--tool", args.tool] + [
            f"--{flag}" for flag in ("headless", "compaction", "count") if getattr(args, flag)
        ]
        if args.profile and number == args.runs - 1:
            child += ["--profile", str(args.profile)]
        out = subprocess.run(child, check=True, capture_output=True, text=True).stdout
        found.append(Figures(**json.loads(out.strip().splitlines()[-1])))
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        report(found[-1], f"{what} run {number + 1} (load {load})")
    if len(found) > 1:
        median = statistics.median
        first = median(f.rates[0] for f in found)
        last = median(f.rates[2] for f in found)
        ratio = median(f.rates[2] / f.rates[0] for f in found)
        cpu_ratio = median(f.cpu_rates[2] / f.cpu_rates[0] for f in found)
        steady = median(f.cpu_rates[2] / f.cpu_rates[1] for f in found)
        growth = median(f.rss[2] - f.rss[0] for f in found)
        print(
            f"median of {len(found)} runs: {first:.1f} → {last:.1f} calls/s, last/first "
            f"{ratio:.2f}× ({cpu_ratio:.2f}× per CPU-s; last/middle {steady:.2f}×), "
            f"RSS +{growth:.1f} MB"
        )


if __name__ == "__main__":
    main()
