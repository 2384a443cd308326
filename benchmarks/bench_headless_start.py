"""Headless start and idle memory (issue 45): ``agent-tui -p`` against ``python -c pass``.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_headless_start.py             # 15 rounds
    PYTHONPATH=src python benchmarks/bench_headless_start.py --runs 31 --settle 3
    git archive main src | tar -x -C /tmp/old     # the version before, beside this one
    PYTHONPATH=src python benchmarks/bench_headless_start.py --baseline /tmp/old
    PYTHONPATH=src python benchmarks/bench_headless_start.py --rss-only --rss-parts --rss-runs 5

Each round spawns, in turn and interleaved (a change of load hits all of them alike):

- ``python -c pass``: the interpreter alone, the yardstick;
- ``python -m agent_tui -p hello --model demo``: a one-turn headless session with the offline
  demo model (``AGENT_DEMO_DELAY=0``: no simulated typing), in a fresh directory with fresh
  data and config directories, its output discarded;
- with ``--baseline CHECKOUT``, the same run of that checkout's ``src`` (compile it first:
  ``python -m compileall -q CHECKOUT/src``), and its idle TUI beside this one's;
- the same with no bytecode cache (``PYTHONPYCACHEPREFIX`` at an empty directory and
  ``PYTHONDONTWRITEBYTECODE=1``): what an editable install costs on a machine that never
  writes ``.pyc`` files, every start.

Reported: the median wall time (spawn → exit) and CPU time (user + system, from ``wait4``) of
each, the ratio to ``python -c pass`` (target ≤ 10×), and how many modules the headless run
imports. Then the **idle RSS**: a trivial Textual app (one ``Static``) and the TUI
(``--model demo``) each on a pseudo-terminal, ``--settle`` seconds after the screen is painted
(the TUI: after its main screen opened on the built core), the resident memory of the process
and every descendant, summed from ``/proc`` (target ≤ 60 MB). ``--rss-only`` measures only
that; ``--rss-parts`` measures the TUI once more without each of ``PARTS`` (the preload, its
screens, the ``@`` index and its watcher): what each holds at idle.

With ``--instructions``, each run once more under ``valgrind --tool=callgrind``: the instructions
it executes, a count no other job on the machine changes (a loaded machine moves CPU times by
±10 % from one round to the next), and its ratio to ``python -c pass``'s.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path
from typing import Any

from bench_ui import COLUMNS, ROWS, _report

RATIO_TARGET = 10.0
RSS_TARGET_MB = 60.0
KINDS = ("pass", "headless", "headless-no-pyc")


def _env(work: Path) -> dict[str, str]:
    paths = [
        str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "AGENT_TUI_DATA_DIR": str(work / "data"),
        "AGENT_TUI_CONFIG_DIR": str(work / "config"),
        "AGENT_TUI_LOG_DIR": str(work / "log"),
        "AGENT_DEMO_DELAY": "0",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
    }
    for name in ("AGENT_API_KEY", "AGENT_BASE_URL", "AGENT_MODEL", "ANTHROPIC_API_KEY"):
        env.pop(name, None)
    return env


def run_once(kind: str, work: Path, baseline: Path | None = None) -> dict[str, float]:
    """Spawn one child of ``kind``; wall and CPU seconds from spawn to exit."""
    project = work / "project"
    project.mkdir(parents=True)
    env = _env(work)
    if kind == "baseline" and baseline is not None:
        env["PYTHONPATH"] = str(baseline / "src")
    if kind == "pass":
        command = [sys.executable, "-c", "pass"]
    else:
        command = [sys.executable, "-m", "agent_tui", "-p", "hello", "--model", "demo"]
    if kind == "headless-no-pyc":
        empty = work / "pycache"
        empty.mkdir()
        env |= {"PYTHONPYCACHEPREFIX": str(empty), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    child = subprocess.Popen(
        command,
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{kind} exited {child.returncode}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime}


def instructions(kind: str, work: Path, baseline: Path | None = None) -> int:
    """The instructions ``kind`` executes (``valgrind --tool=callgrind``, all threads)."""
    project = work / "project"
    project.mkdir(parents=True)
    env = _env(work)
    if kind == "baseline" and baseline is not None:
        env["PYTHONPATH"] = str(baseline / "src")
    args = (
        ["-c", "pass"] if kind == "pass" else ["-m", "agent_tui", "-p", "hello", "--model", "demo"]
    )
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *args],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    return int(done.stderr.rpartition("Collected :")[2].split()[0])


def modules_imported(work: Path, src: Path | None = None) -> tuple[int, list[str]]:
    """How many modules a headless demo run imports, and which of the heavy packages."""
    project = work / "modules"
    project.mkdir(parents=True)
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['agent-tui', '-p', 'hello', '--model', 'demo']\n"
        "try:\n    runpy.run_module('agent_tui', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "heavy = ('pydantic', 'mcp', 'textual', 'rich', 'httpx', 'anyio', 'ssl')\n"
        "print(len(sys.modules), ' '.join(h for h in heavy if h in sys.modules), "
        "file=sys.__stderr__)\n"
    )
    env = _env(work)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    count, *heavy = done.stderr.strip().splitlines()[-1].split()
    return int(count), heavy


# -- idle memory of the TUI ------------------------------------------------------------------


def child_idle(fd: int, kind: str, cwd: str) -> None:
    """The app of ``kind`` on this terminal: reports once painted (the TUI: once its main screen
    is open on the core), then stays idle until killed."""
    if kind == "trivial":
        from textual.app import App, ComposeResult
        from textual.widgets import Static

        class Trivial(App[None]):
            def compose(self) -> ComposeResult:
                yield Static("hello")

            def on_mount(self) -> None:
                self.call_after_refresh(lambda: _report(fd, ready=time.time()))

        Trivial().run()
        return
    import agent_tui.cli.main as cli
    from agent_tui.ui import app as ui_app

    _without(os.environ.get("BENCH_IDLE_WITHOUT", ""))
    opened = ui_app.AgentApp._open

    async def open_main(self: ui_app.AgentApp) -> None:
        await opened(self)
        self.call_after_refresh(lambda: _report(fd, ready=time.time()))

    ui_app.AgentApp._open = open_main  # type: ignore[method-assign]
    cli.main(["--cwd", cwd, "--model", "demo"])


PARTS = ("preload", "screens", "index")
"""What ``--rss-parts`` leaves out of the TUI, one at a time, to show what it holds at idle:
the whole preload (``ui.shell.preload``), only its screens' imports (the CSS parse and the
schemas stay), the ``@`` picker's index and its file watcher (``watchfiles``)."""


def _without(part: str) -> None:
    """Leave ``part`` (of ``PARTS``) out of the TUI in this process (a measurement only)."""
    if part == "preload":
        from agent_tui.ui.shell import screen_actions

        def done(app: object, agent: object = None, then: Any = None) -> None:
            if then is not None:
                then()

        screen_actions.preload = done  # type: ignore[assignment]
    elif part == "screens":
        from agent_tui.ui.shell import preload

        preload.MODULES = ()
    elif part == "index":
        from agent_tui.ui.shell.background import Background

        Background._index_mentions = lambda self: None  # type: ignore[method-assign]


def tree_rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants, in KiB."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
    return total


def idle_rss(
    kind: str, work: Path, settle: float, baseline: Path | None = None, without: str = ""
) -> float:
    """MB resident in the process tree of ``kind`` ``settle`` seconds after it is ready
    (the TUI ``without`` one of ``PARTS``)."""
    project = work / "project"
    project.mkdir(parents=True)
    read_end, write_end = os.pipe()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))

    def drain() -> None:
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass

    threading.Thread(target=drain, daemon=True).start()
    env = _env(work)
    if kind == "baseline" and baseline is not None:
        env["PYTHONPATH"] = str(baseline / "src")
    env["BENCH_IDLE_WITHOUT"] = without
    child = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--child",
            "tui" if kind == "baseline" else kind,
            "--cwd",
            str(project),
            "--fd",
            str(write_end),
        ],
        stdin=slave,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        pass_fds=(write_end,),
        env=env,
        cwd=project,
    )
    os.close(slave)
    os.close(write_end)
    with os.fdopen(read_end) as reports:
        line = reports.readline()
    try:
        if not line:
            raise RuntimeError(f"the {kind} child reported nothing")
        time.sleep(settle)
        return tree_rss_kb(child.pid) / 1024
    finally:
        child.kill()
        child.wait(timeout=60)
        os.close(master)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--rss-runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=2.0, help="idle seconds before the RSS")
    parser.add_argument("--baseline", type=Path, help="another checkout to run beside this one")
    parser.add_argument("--instructions", action="store_true", help="count them (valgrind)")
    parser.add_argument("--rss-only", action="store_true", help="only the idle RSS (no starts)")
    parser.add_argument(
        "--rss-parts", action="store_true", help="the TUI's idle RSS without each of PARTS too"
    )
    parser.add_argument("--child", choices=("trivial", "tui"))
    parser.add_argument("--cwd")
    parser.add_argument("--fd", type=int)
    args = parser.parse_args()
    if args.child:
        child_idle(args.fd, args.child, args.cwd)
        return
    root = Path(tempfile.mkdtemp(prefix="bench-headless-"))
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    kinds = [*KINDS, *(["baseline"] if args.baseline else [])]
    figures: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
    for _ in range(0 if args.rss_only else args.runs):
        for kind in kinds:
            work = Path(tempfile.mkdtemp(dir=root))
            figures[kind].append(run_once(kind, work, args.baseline))
    rss: dict[str, list[float]] = {"trivial": [], "tui": []}
    if args.baseline:
        rss["baseline"] = []
    for part in PARTS if args.rss_parts else ():
        rss[f"without {part}"] = []
    for _ in range(args.rss_runs):
        for kind in rss:
            work = Path(tempfile.mkdtemp(dir=root))
            part = kind.removeprefix("without ") if kind.startswith("without ") else ""
            rss[kind].append(
                idle_rss("tui" if part else kind, work, args.settle, args.baseline, part)
            )
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    if args.rss_only:
        print(f"load average before {' '.join(load_before)}, after {' '.join(load_after)}")
    else:
        _print_starts(args, root, figures, load_before, load_after)
    print(f"\nidle RSS, process tree, {args.settle:g} s after ready, median of {args.rss_runs}")
    for kind, label in (
        ("trivial", "trivial Textual app"),
        ("tui", "agent-tui --model demo"),
        *([("baseline", f"baseline {args.baseline}")] if args.baseline else []),
        *[(f"without {part}", f"  the same without {part}") for part in PARTS if args.rss_parts],
    ):
        mb = statistics.median(rss[kind])
        target = f"   target ≤ {RSS_TARGET_MB:.0f} MB" if kind == "tui" else ""
        runs = " ".join(f"{m:.1f}" for m in rss[kind])
        print(f"{label:40}{mb:>6.1f} MB{target}   ({runs})")


def _print_starts(
    args: argparse.Namespace,
    root: Path,
    figures: dict[str, list[dict[str, float]]],
    load_before: list[str],
    load_after: list[str],
) -> None:
    """The start figures: spawn → exit, the modules imported, the instructions."""
    count, heavy = modules_imported(Path(tempfile.mkdtemp(dir=root)))

    def median(kind: str, key: str) -> float:
        return statistics.median(f[key] for f in figures[kind])

    print(f"spawn → exit, median of {args.runs} interleaved rounds")
    print(f"load average before {' '.join(load_before)}, after {' '.join(load_after)}")
    base_wall, base_cpu = median("pass", "wall"), median("pass", "cpu")
    print(f"{'':40}{'wall':>9}{'ratio':>8}{'cpu':>9}{'ratio':>8}   target ≤ {RATIO_TARGET:.0f}×")
    for kind, label in (
        ("pass", "python -c pass"),
        ("headless", "agent-tui -p hello --model demo"),
        ("headless-no-pyc", "the same, no bytecode cache"),
        *([("baseline", f"baseline {args.baseline}")] if args.baseline else []),
    ):
        wall, cpu = median(kind, "wall"), median(kind, "cpu")
        print(
            f"{label:40}{wall * 1000:>6.0f} ms{wall / base_wall:>7.1f}×"
            f"{cpu * 1000:>6.0f} ms{cpu / max(base_cpu, 1e-3):>7.1f}×"
        )
    print(f"modules the headless run imports: {count}; of the heavy ones: {' '.join(heavy) or '-'}")
    if args.baseline:
        count, heavy = modules_imported(Path(tempfile.mkdtemp(dir=root)), args.baseline / "src")
        print(f"  the baseline's: {count}; of the heavy ones: {' '.join(heavy) or '-'}")
    if args.instructions:
        counted = {
            kind: instructions(kind, Path(tempfile.mkdtemp(dir=root)), args.baseline)
            for kind in ("pass", "headless", *(["baseline"] if args.baseline else []))
        }
        print("\ninstructions executed (valgrind --tool=callgrind), ratio to python -c pass")
        for kind, count in counted.items():
            print(f"{kind:40}{count / 1e6:>8,.0f} M{count / counted['pass']:>7.1f}×")


if __name__ == "__main__":
    main()
