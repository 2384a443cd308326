"""MCP benchmarks: the cost of our layer per call, and connecting servers in parallel.

Run from the repository root::

    PYTHONPATH=src:. python benchmarks/bench_mcp.py              # the figures in README.md
    PYTHONPATH=src:. python benchmarks/bench_mcp.py --calls 100 --rounds 5  # quicker
    PYTHONPATH=src:. python benchmarks/bench_mcp.py --everything PATH  # + server-everything

1. Round trip of ``--calls`` sequential calls of a trivial tool (``echo``) over stdio, on the
   same server program, each path with its own server process:
   - the bare SDK: ``Client.call_tool`` in the task that owns the client;
   - our manager: ``McpManager.call`` (queue to the server's task, a child task per call);
   - the registry: ``ToolRegistry.dispatch`` of ``mcp__srv__echo`` — JSON parsing, JSON
     Schema validation, the manager, and the conversion to what the model reads: the path
     every call of the agent takes (the output budget comes on top, as for any tool).
   After 20 warm-up calls of each, ``--rounds`` rounds: in each, every path makes
   ``--calls / --rounds`` calls in a block, the order of the paths rotating from round to
   round, so a load that comes and goes hits them all alike. Printed: per round the median of
   each path and its ratio to the bare SDK, the median of those per-round ratios (the figure to
   compare), and median and p95 over all calls.
2. Connecting ``--servers`` servers (each: spawn, handshake, list tools) in parallel through
   the manager, against each of them alone, one after the other: parallel vs the slowest alone.
   Two kinds: the Python fixture server (its start is CPU-bound: importing the SDK) and
   server-everything when given. Starting a server costs CPU in the server, so on N cores five
   starts cannot take less than (their CPU time / N): the run prints that floor, and the CPU
   time this process spent, next to the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.registry import ToolRegistry

WARMUP = 20
FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "mcp_servers" / "fixture_server.py"


def fixture_command() -> list[str]:
    return [sys.executable, str(FIXTURE)]


def write_config(path: Path, servers: dict[str, list[str]]) -> Path:
    entries = {name: {"command": cmd[0], "args": cmd[1:]} for name, cmd in servers.items()}
    path.write_text(json.dumps({"mcpServers": entries}))
    return path


def stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


async def rounds(
    command: list[str],
    n_rounds: int,
    per_round: int,
    args: dict[str, Any],
    work: Path,
    *,
    blocks: bool = False,
    cpu: dict[str, list[float]] | None = None,
) -> list[dict[str, list[float]]]:
    """The three paths, each on its own server process, in ``n_rounds`` rounds: in a round
    each path makes ``per_round`` calls, one call of each path in turn, the order rotating from
    call to call (``blocks``: each path's calls in a block, the order rotating from round to
    round), so no path always runs first, or right after another, and a load that comes and
    goes hits them alike. Per round, the call times of each path; ``cpu`` gets the CPU
    seconds of this process per call of each path."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    manager = McpManager(
        work, ToolRegistry(), paths=[write_config(work / "calls.json", {"srv": command})]
    )
    await manager.start()
    await manager.wait_ready()
    state = manager.state("srv")
    if state.status != "connected":
        raise SystemExit(f"the server did not start: {state.reason}")
    ctx = ToolContext(cwd=work)
    raw = json.dumps(args)
    params = StdioServerParameters(command=command[0], args=command[1:])
    results: list[dict[str, list[float]]] = []
    try:
        with tempfile.TemporaryFile("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=30) as c:
                paths: dict[str, Callable[[], Awaitable[Any]]] = {
                    "sdk": lambda: c.call_tool("echo", args),
                    "manager": lambda: manager.call("srv", "echo", args, ctx),
                    "registry": lambda: manager.registry.dispatch("mcp__srv__echo", raw, ctx),
                }
                names = list(paths)
                for _ in range(WARMUP):
                    for call in paths.values():
                        await call()
                for r in range(n_rounds):
                    samples: dict[str, list[float]] = {name: [] for name in names}
                    if blocks:
                        order = names[r % len(names) :] + names[: r % len(names)]
                        turns = [name for name in order for _ in range(per_round)]
                    else:
                        turns = [
                            names[(i + j) % len(names)]
                            for i in range(per_round)
                            for j in range(len(names))
                        ]
                    for name in turns:
                        start, used = time.perf_counter(), time.process_time()
                        await paths[name]()
                        samples[name].append(time.perf_counter() - start)
                        if cpu is not None:
                            cpu.setdefault(name, []).append(time.process_time() - used)
                    results.append(samples)
    finally:
        await manager.aclose()
    return results


@dataclass
class Connect:
    wall: float
    own_cpu: float
    """CPU seconds of this process (the manager, the SDK clients) while connecting."""
    child_cpu: float
    """CPU seconds of the server processes (counted when they are reaped, at shutdown)."""


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def connect_time(work: Path, names: list[str], command: list[str]) -> Connect:
    path = write_config(work / f"connect-{len(names)}-{names[0]}.json", {n: command for n in names})
    manager = McpManager(work, ToolRegistry(), paths=[path])
    own, children = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    await manager.start()
    await manager.wait_ready()
    elapsed = time.perf_counter() - start
    own = _cpu(resource.RUSAGE_SELF) - own
    failed = [s.name for s in manager.states() if s.status != "connected"]
    await manager.aclose()
    if failed:
        raise SystemExit(f"servers did not connect: {failed}")
    return Connect(elapsed, own, _cpu(resource.RUSAGE_CHILDREN) - children)


Target = tuple[str, list[str], dict[str, Any]]


def parse() -> tuple[argparse.Namespace, list[Target]]:
    parser = argparse.ArgumentParser(description="MCP call overhead and parallel connects.")
    parser.add_argument("--calls", type=int, default=500, help="calls per path, in all")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--servers", type=int, default=5)
    parser.add_argument("--everything", help="also measure calls on this server-everything binary")
    parser.add_argument(
        "--blocks", action="store_true", help="each path's calls of a round in a block (older)"
    )
    parser.add_argument("--no-connect", action="store_true", help="skip the connect figures")
    options = parser.parse_args()
    targets: list[Target] = [("SDK fixture server (Python)", fixture_command(), {"text": "ping"})]
    if options.everything:
        binary = os.path.abspath(options.everything)
        targets.append(("server-everything (Node)", [binary], {"message": "ping"}))
    return options, targets


async def main(options: argparse.Namespace, targets: list[Target]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        work = Path(tmp)
        per_round = max(1, options.calls // options.rounds)
        print(
            f"{options.rounds} rounds x {per_round} sequential echo calls per path over stdio; "
            "the paths alternate from round to round"
        )
        for label, command, args in targets:
            cpu: dict[str, list[float]] = {}
            load = os.getloadavg()
            per = await rounds(
                command, options.rounds, per_round, args, work, blocks=options.blocks, cpu=cpu
            )
            print(label)
            print(
                f"  {'round':>5} {'sdk ms':>8} {'manager':>8} {'registry':>9}"
                "  manager/sdk registry/sdk"
            )
            ratios: dict[str, list[float]] = {"manager": [], "registry": []}
            for r, samples in enumerate(per, 1):
                med = {name: statistics.median(values) for name, values in samples.items()}
                for name in ratios:
                    ratios[name].append(med[name] / med["sdk"])
                print(
                    f"  {r:5} {med['sdk'] * 1e3:8.3f} {med['manager'] * 1e3:8.3f} "
                    f"{med['registry'] * 1e3:9.3f}  {ratios['manager'][-1]:11.2f} "
                    f"{ratios['registry'][-1]:12.2f}"
                )
            print(
                f"  median of the per-round ratios: manager/sdk "
                f"{statistics.median(ratios['manager']):.2f}x, registry/sdk "
                f"{statistics.median(ratios['registry']):.2f}x"
            )
            print(
                "  CPU of this process per call: "
                + ", ".join(f"{name} {statistics.mean(v) * 1e3:.3f}ms" for name, v in cpu.items())
                + f"; load average before / after: {load[0]:.2f} / {os.getloadavg()[0]:.2f}"
            )
            every = {
                name: [v for s in per for v in s[name]] for name in ("sdk", "manager", "registry")
            }
            for name, title in (
                ("sdk", "bare SDK Client.call_tool"),
                ("manager", "McpManager.call"),
                ("registry", "registry.dispatch (validate + manager + adapt)"),
            ):
                median, p95 = stats(every[name])
                print(
                    f"  all calls, {title:48} median {median * 1e3:7.3f}ms p95 {p95 * 1e3:7.3f}ms"
                )

        if options.no_connect:
            return
        print()
        print(f"connect {options.servers} servers (spawn + handshake + tools/list)")
        kinds = [("SDK fixture server (Python, ~0.7 s of CPU to start)", fixture_command())]
        if options.everything:
            kinds.append(("server-everything (Node)", targets[-1][1]))
        names = [f"s{i}" for i in range(options.servers)]
        cores = os.cpu_count() or 1
        for label, command in kinds:
            alone = [(await connect_time(work, [name], command)).wall for name in names]
            both = await connect_time(work, names, command)
            floor = max(max(alone), both.child_cpu / cores)
            print(label)
            print(f"  each alone, one after the other: {', '.join(f'{t:.2f}' for t in alone)} s")
            print(
                f"  all {options.servers} in parallel: {both.wall:.2f} s = "
                f"{both.wall / max(alone):.2f}x the slowest alone ({max(alone):.2f} s), "
                f"{sum(alone) / both.wall:.2f}x faster than one after the other"
            )
            print(
                f"  CPU while connecting in parallel: servers {both.child_cpu:.2f} s, this "
                f"process {both.own_cpu:.2f} s; floor on {cores} cores = max(slowest alone, "
                f"server CPU / cores) = {floor:.2f} s -> {both.wall / floor:.2f}x the floor"
            )


if __name__ == "__main__":
    asyncio.run(main(*parse()))
