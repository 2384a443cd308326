"""Reconnecting an HTTP server that went away: which failures are retried, and when.

An HTTP server whose connection is refused, reset or closed (``unreachable``, ``exited``),
that did not finish starting in time, or that a gateway says is down (HTTP 502, 503, 504)
is connected again by its ``connection.Connection``, after 1, 2, 4, 8, 16, then every 30
seconds, until it connects (the count starts over) or fails in a way that needs the user (a
401, a 404, a broken entry: ``retryable`` says no). A call to the server while it waits
starts the next attempt at once (``Backoff.hurry``), so a server that is back answers the
first call made after it came back. A stdio server is never retried: its process ended, and
starting it again is the user's decision (the MCP panel's reconnect).

``Reconnect`` is what the state shows of it (``reconnecting in 4 s (attempt 3)``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from agent_tui.core.mcp.client.failures import FailureKind
from agent_tui.core.mcp.config.spec import ServerSpec

FIRST_DELAY = 1.0
"""Seconds before the first attempt; each next one waits twice as long, up to ``MAX_DELAY``."""
MAX_DELAY = 30.0
RETRIED_KINDS: frozenset[FailureKind] = frozenset({"unreachable", "exited", "start_timeout"})
GATEWAY_DOWN = frozenset({502, 503, 504})
"""HTTP statuses that say the server behind a gateway is down (retried)."""


def retryable(spec: ServerSpec, kind: FailureKind | None, http_status: int | None) -> bool:
    """Whether a server that failed with ``kind`` (and ``http_status``) is reconnected by
    itself: only HTTP servers, and only failures that a server coming back cures."""
    if spec.transport != "http" or spec.error:
        return False
    return kind in RETRIED_KINDS or (kind == "server_error" and http_status in GATEWAY_DOWN)


@dataclass(frozen=True)
class Reconnect:
    """A server being reconnected: the attempt that comes next (or is under way), and the
    whole seconds until it starts (``None``: it is under way)."""

    attempt: int
    seconds: int | None

    def describe(self) -> str:
        if self.seconds is None:
            return f"reconnecting now (attempt {self.attempt})"
        return f"reconnecting in {self.seconds} s (attempt {self.attempt})"


class Backoff:
    """The reconnect schedule of one connection: ``schedule`` when an attempt (or the
    connection) failed, ``wait`` until it is time (or ``now``), ``reset`` once connected or
    given up."""

    def __init__(
        self,
        *,
        first: float = FIRST_DELAY,
        most: float = MAX_DELAY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.first, self.most, self.clock = first, most, clock
        self.attempt = 0
        """The attempt scheduled or under way (0: none)."""
        self.due: float | None = None
        """When the scheduled attempt starts (``clock`` time); None while none waits."""
        self._hurry = asyncio.Event()
        self._ended = asyncio.Event()

    def delay(self, attempt: int) -> float:
        """Seconds to wait before ``attempt`` (1, 2, 4, ... up to ``most``)."""
        return float(min(self.most, self.first * 2.0 ** min(attempt - 1, 30)))

    def schedule(self) -> float:
        """The attempt under way (if any) failed: schedule the next one; its delay."""
        self._ended.set()
        self._ended = asyncio.Event()
        self.attempt += 1
        delay = self.delay(self.attempt)
        self.due = self.clock() + delay
        self._hurry.clear()
        return delay

    async def wait(self) -> None:
        """Until the scheduled attempt is due, or ``hurry``; then it is under way."""
        if self.due is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, self.due - self.clock())):
                    await self._hurry.wait()
        self.due = None

    async def now(self, limit: float) -> None:
        """Start the scheduled attempt now (a call wants the server) and wait, at most
        ``limit`` seconds, until it ends. Nothing when no attempt is scheduled."""
        if self.attempt == 0:
            return
        ended = self._ended
        self._hurry.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(limit):
                await ended.wait()

    def reset(self) -> None:
        """Connected (or given up): no attempt from now on."""
        self.attempt, self.due = 0, None
        self._ended.set()

    @property
    def waiting(self) -> bool:
        """An attempt is scheduled and not started yet."""
        return self.due is not None

    def info(self) -> Reconnect | None:
        """What the state shows: None when no reconnect is scheduled or under way."""
        if self.attempt == 0:
            return None
        if self.due is None:
            return Reconnect(self.attempt, None)
        return Reconnect(self.attempt, max(1, math.ceil(self.due - self.clock())))


__all__ = ["GATEWAY_DOWN", "Backoff", "Reconnect", "retryable"]
