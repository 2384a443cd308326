"""Stopping a command's whole process group: SIGTERM, a grace, then SIGKILL. ``run_shell``
(a timeout, an interrupt) and the background jobs stop their commands this one way."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Protocol


class Started(Protocol):
    """A started command that leads its process group: an ``asyncio.subprocess.Process`` or
    the lifeline's watchdog (``sandbox.zygote.Watched``)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...


KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL."""


def signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def terminate(proc: Started, grace: float = KILL_GRACE) -> int:
    """SIGTERM the process group ``proc`` leads, then SIGKILL whatever is left after
    ``grace``; its exit code."""
    signal_group(proc.pid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(grace):
            await proc.wait()
    signal_group(proc.pid, signal.SIGKILL)
    return await proc.wait()
