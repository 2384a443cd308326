"""What the sandbox and the lifeline cost a command: the median wall time of ``true`` and of a
short ``ls`` through ``bash -c``: plain, under the lifeline (the watchdog ``run_shell`` puts
before unsandboxed commands) and in bubblewrap — the exact argvs ``run_shell`` runs, each in a
new session as it starts them. Then what building the sandboxed argv costs before each command
(``ShellSandbox.wrap``: the agent's state dirs, the machine's Unix sockets from
``/proc/net/unix`` and ``mountinfo``), and the environment (``environment.for_command``).

    PYTHONPATH=src python benchmarks/bench_sandbox.py            # 200 runs of each, alternating
    PYTHONPATH=src python benchmarks/bench_sandbox.py --argv     # print the wrapped argvs
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from agent_tui.core.sandbox import SandboxSettings, ShellSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.sandbox.lifeline import lifeline_argv


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--argv", action="store_true")
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
        subprocess.run(["git", "init", "-q", str(work)], check=True)
    sandbox = ShellSandbox(backend, SandboxSettings(), work)
    bash = shutil.which("bash") or "/bin/sh"
    for command in ("true", "ls -la"):
        plain = [bash, "-c", command]
        variants = {"plain": plain, "lifeline": lifeline_argv(plain)}
        if problem is None:
            variants["sandboxed"] = sandbox.wrap(plain, work)
        if args.argv:
            for name, argv in variants.items():
                print(f"{name}: {' '.join(argv)}")
            continue
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.runs):
            for name, argv in variants.items():
                start = time.perf_counter()
                subprocess.run(
                    argv, cwd=work, stdout=subprocess.DEVNULL, check=True, start_new_session=True
                )
                times[name].append(time.perf_counter() - start)
        medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
        base = medians["plain"]
        row = [f"{command:8} plain {base:6.2f} ms"]
        row += [f"{n} {m:6.2f} ms (+{m - base:5.2f})" for n, m in medians.items() if n != "plain"]
        print(" · ".join(row))
    if problem is None and not args.argv:
        from agent_tui.core.sandbox import environment

        wraps, envs = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            sandbox.wrap([bash, "-c", "true"], work)
            wraps.append(time.perf_counter() - start)
            start = time.perf_counter()
            environment.for_command(sandbox, passed=["MYAPP_*"])
            envs.append(time.perf_counter() - start)
        with open("/proc/net/unix", encoding="utf-8", errors="replace") as fh:
            listed = sum(1 for _ in fh) - 1
        print(
            f"wrap (before each command; {listed} sockets listed here) "
            f"{statistics.median(wraps) * 1000:6.2f} ms · environment "
            f"{statistics.median(envs) * 1000:6.2f} ms"
        )


if __name__ == "__main__":
    main()
