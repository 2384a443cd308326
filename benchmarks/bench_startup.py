"""Start-up: launch → first paint, and launch → core ready, of the TUI.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_startup.py            # 7 rounds
    PYTHONPATH=src python benchmarks/bench_startup.py --runs 11

Each round spawns, in turn, a trivial Textual app (one ``Static``, ``bench_ui``'s), then
``agent-tui`` through ``cli.main`` with the offline demo model, then with an OpenAI-compatible
model configured (``--model openai:gpt-x``, ``AGENT_API_KEY`` and ``AGENT_BASE_URL`` pointing at
127.0.0.1: no request is made at start-up), each on a pseudo-terminal of its own (the real
driver writes there; this process drains it). Reported, median of the rounds:

- **first paint**: spawn → the first painted screen (the shell of ``AgentApp(boot=…)``: header,
  empty chat and lane, prompt, status bar with the model), and its ratio to the trivial app's;
  marked as the app's ``_after_first_frame`` starts (the frame is out by then), so what the
  app does after the frame (the real prompt, the core's thread, the footer) is not counted;
- **core ready**: spawn → the main screen open on the built core (provider, session,
  settings, permissions, tools, MCP manager, agent), when a message typed meanwhile is sent.

With ``--baseline CHECKOUT`` (another checkout of agent-tui, e.g. ``git archive w53 src themes |
tar -x -C /tmp/old``; one with ``AgentApp._open``) the demo child joins each round on that
checkout's ``src``: that version's first paint beside this one's, under the same load. Take
``themes`` too: without it that checkout finds no shipped theme and paints Textual's default
one, skipping the theme's cost (``boot.paint_theme``).

The children read compiled bytecode, as an installed agent-tui does (``pip`` compiles it), even
where ``PYTHONDONTWRITEBYTECODE`` is set: before the rounds, the sources on ``PYTHONPATH`` (and
the baseline's) are compiled into a ``PYTHONPYCACHEPREFIX`` of the run (Textual's own
``.pyc`` files come with its install; without this the agent compiled every module of its own
on each launch and the trivial app nothing); an untimed round first fills the prefix with the
rest (Textual's, the standard library's: a prefix is read instead of ``__pycache__``).
``--no-bytecode`` measures that old way. The
children also report their main thread's CPU time at the first paint (``time.thread_time``:
not the core's boot thread, which may start just before the mark), a figure the
load on a shared machine changes less than the wall time.

The children draw on the pty (Textual writes the screen to stderr: before 2026-12-07 the bench
sent that to ``/dev/null``, so no frame reached a terminal); **on the terminal** is when the
first frame's bytes (the trivial app's text, agent-tui's prompt placeholder) are read there: the
frame as a user sees it, before the passes Textual makes after it (a second layout as the
widgets learn their sizes) that the mark above still counts, for both apps. The rounds alternate
their order.

``--instructions [N]``: then N launches of each under ``valgrind --tool=callgrind``, each ending
at its first-paint mark (``os._exit``): the instructions executed up to it, all threads, with
``PYTHONHASHSEED=0`` — a figure the machine's load does not move (the wall-time ratio of the
same code moved 0.86–1.55× between rounds at load 2–8; slow: ~30–60 s a launch).

It also lists what ``python -X importtime`` says the first frame imports (``cli.main`` and
``ui.app``), by top-level package.
"""

from __future__ import annotations

import argparse
import compileall
import fcntl
import inspect
import json
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

import bench_ui
from bench_ui import COLUMNS, ROWS, _report, child_launch_trivial

KINDS = ("trivial", "demo", "openai")
EXIT_AT_PAINT = "BENCH_STARTUP_EXIT_AT_PAINT"
"""Set: the child ends at its first-paint mark (``--instructions``)."""
SEEN = {"trivial": b"hello", "demo": b"sk the agent", "openai": b"sk the agent"}
"""Bytes of the first frame (the trivial app's text; agent-tui's prompt placeholder, its
first letter drawn apart as the cursor), watched for on the terminal."""
TARGET = 1.15  # issue 45 (issue 19's was 1.3×): first paint within 1.15× of the trivial app


def child_launch_agent(fd: int, cwd: str, kind: str) -> None:
    """``cli.main`` as a user runs it; reports when the first frame and the main screen on the
    core are painted, then quits."""
    import agent_tui.cli.main as cli
    from agent_tui.ui import app as ui_app

    mount, opened = ui_app.AgentApp.on_mount, ui_app.AgentApp._open
    after = getattr(ui_app.AgentApp, "_after_first_frame", None)
    marks: dict[str, float] = {}

    def painted() -> None:
        marks.setdefault("painted", time.time())
        marks.setdefault("cpu", time.thread_time())
        if os.environ.get(EXIT_AT_PAINT):  # counted by valgrind up to here
            _report(fd, painted=marks["painted"], cpu=marks["cpu"])
            os._exit(0)

    async def on_mount(self: ui_app.AgentApp) -> None:
        await mount(self)
        self.call_after_refresh(painted)

    async def after_first_frame(self: ui_app.AgentApp) -> None:
        painted()  # the frame is out: what the app queued after it is not counted
        if inspect.iscoroutine(done := after(self)):  # type: ignore[misc]
            await done

    if after is not None:
        ui_app.AgentApp._after_first_frame = after_first_frame  # type: ignore[method-assign]

    async def open_main(self: ui_app.AgentApp) -> None:
        await opened(self)

        def done() -> None:
            _report(fd, painted=marks.get("painted"), cpu=marks.get("cpu"), ready=time.time())
            self.exit()

        self.call_after_refresh(done)

    ui_app.AgentApp.on_mount = on_mount  # type: ignore[method-assign]
    ui_app.AgentApp._open = open_main  # type: ignore[method-assign]
    model = "openai:gpt-x" if kind == "openai" else "demo"
    cli.main(["--cwd", cwd, "--model", model])


def _report_and_exit(fd: int, **figures: object) -> None:
    _report(fd, **figures)
    os._exit(0)


def launch(
    kind: str,
    cwd: Path,
    baseline: Path | None = None,
    pycache: Path | None = None,
    counted: Path | None = None,
) -> dict[str, float]:
    """Spawn one child of ``kind`` on a pty; its figures in seconds from the spawn (``cpu``:
    the child's CPU time then; ``terminal``: when the frame's bytes were read from the pty).
    ``kind`` ``baseline``: the demo child on the
    checkout ``baseline``'s sources. ``pycache``: the bytecode prefix the child reads.
    ``counted``: run under ``valgrind --tool=callgrind`` (its log there), ending at the first
    paint, and give the ``instructions`` executed up to it (all threads)."""
    read_end, write_end = os.pipe()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    paths = [
        str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p
    ]
    command = [sys.executable, __file__, "--child", kind, "--cwd", str(cwd)]
    if kind == "baseline" and baseline is not None:  # this child, on the baseline's sources
        paths = [str(baseline / "src")]
        command = [sys.executable, __file__, "--child", "demo", "--cwd", str(cwd)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "AGENT_TUI_DATA_DIR": str(cwd / "data"),
        "AGENT_TUI_CONFIG_DIR": str(cwd / "config"),
        "AGENT_TUI_FORCE_TUI": "1",
    }
    for name in ("AGENT_API_KEY", "AGENT_BASE_URL", "AGENT_MODEL", "ANTHROPIC_API_KEY"):
        env.pop(name, None)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    if kind == "openai":  # configured, never called: nothing listens there
        env |= {"AGENT_API_KEY": "sk-bench", "AGENT_BASE_URL": "http://127.0.0.1:9/v1"}
    if counted is not None:
        env |= {EXIT_AT_PAINT: "1", "PYTHONHASHSEED": "0"}
        valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        command = [*valgrind, f"--log-file={counted}", *command]

    seen: list[float] = []
    wanted = SEEN["demo" if kind == "baseline" else kind]

    def drain() -> None:
        tail = b""
        try:
            while chunk := os.read(master, 65536):
                if not seen and wanted in tail + chunk:
                    seen.append(time.time())
                tail = chunk[-len(wanted) :]
        except OSError:
            pass

    drainer = threading.Thread(target=drain, daemon=True)
    drainer.start()
    spawned = time.time()
    child = subprocess.Popen(
        [*command, "--fd", str(write_end)],
        stdin=slave,
        stdout=slave,
        stderr=slave,  # where Textual writes the screen (to the terminal, as a user's)
        pass_fds=(write_end,),
        env=env,
        cwd=cwd,
    )
    os.close(slave)
    os.close(write_end)
    with os.fdopen(read_end) as reports:
        line = reports.readline()
    child.wait(timeout=600)
    drainer.join(timeout=60)  # the child is gone: what it wrote is read, then the end
    os.close(master)
    if not line:
        raise RuntimeError(f"the {kind} child reported nothing (exit {child.returncode})")
    figures = {k: float(v) for k, v in json.loads(line).items() if v is not None}
    if seen:
        figures["terminal"] = seen[0]
    if counted is not None:
        log = counted.read_text()
        return {"instructions": float(log.rpartition("Collected :")[2].split()[0])}
    return {k: v if k == "cpu" else v - spawned for k, v in figures.items()}


def compile_sources(pycache: Path, baseline: Path | None) -> None:
    """Compile the sources the children import (``PYTHONPATH``'s, the baseline's ``src``) into
    ``pycache``, as an install does, so that no round compiles them."""
    sys.pycache_prefix = str(pycache)
    paths = [Path(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for path in [*paths, *([baseline / "src"] if baseline else [])]:
        if (path.resolve() / "agent_tui").is_dir():
            compileall.compile_dir(path.resolve() / "agent_tui", quiet=1)


def first_frame_imports(pycache: Path | None) -> list[tuple[str, float]]:
    """(top-level package, ms) of what importing ``cli.main`` and ``ui.app`` costs, largest first:
    the self time of every module ``-X importtime`` lists, summed by its top-level package (read
    from the run's bytecode, ``pycache``, as the children do)."""
    env = dict(os.environ)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import agent_tui.cli.main, agent_tui.ui.app"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    totals: dict[str, float] = {}
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        package = parts[2].strip().split(".")[0]
        totals[package] = totals.get(package, 0.0) + int(parts[0]) / 1000
    return sorted(totals.items(), key=lambda item: -item[1])


def print_instructions(
    kinds: list[str], runs: int, root: Path, baseline: Path | None, pycache: Path | None
) -> None:
    """``runs`` launches of each kind under valgrind (interleaved): the instructions executed
    up to the first paint, a count the machine's load does not change."""
    counts: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(runs):
        for kind in kinds:
            work = Path(tempfile.mkdtemp(dir=root))
            counted = launch(kind, work, baseline, pycache, counted=work / "valgrind.log")
            counts[kind].append(counted["instructions"])
    trivial = statistics.median(counts["trivial"])
    print(
        f"\ninstructions to the first paint (valgrind --tool=callgrind, all threads; {runs} each)"
    )
    for kind in kinds:
        middle = statistics.median(counts[kind])
        spread = f"{min(counts[kind]) / 1e6:,.0f}–{max(counts[kind]) / 1e6:,.0f} M"
        print(f"  {kind:12}{middle / 1e6:>8,.0f} M  {middle / trivial:.3f}×   ({spread})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", type=Path, help="another checkout to time beside this one")
    parser.add_argument(
        "--no-bytecode", action="store_true", help="the children compile agent-tui each launch"
    )
    parser.add_argument(
        "--instructions",
        type=int,
        nargs="?",
        const=1,
        default=0,
        metavar="N",
        help="then N runs of each under valgrind: instructions up to the first paint",
    )
    parser.add_argument("--child", choices=KINDS)
    parser.add_argument("--cwd")
    parser.add_argument("--fd", type=int)
    args = parser.parse_args()
    if args.child == "trivial":
        if os.environ.get(EXIT_AT_PAINT):  # counted by valgrind up to its paint
            bench_ui._report = _report_and_exit
        child_launch_trivial(args.fd)
        return
    if args.child:
        child_launch_agent(args.fd, args.cwd, args.child)
        return
    root = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    pycache = None if args.no_bytecode else root / "pycache"
    kinds = [*KINDS, *(["baseline"] if args.baseline else [])]
    if pycache is not None:  # the prefix holds every module a child reads: the first round fills it
        compile_sources(pycache, args.baseline)
        for kind in kinds:
            launch(kind, Path(tempfile.mkdtemp(dir=root)), args.baseline, pycache)
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    figures: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
    for round_ in range(args.runs):
        # interleaved: a load change hits all of them alike; the order reversed every other
        # round, so that none always follows the same one
        for kind in kinds if round_ % 2 == 0 else kinds[::-1]:
            work = Path(tempfile.mkdtemp(dir=root))
            figures[kind].append(launch(kind, work, args.baseline, pycache))
    load_after = Path("/proc/loadavg").read_text().split()[:3]

    def median(kind: str, key: str) -> float:
        return statistics.median(f[key] for f in figures[kind])

    def terminal(kind: str) -> str:
        seen = [f["terminal"] for f in figures[kind] if "terminal" in f]
        if len(seen) < len(figures[kind]):
            return ""
        middle = statistics.median(seen)
        return f"   on the terminal {middle * 1000:.0f} ms ({middle / trivial_seen:.2f}×)"

    def cpu(kind: str) -> str:
        spent = [f["cpu"] for f in figures[kind] if "cpu" in f]
        if not spent:
            return ""
        middle = statistics.median(spent)
        return f"   CPU {middle * 1000:.0f} ms ({middle / trivial_cpu:.2f}×)"

    trivial = median("trivial", "painted")
    trivial_cpu = median("trivial", "cpu")
    trivial_seen = median("trivial", "terminal")
    compiled = "no bytecode: each child compiles agent-tui" if pycache is None else "bytecode"
    print(f"launch → first paint, median of {args.runs} interleaved rounds ({compiled})")
    print(f"load average before {' '.join(load_before)}, after {' '.join(load_after)}")
    print(f"{'':34}{'first paint':>12}{'ratio':>8}{'core ready':>12}   target ≤ {TARGET:.2f}×")
    print(
        f"{'trivial Textual app':34}{trivial * 1000:>9.0f} ms{1:>7.2f}×{'':12}{cpu('trivial')}"
        f"{terminal('trivial')}"
    )
    for kind, label in (
        ("demo", "agent-tui --model demo"),
        ("openai", "agent-tui --model openai:…"),
    ):
        painted, ready = median(kind, "painted"), median(kind, "ready")
        ratio = painted / trivial
        verdict = f"{ratio / TARGET:.2f} of it, {'met' if ratio <= TARGET else 'not met'}"
        print(
            f"{label:34}{painted * 1000:>9.0f} ms{ratio:>7.2f}×{ready * 1000:>9.0f} ms   {verdict}"
            f"{cpu(kind)}{terminal(kind)}"
        )
    if args.baseline:
        painted = median("baseline", "painted")
        print(f"{'baseline ' + args.baseline.name + ' --model demo':34}", end="")
        print(
            f"{painted * 1000:>9.0f} ms{painted / trivial:>7.2f}×{'':12}{cpu('baseline')}", end=""
        )
        print(terminal("baseline"))
    if args.instructions:
        print_instructions(kinds, args.instructions, root, args.baseline, pycache)
    print("\nwhat the first frame imports (cli + ui.app, -X importtime, cumulative):")
    imports = first_frame_imports(pycache)
    print(f"  {'all':28}{sum(ms for _, ms in imports):>8.1f} ms")
    for package, spent in imports[:8]:
        print(f"  {package:28}{spent:>8.1f} ms")


if __name__ == "__main__":
    main()
