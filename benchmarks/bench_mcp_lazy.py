"""Lazy MCP servers (the default): launch CPU and time to first answer, end to end.

Run from the repository root::

    PYTHONPATH=src:. python benchmarks/bench_mcp_lazy.py               # the figures in README.md
    PYTHONPATH=src:. python benchmarks/bench_mcp_lazy.py --pairs 3     # quicker
    PYTHONPATH=src:. python benchmarks/bench_mcp_lazy.py --everything PATH  # + server-everything

Each run is a real ``agent-tui -p`` process (headless, ``--output-format stream-json``) with a
script model, in a project whose user ``mcp.json`` configures ``--servers`` servers (the Python
SDK fixture server; with ``--everything``, every other one is server-everything). Four sides:

- *default*: no ``mcp.start`` setting (lazy since issue 45), the tool caches filled by one run
  before timing: what every launch after the first gives;
- *default, first run*: the same with the tool caches removed before each run (a new project or
  a changed configuration): a headless run waits for the lazy servers whose tools are not cached
  yet, so this is the bounded wait a script sees once;
- *eager*: ``{"mcp": {"start": "eager"}}``, the old default: every request waits for every server
  still starting;
- *none*: no server configured (the floor).

Two prompts:

- *answer*: the model answers in text (no tool);
- *one call*: the model calls one tool of the first server through ``run_tool``, then answers
  (not for *none*): a lazy run starts that one server, on the call.

Figures per run: *first answer*, the wall time from spawning the process to the
``assistant_message`` event of the final answer on its stdout; *CPU*, the user+system CPU of the
process and everything it reaped (the servers; ``wait4``), i.e. what the launch and the
answer cost the machine; *exit*, the wall time to its exit; and, for a lazy *one call*, how
long the call waited for its server (from the ``tool_progress`` event with ``starting_server``
to the next one). The sides take turns (``--pairs`` rounds per prompt, the side that goes first
rotating), medians printed with the ratios to eager and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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


SIDES = ("default", "default, first run", "eager", "none")
COLD = "default, first run"


def _setup(work: Path, count: int, everything: str | None) -> dict[str, dict[str, str]]:
    """The project, a user config dir per side (``mcp.json``, own ``settings.json``), a data
    dir per side (sessions, the tool caches), the scripts. The environments per side."""
    project = work / "project"
    project.mkdir()
    servers = {"mcpServers": _servers(count, everything)}
    envs: dict[str, dict[str, str]] = {}
    for index, side in enumerate(SIDES):
        settings = {"mcp": {"start": "eager"}} if side == "eager" else {}
        config = work / f"config-{index}"
        config.mkdir()
        listed = servers if side != "none" else {"mcpServers": {}}
        (config / "mcp.json").write_text(json.dumps(listed), encoding="utf-8")
        (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "ANTHROPIC"))}
        env.update(
            AGENT_TUI_CONFIG_DIR=str(config),
            AGENT_TUI_DATA_DIR=str(work / f"data-{index}"),
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


def _caches(env: dict[str, str]) -> Path:
    return Path(env["AGENT_TUI_DATA_DIR"]) / "cache" / "mcp-tools"


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
    parser.add_argument("--pairs", type=int, default=5, help="rounds per prompt")
    parser.add_argument("--everything", help="the server-everything binary (every other server)")
    args = parser.parse_args()
    print(f"cpus: {os.cpu_count()}, load average before: {Path('/proc/loadavg').read_text()}")
    with tempfile.TemporaryDirectory(prefix="bench-mcp-lazy-") as tmp:
        work = Path(tmp)
        envs = _setup(work, args.servers, args.everything)
        run_once(work, envs["default"], "answer.json")  # the first launch fills the caches
        caches = list(_caches(envs["default"]).glob("*.json"))
        print(f"{args.servers} servers; {len(caches)} tool caches filled by a first run")
        for script, label in (("answer.json", "answer"), ("one-call.json", "one call")):
            sides = [s for s in SIDES if script == "answer.json" or s != "none"]
            results: dict[str, list[Run]] = {side: [] for side in sides}
            for round_ in range(args.pairs):
                shift = round_ % len(sides)
                for side in sides[shift:] + sides[:shift]:
                    if side == COLD:
                        shutil.rmtree(_caches(envs[side]), ignore_errors=True)
                    results[side].append(run_once(work, envs[side], script))
            print(f"\n{label} ({args.pairs} rounds, medians; ratio: first answer to eager's):")
            print(f"  {'':20} {'first answer':>13} {'CPU':>9} {'exit':>9} {'ratio':>7}")
            eager = _median(results["eager"], "first_answer")
            for side in sides:
                runs = results[side]
                first = _median(runs, "first_answer")
                print(
                    f"  {side:20} {first:12.3f}s {_median(runs, 'cpu'):8.3f}s "
                    f"{_median(runs, 'exit'):8.3f}s {first / eager:6.2f}x"
                )
            waits = [r.server_start for r in results["default"] if r.server_start is not None]
            if waits:
                print(f"  default: the call waited {statistics.median(waits):.3f}s for its server")
    print(f"\nload average after: {Path('/proc/loadavg').read_text()}")


if __name__ == "__main__":
    main()
