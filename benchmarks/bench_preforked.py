"""What a test pays to start a Python MCP fixture server: directly vs forked from the zygote.

    PYTHONPATH=src:. python benchmarks/bench_preforked.py [--starts 6]

Each start spawns the command a test's client would (``python fixture_server.py`` or the
launcher of ``tests/core/mcp/preforked.py``), sends ``initialize`` on its stdin and waits for
the answer on its stdout, then closes stdin and waits for the exit; the two kinds alternate.
CPU per start: the spawned process and its children (``RUSAGE_CHILDREN``) plus what the zygote
and its forked children used meanwhile (``/proc/PID/stat``: utime, stime, cutime, cstime).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from tests.core.mcp import preforked as pf
from tests.core.mcp.conftest import FIXTURE

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def zygote_cpu(socket_path: str) -> float:
    """The zygote's CPU seconds so far, its reaped children's included."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if socket_path.encode() in cmdline and str(pf.ZYGOTE).encode() in cmdline:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    raise LookupError("no zygote")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start(argv: list[str]) -> float:
    """Seconds from the spawn to the ``initialize`` answer."""
    began = time.monotonic()
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    process.stdin.flush()
    assert b'"result"' in process.stdout.readline()
    took = time.monotonic() - began
    process.stdin.close()
    process.wait(timeout=60)
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=6)
    starts = parser.parse_args().starts
    began = time.monotonic()
    socket_path = pf.zygote_socket()
    start(pf.preforked(FIXTURE))  # the zygote has imported the SDK: once a session
    zygote_start = time.monotonic() - began
    kinds = {
        "direct": [sys.executable, str(FIXTURE)],
        "preforked": pf.preforked(FIXTURE),
    }
    totals = {kind: [0.0, 0.0] for kind in kinds}
    for _ in range(starts):
        for kind, argv in kinds.items():
            cpu = children_cpu() + zygote_cpu(socket_path)
            totals[kind][0] += start(argv)
            totals[kind][1] += children_cpu() + zygote_cpu(socket_path) - cpu
    print(f"load average {os.getloadavg()}; {starts} starts of each, alternating")
    print(f"zygote ready and first server answering: {zygote_start:.2f} s (once per process)")
    for kind, (wall, cpu) in totals.items():
        print(f"{kind:10s} per start: {wall / starts:.3f} s to the initialize answer, "
              f"{cpu / starts:.3f} CPU-s")  # fmt: skip


if __name__ == "__main__":
    main()
