"""What the sandbox costs a command: the median wall time of ``true`` and of a short ``ls``
through ``bash -c``, with and without bubblewrap, the exact argv ``run_shell`` runs.

    PYTHONPATH=src python benchmarks/bench_sandbox.py            # 200 runs of each, alternating
    PYTHONPATH=src python benchmarks/bench_sandbox.py --argv     # print the sandboxed argv
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--argv", action="store_true")
    args = parser.parse_args()
    backend = Bubblewrap()
    if (problem := backend.problem()) is not None:
        raise SystemExit(f"no sandbox here: {problem}")
    work = Path(tempfile.mkdtemp())
    for i in range(20):
        (work / f"f{i}").write_text("x")
    sandbox = ShellSandbox(backend, SandboxSettings(), work)
    bash = shutil.which("bash") or "/bin/sh"
    for command in ("true", "ls -la"):
        plain = [bash, "-c", command]
        boxed = sandbox.wrap(plain, work)
        if args.argv:
            print(" ".join(boxed))
            continue
        times: dict[str, list[float]] = {"plain": [], "sandboxed": []}
        for _ in range(args.runs):
            for name, argv in (("plain", plain), ("sandboxed", boxed)):
                start = time.perf_counter()
                subprocess.run(argv, cwd=work, stdout=subprocess.DEVNULL, check=True)
                times[name].append(time.perf_counter() - start)
        p, s = (statistics.median(times[k]) * 1000 for k in ("plain", "sandboxed"))
        print(f"{command:8} plain {p:6.2f} ms · sandboxed {s:6.2f} ms · added {s - p:6.2f} ms")


if __name__ == "__main__":
    main()
