"""Lazy MCP servers: launch CPU and time to first answer, eager vs lazy, end to end.

Run from the repository root::

    PYTHONPATH=src:. python benchmarks/bench_mcp_lazy.py               # the figures in README.md
    PYTHONPATH=src:. python benchmarks/bench_mcp_lazy.py --pairs 3     # quicker
    PYTHONPATH=src:. python benchmarks/bench_mcp_lazy.py --everything PATH  # + server-everything

Each run is a real ``agent-tui -p`` process (headless, ``--output-format stream-json``) with a
script model, in a project whose user ``mcp.json`` configures ``--servers`` servers (the Python
SDK fixture server; with ``--everything``, every other one is server-everything). Two settings:
*eager* (the default) and *lazy* (``{"mcp": {"start": "lazy"}}``); the lazy side's tool caches
are filled by one run before timing. Two prompts:

- *answer*: the model answers in text (no tool): the first answer waits for the MCP servers
  only when they are eager (every prompt's first model request waits for the servers still
  starting);
- *one call*: the model calls one tool of the first server through ``run_tool``, then answers:
  a lazy run starts that one server, on the call.

Figures per run: *first answer*, the wall time from spawning the process to the
``assistant_message`` event of the final answer on its stdout; *CPU*, the user+system CPU of the
process and everything it reaped (the servers; ``wait4``), i.e. what the launch and the
answer cost the machine; *exit*, the wall time to its exit; and, for a lazy *one call*, how
long the call waited for its server (from the ``tool_progress`` event with ``starting_server``
to the next one). Eager and lazy runs alternate
(``--pairs`` pairs per prompt, the side that goes first alternating), medians printed with the
lazy/eager ratios and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "mcp_servers" / "fixture_server.py"


@dataclass
class Run:
    first_answer: float
    cpu: float
    exit: float
    server_start: float | None = None
    """From the ``tool_progress`` event that says ``starting_server`` to the next one (the
    server is up): how long the call waited for its lazy server."""


def _servers(count: int, everything: str | None) -> dict[str, dict[str, object]]:
    servers: dict[str, dict[str, object]] = {}
    for i in range(count):
        if everything and i % 2 == 1:
            servers[f"s{i}"] = {"command": everything, "args": ["stdio"]}
        else:
            servers[f"s{i}"] = {
                "command": sys.executable,
                "args": [str(FIXTURE), "--name", f"bench-lazy-{i}"],
            }
    return servers


def _setup(work: Path, count: int, everything: str | None) -> dict[str, dict[str, str]]:
    """The project, a user config dir per side (same ``mcp.json``, own ``settings.json``),
    a shared data dir (sessions, the tool caches), the scripts. The environments per side."""
    project = work / "project"
    project.mkdir()
    servers = {"mcpServers": _servers(count, everything)}
    envs: dict[str, dict[str, str]] = {}
    for side, settings in (("eager", {}), ("lazy", {"mcp": {"start": "lazy"}})):
        config = work / f"config-{side}"
        config.mkdir()
        (config / "mcp.json").write_text(json.dumps(servers), encoding="utf-8")
        (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "ANTHROPIC"))}
        env.update(
            AGENT_TUI_CONFIG_DIR=str(config),
            AGENT_TUI_DATA_DIR=str(work / f"data-{side}"),
            PYTHONPATH=os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]),
        )
        envs[side] = env
    answer = {"turns": [{"text": "hello"}]}
    call = {
        "id": "c1",
        "name": "run_tool",
        "arguments": {"name": "mcp__s0__echo", "input": {"text": "hi"}},
    }
    one_call = {"turns": [{"tool_calls": [call]}, {"text": "done"}]}
    (work / "answer.json").write_text(json.dumps(answer), encoding="utf-8")
    (work / "one-call.json").write_text(json.dumps(one_call), encoding="utf-8")
    return envs


def run_once(work: Path, env: dict[str, str], script: str) -> Run:
    command = [
        sys.executable,
        "-m",
        "agent_tui",
        "-p",
        "go",
        "--model",
        f"script:{work / script}",
        "--output-format",
        "stream-json",
        "--cwd",
        str(work / "project"),
    ]
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    first: float | None = None
    answers = 0
    wanted = 1 if script == "answer.json" else 2  # one-call: the call's turn, then the answer
    starting: float | None = None
    started: float | None = None
    for line in proc.stdout:
        if '"tool_progress"' in line and started is None:
            event = json.loads(line)
            if event.get("starting_server") and starting is None:
                starting = time.perf_counter()
            elif starting is not None and not event.get("starting_server"):
                started = time.perf_counter()
        if first is None and '"assistant_message"' in line:
            answers += 1
            if answers == wanted:
                first = time.perf_counter() - start
        if '"tool_error"' in line:
            raise SystemExit(f"a tool call failed: {line.strip()[:300]}")
    _, status, usage = os.wait4(proc.pid, 0)
    ended = time.perf_counter() - start
    if status != 0 or first is None:
        raise SystemExit(f"agent-tui failed (status {status}) on {script}")
    waited = started - starting if starting is not None and started is not None else None
    return Run(first, usage.ru_utime + usage.ru_stime, ended, waited)


def _median(runs: list[Run], field: str) -> float:
    return statistics.median(getattr(r, field) for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--servers", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--everything", help="the server-everything binary (every other server)")
    args = parser.parse_args()
    print(f"cpus: {os.cpu_count()}, load average before: {Path('/proc/loadavg').read_text()}")
    with tempfile.TemporaryDirectory(prefix="bench-mcp-lazy-") as tmp:
        work = Path(tmp)
        envs = _setup(work, args.servers, args.everything)
        run_once(work, envs["lazy"], "answer.json")  # first lazy launch: fills the caches
        caches = list((work / "data-lazy" / "cache" / "mcp-tools").glob("*.json"))
        print(f"{args.servers} servers; {len(caches)} tool caches filled by a first lazy run")
        for script, label in (("answer.json", "answer"), ("one-call.json", "one call")):
            results: dict[str, list[Run]] = {"eager": [], "lazy": []}
            for pair in range(args.pairs):
                order = ["eager", "lazy"] if pair % 2 == 0 else ["lazy", "eager"]
                for side in order:
                    results[side].append(run_once(work, envs[side], script))
            print(f"\n{label} ({args.pairs} alternating pairs, medians):")
            print(f"  {'':6} {'first answer':>13} {'CPU':>9} {'exit':>9}")
            for side in ("eager", "lazy"):
                runs = results[side]
                print(
                    f"  {side:6} {_median(runs, 'first_answer'):12.3f}s "
                    f"{_median(runs, 'cpu'):8.3f}s {_median(runs, 'exit'):8.3f}s"
                )
            ratio = {
                f: _median(results["lazy"], f) / _median(results["eager"], f)
                for f in ("first_answer", "cpu", "exit")
            }
            print(
                f"  lazy/eager: first answer {ratio['first_answer']:.2f}x, "
                f"CPU {ratio['cpu']:.2f}x, exit {ratio['exit']:.2f}x"
            )
            waits = [r.server_start for r in results["lazy"] if r.server_start is not None]
            if waits:
                print(f"  lazy: the call waited {statistics.median(waits):.3f}s for its server")
    print(f"\nload average after: {Path('/proc/loadavg').read_text()}")


if __name__ == "__main__":
    main()
