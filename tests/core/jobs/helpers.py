"""What the background-job tests share: a context with a job manager, a deadline poll, the
server command, and a check that a process is gone (by a marker in its command line)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from agent_tui.core.budget.store import SpillStore
from agent_tui.core.jobs import JobManager
from agent_tui.core.sandbox import SessionSandbox
from agent_tui.core.tools.base import ToolContext

T = TypeVar("T")
PORT = re.compile(r"port (\d+)")


def job_context(tmp_path: Path, sandbox: SessionSandbox | None = None) -> ToolContext:
    store = SpillStore(tmp_path / ".agent-spill", tmp_path, durable=False)
    ctx = ToolContext(cwd=tmp_path, jobs=JobManager(store))
    if sandbox is not None:
        ctx.sandbox = sandbox
    return ctx


def server_command(marker: str) -> str:
    """``http.server`` on 127.0.0.1, a free port (0), unbuffered; ``marker`` (a directory name)
    finds its process later."""
    return f"mkdir -p {marker} && exec python3 -u -m http.server 0 --bind 127.0.0.1 -d {marker}"


async def until(probe: Callable[[], Awaitable[T | None]], deadline: float = 20.0) -> T:
    end = time.monotonic() + deadline
    while True:
        got = await probe()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError("condition not met before the deadline")
        await asyncio.sleep(0.05)


def pids_with(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if marker.encode() in cmdline and state != "Z":
                found.append(int(entry))
    return found


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0
