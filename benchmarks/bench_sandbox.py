"""What the sandbox and the lifeline cost a command: the median wall time of ``true`` and of a
short ``ls`` through ``bash -c``: plain, under the lifeline's script (the watchdog started as
a Python interpreter, ``lifeline_argv``: the fallback), under the watchdog the lifeline's
zygote clones (``sandbox.zygote``: what ``run_shell`` uses before unsandboxed commands) and in
bubblewrap — the exact argvs ``run_shell`` runs, each in a new session as it starts them. Then
what building the sandboxed argv costs before each command (``ShellSandbox.wrap``: the agent's
state dirs, the machine's Unix sockets from ``/proc/net/unix`` and ``mountinfo``), and the
environment (``environment.for_command``). Last, whole ``run_shell`` calls (``--calls`` of
``true`` a round, ``--rounds`` rounds): unsandboxed through the zygote, unsandboxed through the
script, sandboxed — interleaved, the order turning each round; the median round.

    PYTHONPATH=src python benchmarks/bench_sandbox.py            # 200 runs of each, alternating
    PYTHONPATH=src python benchmarks/bench_sandbox.py --argv     # print the wrapped argvs
    PYTHONPATH=src python benchmarks/bench_sandbox.py --runs 0 --rounds 9   # run_shell only
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox, ShellSandbox, zygote
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.sandbox.lifeline import lifeline_argv
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import run_shell


def main() -> None:
    asyncio.run(_main())


async def _cloned(argv: list[str], work: Path, devnull: int) -> None:
    """``argv`` under a watchdog the zygote clones, to its end (as ``subprocess.run``)."""
    watched = await zygote.start(argv, work, dict(os.environ), devnull)
    assert watched is not None, "no zygote here"
    assert await watched.wait() == 0


def _cpu() -> float:
    """CPU seconds used by this process and its reaped children (the watchdogs, the commands)."""
    me, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _zygote_cpu() -> float:
    """CPU seconds the zygotes used (in clock ticks: meaningful summed over many runs)."""
    total = 0
    for pid in zygote.running():
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


async def _main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--argv", action="store_true")
    parser.add_argument("--calls", type=int, default=50, help="run_shell calls a round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of them (0: none)")
    parser.add_argument(
        "--git",
        action="store_true",
        help="make the workspace a git repository (.git and its protected files are mounted)",
    )
    args = parser.parse_args()
    backend = Bubblewrap()
    if (problem := backend.problem()) is not None:
        print(f"no sandbox here ({problem}): plain and lifeline only")
    work = Path(tempfile.mkdtemp())
    for i in range(20):
        (work / f"f{i}").write_text("x")
    if args.git:
        subprocess.run(["git", "init", "-q", str(work)], check=True)  # noqa: ASYNC221
    sandbox = ShellSandbox(backend, SandboxSettings(), work)
    bash = shutil.which("bash") or "/bin/sh"
    devnull = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    for command in ("true", "ls -la"):
        plain = [bash, "-c", command]
        variants = {"plain": plain, "lifeline": lifeline_argv(plain)}
        cloned = zygote.usable()
        if cloned:
            variants["zygote"] = plain
        if problem is None:
            variants["sandboxed"] = sandbox.wrap(plain, work)
        if args.argv:
            for name, argv in variants.items():
                print(f"{name}: {' '.join(argv)}")
            continue
        if not args.runs:
            continue
        if cloned:  # the zygote started once, before the timing (as after a session's first)
            await _cloned(plain, work, devnull)
        times: dict[str, list[float]] = {name: [] for name in variants}
        cpu = dict.fromkeys(variants, 0.0)
        zygote_cpu = _zygote_cpu()
        for _ in range(args.runs):
            for name, argv in variants.items():
                used = _cpu()
                start = time.perf_counter()
                if name == "zygote":
                    await _cloned(argv, work, devnull)
                else:
                    subprocess.run(  # noqa: ASYNC221 (timed whole, as before the zygote)
                        argv,
                        cwd=work,
                        stdout=subprocess.DEVNULL,
                        check=True,
                        start_new_session=True,
                    )
                times[name].append(time.perf_counter() - start)
                cpu[name] += _cpu() - used
        if cloned:  # the zygote's own share (only the zygote's runs make it work)
            cpu["zygote"] += _zygote_cpu() - zygote_cpu
        medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
        base = medians["plain"]
        row = [f"{command:8} plain {base:6.2f} ms"]
        row += [f"{n} {m:6.2f} ms (+{m - base:5.2f})" for n, m in medians.items() if n != "plain"]
        print(" · ".join(row))
        spent = [f"{n} {c / args.runs * 1000:6.2f} ms" for n, c in cpu.items()]
        print(f"{'':8} CPU a run (agent, children, zygote): " + " · ".join(spent))
    if problem is None and not args.argv and args.runs:
        from agent_tui.core.sandbox import environment

        wraps, envs = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            sandbox.wrap([bash, "-c", "true"], work)
            wraps.append(time.perf_counter() - start)
            start = time.perf_counter()
            environment.for_command(sandbox, passed=["MYAPP_*"])
            envs.append(time.perf_counter() - start)
        with open("/proc/net/unix", encoding="utf-8", errors="replace") as fh:  # noqa: ASYNC230
            listed = sum(1 for _ in fh) - 1
        print(
            f"wrap (before each command; {listed} sockets listed here) "
            f"{statistics.median(wraps) * 1000:6.2f} ms · environment "
            f"{statistics.median(envs) * 1000:6.2f} ms"
        )
    if args.rounds and not args.argv:
        await _calls(work, args.calls, args.rounds, problem is None)


async def _calls(work: Path, calls: int, rounds: int, sandboxed: bool) -> None:
    """``rounds`` rounds of ``calls`` ``run_shell`` calls of ``true`` in each way, interleaved
    (the order turns each round); the median round's wall time in each way."""
    off = ToolContext(cwd=work, sandbox=SessionSandbox(SandboxSettings(mode="off"), work))
    ways = {"zygote": off, "script": off}
    if sandboxed:
        box = SessionSandbox(SandboxSettings(mode="required"), work)
        ways["sandboxed"] = ToolContext(cwd=work, sandbox=box)
    inp = run_shell.RunShellInput(command="true")
    usable = zygote.usable
    failed: list[str] = []

    async def round_of(way: str) -> float:
        zygote.usable = usable if way == "zygote" else (lambda: False)  # type: ignore[assignment]
        try:
            start = time.perf_counter()
            for _ in range(calls):
                out = await run_shell.TOOL.call(inp, ways[way])
                if not out.content.endswith("[exit code 0]"):
                    # bubblewrap may fail on a socket another process makes or removes meanwhile
                    assert way == "sandboxed", out.content
                    failed.append(out.content)
            return time.perf_counter() - start
        finally:
            zygote.usable = usable  # type: ignore[assignment]

    for way in ways:  # warm: imports, the zygote, the sandbox's first walk
        await round_of(way)
    times: dict[str, list[float]] = {way: [] for way in ways}
    names = list(ways)
    for turn in range(rounds):
        for way in names[turn % len(names) :] + names[: turn % len(names)]:
            times[way].append(await round_of(way))
    row = [
        f"{way} {statistics.median(spent):5.2f} s (min {min(spent):5.2f})"
        for way, spent in times.items()
    ]
    print(f"run_shell x{calls} (median of {rounds} rounds): " + " · ".join(row))
    if failed:
        print(f"{len(failed)} sandboxed calls failed, e.g. {failed[0]!r}")


if __name__ == "__main__":
    main()
