"""Screens in a frame: how long the spill browser, the MCP panel and the permission prompt take
to open, from the action to their first full paint on a real terminal.

Run from the repository root::

    PYTHONPATH=src:. python benchmarks/bench_screens.py            # the README figures
    PYTHONPATH=src:. python benchmarks/bench_screens.py --quick    # 100 MB spill, 5 opens
    PYTHONPATH=src:. python benchmarks/bench_screens.py --vs /path/to/other/src  # A/B
    PYTHONPATH=src:. python benchmarks/bench_screens.py --profile spill   # cProfile, 1st open
    PYTHONPATH=src:. python benchmarks/bench_screens.py --profile prompt --profile-open 2

Each screen is timed in a child process of its own (so its first open pays every import, as
the user's does) running the real app on a pseudo-terminal (120×40, Textual's real driver; the
parent drains what it writes), like ``bench_ui.py``. What is timed ends with the first
``App._display`` of the screen (the compositor's frame rendered to escape codes and handed to
the driver's writer thread) in which its content is there:

- **spill browser** on a 1 GB spill (13 M lines, written by the streaming spill writer): from
  ``action_open_spill`` (what ``o`` on a card and Ctrl+O run) to the first frame of the
  browser showing the spill's first window (the viewer laid out, its rows set);
- **MCP panel** with 5 real fixture servers (``tests/mcp_servers/fixture_server.py`` with
  ``--extra-tools 4``: 20 tools each, 100 in all), all connected first: from
  ``action_mcp_panel`` (Ctrl+G) to the first frame listing the 5 servers and the selected
  server's 20 tools;
- **permission prompt**: a scripted model calls ``run_shell`` in a loop, each call denied;
  from the moment the executor builds the ``permission_request`` event to the first frame of
  the prompt.

Once the prompt is first up, its full repaint (every line dirty, the frame rendered over the
shell under it) is timed 20 times, CPU, median: what each later frame of a modal costs.
For the two screens, the time until a frame also shows the footer's keys (chrome Textual
builds after the screen's first refresh) is reported too. The first open (imports included)
and the warm opens (median of the others; the screen is closed and the main screen painted
again between two, then 0.3 s idle) are reported apart, with the ratio to the target (100 ms
for the screens, 50 ms for the prompt) and the CPU time the app's process spent meanwhile
(all its threads): on a loaded machine the wall time is mostly waiting for a core, the CPU
time much less so. ``--vs SRC`` runs each child alternately with another tree's ``src/`` first
on the path (same data, same load) and prints the ratio; ``--runs`` children per screen and
side. ``--profile NAME`` runs one open (``--profile-open``, 0 the first) under cProfile and
prints and saves the profile (the prompt's from its ``permission_request`` on, the span
timed). Each child waits for the background preload to finish before the first open (the
app idle, as a user's is by the time they open a screen) and reports its process's RSS then.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import fcntl
import io
import json
import os
import pstats
import pty
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

COLUMNS, ROWS = 120, 40
TARGETS = {"spill": 0.100, "mcp": 0.100, "prompt": 0.050}
SERVERS, EXTRA_TOOLS = 5, 4
"""5 fixture servers, each with its 16 tools and 4 filler ones: 100 tools."""
FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "mcp_servers" / "fixture_server.py"
SETTLE = 0.3
"""Seconds the app is left idle between two opens (the closed screen's timers, the GC)."""


# -- the child side ------------------------------------------------------------------------


def _report(fd: int, **figures: object) -> None:
    os.write(fd, (json.dumps(figures) + "\n").encode())


class Watch:
    """Times the first ``App._display`` that satisfies a predicate."""

    def __init__(self) -> None:
        self.predicate: Callable[[Any], bool] | None = None
        self.painted = asyncio.Event()
        self.at = 0.0
        self.cpu = 0.0
        self.frames = 0
        self.footer: Callable[[Any], bool] | None = None
        """Then: the first display with the screen's footer keys (the chrome, after)."""
        self.footer_painted = asyncio.Event()
        self.footer_at = 0.0

    def expect(
        self, predicate: Callable[[Any], bool], footer: Callable[[Any], bool] | None = None
    ) -> None:
        self.predicate = predicate
        self.painted.clear()
        self.frames = 0
        self.footer = footer
        self.footer_painted.clear()

    def displayed(self, screen: Any) -> None:
        predicate = self.predicate
        if predicate is None:
            if self.footer is not None and self.footer(screen):
                self.footer_at = time.perf_counter()
                self.footer = None
                self.footer_painted.set()
            return
        self.frames += 1
        if predicate(screen):
            self.at = time.perf_counter()
            self.cpu = time.process_time()
            self.predicate = None
            self.painted.set()
            self.displayed(screen)  # the footer may be in this frame already

    async def wait(self, timeout: float = 60.0) -> float:
        await asyncio.wait_for(self.painted.wait(), timeout)
        return self.at


def named(screen: Any, name: str) -> bool:
    return any(kind.__name__ == name for kind in type(screen).__mro__)


def bench_app_class(watch: Watch) -> type:
    from agent_tui.ui.app import AgentApp

    class BenchApp(AgentApp):
        CURSOR_BLINK = False
        SHOW_SANDBOX = False

        def _display(self, screen: Any, renderable: Any) -> None:
            super()._display(screen, renderable)
            if renderable is not None:
                watch.displayed(screen)

    return BenchApp


def spill_shown(screen: Any) -> bool:
    if not named(screen, "SpillBrowser"):
        return False
    viewer = screen.viewer
    return viewer.window is not None and viewer.size.height > 0 and bool(viewer.rows)


def panel_shown(screen: Any) -> bool:
    if not named(screen, "McpPanel"):
        return False
    from agent_tui.ui.mcp.server_list import ServerList
    from agent_tui.ui.mcp.tool_table import ToolTable

    servers = screen.query_one(ServerList)
    tools = screen.query_one(ToolTable)
    return (
        servers.option_count == SERVERS
        and tools.options.option_count == len(tools.rows) > 0
        and tools.options.size.height > 0
    )


def footer_shown(screen: Any) -> bool:
    from textual.widgets._footer import FooterKey

    return bool(screen.query(FooterKey))


def main_shown(screen: Any) -> bool:
    return named(screen, "MainScreen")


def full_repaint(app: Any, screen: Any, rounds: int = 20) -> float:
    """The CPU time of one full repaint of ``screen`` over what shows under it (its lines
    made dirty, the frame rendered as Textual renders a full update), median of ``rounds``."""
    spent = []
    for _ in range(rounds):
        screen._set_dirty()
        started = time.process_time()
        screen._compositor.render_update(full=True, screen_stack=app._background_screens)
        spent.append(time.process_time() - started)
    return statistics.median(spent)


def rss_kib() -> int:
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0])


def run_child(
    fd: int,
    kind: str,
    cwd: Path,
    opens: int,
    profile: bool,
    spill: str | None,
    profile_at: int = 0,
) -> None:
    watch = Watch()
    app_class = bench_app_class(watch)
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.permissions import SimplePolicy
    from agent_tui.core.providers.script import ScriptProvider
    from agent_tui.core.tools.builtin import default_registry

    turns: list[dict[str, Any]] = [{"text": "unused"}]
    if kind == "prompt":
        call = {"name": "run_shell", "arguments": {"command": "echo hello && ls -la src"}}
        turns = [{"tool_calls": [{**call, "id": f"c{i}"}]} for i in range(opens)]
        turns.append({"text": "done"})
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    registry = default_registry()
    agent = Agent(ScriptProvider(script), registry, cwd, policy=SimplePolicy(()), system="bench")
    manager = None
    if kind == "mcp":
        from agent_tui.core.disclosure import Disclosure
        from agent_tui.core.mcp.client.manager import McpManager

        agent.disclosure = Disclosure(registry)
        manager = McpManager(cwd, registry, watch=False)
        agent.tool_sources.append(manager)
    app = app_class(agent=agent, cwd_label="~/bench")
    asked: list[tuple[float, float]] = []
    profiler = cProfile.Profile() if profile else None
    if kind == "prompt":
        from agent_tui.core.executor import approval

        build = approval.permission_request

        def timed(*args: Any, **kwargs: Any) -> Any:
            asked.append((time.perf_counter(), time.process_time()))
            if profiler is not None and len(asked) - 1 == profile_at:
                profiler.enable()  # the same span as the figure: from the event on
            return build(*args, **kwargs)

        approval.permission_request = timed  # type: ignore[assignment]

    times: list[float] = []
    cpu: list[float] = []
    repaints: list[float] = []
    footers: list[float] = []
    frames: list[int] = []

    async def opening() -> None:
        await asyncio.sleep(1.0)  # start-up's own work (mention index, GC freeze) settles
        if manager is not None:
            deadline = time.monotonic() + 120
            while sum(s.status == "connected" for s in manager.states()) < SERVERS:
                assert time.monotonic() < deadline, [s.status for s in manager.states()]
                await asyncio.sleep(0.05)
            await asyncio.sleep(SETTLE)
        deadline = time.monotonic() + 60
        while any(w.group == "preload" and not w.is_finished for w in app.workers):
            assert time.monotonic() < deadline, "the preload did not finish"
            await asyncio.sleep(0.05)  # the idle app has readied the screens (a loaded VM)
        rss = rss_kib()  # idle, the preload done
        if kind == "prompt":
            watch.expect(lambda screen: named(screen, "ApprovalScreen"))
            app.send("go")
        for index in range(opens):
            if profiler is not None and index == profile_at and kind != "prompt":
                profiler.enable()
            cpu_started = time.process_time()
            if kind == "spill":
                watch.expect(spill_shown, footer_shown)
                started = time.perf_counter()
                app.action_open_spill(spill or "")
            elif kind == "mcp":
                watch.expect(panel_shown, footer_shown)
                started = time.perf_counter()
                app.action_mcp_panel()
            painted = await watch.wait()
            if kind == "prompt":
                started, cpu_started = asked[index]
            if profiler is not None and index == profile_at:
                profiler.disable()
            times.append(painted - started)
            if kind != "prompt":
                await asyncio.wait_for(watch.footer_painted.wait(), 60)
                footers.append(watch.footer_at - started)
            cpu.append(watch.cpu - cpu_started)
            frames.append(watch.frames)
            if profiler is not None and index == profile_at:
                break
            if kind == "prompt":
                from agent_tui.core.permissions import Approval

                screen = app.screen
                assert named(screen, "ApprovalScreen"), screen
                if index == 0:
                    repaints.append(full_repaint(app, screen))
                if index + 1 < opens:
                    watch.expect(lambda screen: named(screen, "ApprovalScreen"))
                screen.dismiss(Approval(allowed=False))
            else:
                watch.expect(main_shown)
                app.screen.dismiss()
                await watch.wait()
            await asyncio.sleep(SETTLE)
        figures: dict[str, object] = {
            "repaints": repaints,
            "times": times,
            "cpu": cpu,
            "footers": footers,
            "frames": frames,
            "rss": rss,
        }
        if manager is not None:
            figures["tools"] = {s.name: len(s.tools) for s in manager.states()}
        if profiler is not None:
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
            stats.print_stats(60)
            out.write("\n--- by own time ---\n")
            stats.sort_stats("tottime").print_stats(30)
            figures["profile"] = out.getvalue()
            profiler.dump_stats(cwd / f"{kind}.prof")
        _report(fd, **figures)
        app.exit()

    mount = app_class.on_mount

    async def on_mount(self: Any) -> None:
        await mount(self)
        self.call_after_refresh(lambda: self.run_worker(opening(), exit_on_error=True))

    app_class.on_mount = on_mount  # type: ignore[method-assign]
    try:
        app.run()
    finally:
        if manager is not None:
            with contextlib.suppress(Exception):
                asyncio.run(manager.aclose())


# -- the parent side -----------------------------------------------------------------------


def spawn(args: list[str], cwd: Path, root: Path, src: str | None = None) -> dict[str, Any]:
    """Run ``bench_screens.py --child …`` on a pty (with ``src`` first on its path: another
    tree's ``agent_tui``); return its report."""
    read_end, write_end = os.pipe()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    paths = [
        str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p
    ]
    if src is not None:
        paths.insert(0, str(Path(src).resolve()))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "AGENT_TUI_DATA_DIR": str(root / "data"),
        "AGENT_TUI_CONFIG_DIR": str(root / "config"),
        "AGENT_TUI_FORCE_TUI": "1",
    }

    def drain() -> None:
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass

    threading.Thread(target=drain, daemon=True).start()
    errors = root / f"child-{args[0]}.err"
    child = subprocess.Popen(
        [sys.executable, __file__, "--child", *args, "--fd", str(write_end), "--cwd", str(cwd)],
        stdin=slave,
        stdout=slave,
        stderr=errors.open("wb"),
        pass_fds=(write_end,),
        env=env,
        cwd=cwd,
    )
    os.close(slave)
    os.close(write_end)
    with os.fdopen(read_end) as reports:
        line = reports.readline()
    child.wait(timeout=600)
    os.close(master)
    if not line:
        said = errors.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"the child {args} reported nothing (exit {child.returncode}):\n{said}")
    report: dict[str, Any] = json.loads(line)
    return report


def write_spill(cwd: Path, size: int) -> tuple[str, int, int]:
    """A spill of ``size`` bytes in ``cwd``'s spill directory: (its path as shown, bytes,
    lines)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_budget import MB, lines_text

    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.providers.demo import DemoProvider
    from agent_tui.core.tools.builtin import default_registry

    store = Agent(DemoProvider(delay=0), default_registry(), cwd, system="bench").spills
    chunk = lines_text(min(4 * MB, size))
    with store.open_writer("run_shell", "big") as writer:
        for _ in range(max(size // len(chunk), 1)):
            writer.write(chunk)
        record = writer.commit()
    return record.shown, record.bytes, record.lines


def mcp_config(root: Path) -> None:
    """The servers in the user's ``mcp.json`` (a project's ``.mcp.json`` waits for trust),
    eager."""
    servers = {
        f"srv{i}": {
            "command": sys.executable,
            "args": [str(FIXTURE), "--name", f"srv{i}", "--extra-tools", str(EXTRA_TOOLS)],
        }
        for i in range(SERVERS)
    }
    config = root / "config"
    config.mkdir(exist_ok=True)
    (config / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    # eager: every child starts all five (lazy, the default, would leave them unstarted once the
    # first child had cached their tools, and the panel is timed with all of them connected)
    settings = {"mcp": {"start": "eager"}}
    (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 MB spill, 5 opens")
    parser.add_argument("--opens", type=int, default=None, help="opens per child (9)")
    parser.add_argument("--runs", type=int, default=1, help="children per screen (1)")
    parser.add_argument("--huge-gb", type=float, default=1.0)
    parser.add_argument("--only", choices=sorted(TARGETS), action="append")
    parser.add_argument("--profile", choices=sorted(TARGETS))
    parser.add_argument(
        "--profile-open", type=int, default=0, help="which open to profile (0: the first)"
    )
    parser.add_argument("--dir", type=Path, help="where to create the temporary data")
    parser.add_argument(
        "--vs",
        help="another tree's src/ to time alternately with this one (e.g. a checkout of main)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cwd", help=argparse.SUPPRESS)
    parser.add_argument("--spill", help=argparse.SUPPRESS)
    parser.add_argument("--child-profile", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    opens = args.opens or (5 if args.quick else 9)
    if args.child:
        run_child(
            args.fd,
            args.child,
            Path(args.cwd),
            opens,
            args.child_profile,
            args.spill,
            args.profile_open,
        )
        return 0
    kinds = [args.profile] if args.profile else (args.only or ["spill", "mcp", "prompt"])
    root = Path(tempfile.mkdtemp(prefix="agent-tui-screens-", dir=args.dir))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, data in {root}")
    try:
        cwd = root / "work"
        cwd.mkdir()
        extra: list[str] = []
        if "spill" in kinds:
            size = int((0.1 if args.quick else args.huge_gb) * 1e9)
            started = time.perf_counter()
            shown, size, lines = write_spill(cwd, size)
            extra = ["--spill", shown]
            print(
                f"spill written in {time.perf_counter() - started:.1f} s: "
                f"{size / 1e9:.2f} GB, {lines:,} lines"
            )
        if "mcp" in kinds:
            mcp_config(root)
        sides = {"this": None, "vs": args.vs} if args.vs else {"this": None}
        rows: list[tuple[str, ...]] = []
        for kind in kinds:
            got: dict[str, dict[str, list[float]]] = {
                side: {
                    "first": [],
                    "warm": [],
                    "cpu_first": [],
                    "cpu_warm": [],
                    "footer_first": [],
                    "footer_warm": [],
                    "rss": [],
                    "repaint": [],
                }
                for side in sides
            }
            loads: list[str] = []
            for _ in range(1 if args.profile else args.runs):
                for side, src in sides.items():  # alternating: the same load for both
                    child = ["--opens", str(opens), *extra]
                    if args.profile:
                        child += ["--child-profile", "--profile-open", str(args.profile_open)]
                    report = spawn([kind, *child], cwd, root, src)
                    loads.append(load())
                    if args.profile:
                        print(report["profile"])
                        saved = Path(tempfile.gettempdir()) / f"bench-screens-{kind}.prof"
                        shutil.copy(cwd / f"{kind}.prof", saved)
                        print(f"raw profile: {saved} (python -m pstats)")
                    if "tools" in report and side == "this":
                        print(f"MCP tools per server: {report['tools']}")
                    figures = got[side]
                    figures["first"].append(report["times"][0])
                    figures["warm"].extend(report["times"][1:])
                    figures["cpu_first"].append(report["cpu"][0])
                    figures["cpu_warm"].extend(report["cpu"][1:])
                    figures["footer_first"].extend(report["footers"][:1])
                    figures["footer_warm"].extend(report["footers"][1:])
                    figures["rss"].append(report["rss"] / 1024)
                    figures["repaint"].extend(report.get("repaints", []))
            target = TARGETS[kind]
            label = {
                "spill": f"spill browser, {size / 1e9:.1f} GB spill" if "spill" in kinds else "",
                "mcp": f"MCP panel, {SERVERS} servers / {SERVERS * (16 + EXTRA_TOOLS)} tools",
                "prompt": "permission prompt after permission_request",
            }[kind]
            warms = len(got["this"]["warm"])
            for what, name in (
                ("first", f"{label}: first open"),
                ("cpu_first", "  its CPU time (the app's process)"),
                ("footer_first", "  to the footer's keys painted too"),
                ("warm", f"{label}: warm, median of {warms}"),
                ("cpu_warm", "  its CPU time (the app's process)"),
                ("footer_warm", "  to the footer's keys painted too"),
                ("repaint", "  a full repaint once open, CPU (median of 20, each child)"),
            ):
                if not got["this"][what]:
                    continue
                mine = statistics.median(got["this"][what])
                cells = [name, f"{mine * 1000:,.0f} ms"]
                cells.append(f"{mine / target:.2f}×" if what in {"first", "warm"} else "")
                if args.vs and not got["vs"][what]:
                    rows.append(tuple(cells))
                    continue
                if args.vs:
                    theirs = statistics.median(got["vs"][what])
                    cells += [f"{theirs * 1000:,.0f} ms", f"{mine / theirs:.2f}"]
                rows.append(tuple(cells))
            mine = statistics.median(got["this"]["rss"])
            cells = ["  RSS of the app's process, idle before the first open", f"{mine:.1f} MiB"]
            if args.vs:
                theirs = statistics.median(got["vs"]["rss"])
                cells += ["", f"{theirs:.1f} MiB", f"{mine - theirs:+.1f} MiB"]
            rows.append(tuple(cells))
            rows.append(
                (f"  load average (1, 5, 15 min) after each child ({kind})", "; ".join(loads))
            )
        head = ["measure", "result", "/ target"]
        if args.vs:
            head += [f"vs {args.vs}", "ratio"]
        width = max(len(r[0]) for r in rows)
        print()
        print("| " + " | ".join([head[0].ljust(width), *head[1:]]) + " |")
        print("|" + "|".join(["-" * (width + 2)] + ["-" * (len(h) + 2) for h in head[1:]]) + "|")
        for row in rows:
            if len(row) == 2:
                print(f"| {row[0]:<{width}} | {row[1]} |")
            else:
                print("| " + " | ".join([row[0].ljust(width), *row[1:]]) + " |")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
