"""What the agent is doing now, and the way to stop it: the run control its collaborators share.

``RunControl`` holds the interrupt (``Agent.interrupt()`` sets it; the turn, a compaction and
the executor watch it), whether a turn or a ``/compact`` is running, whether a rewind is
restoring files or cutting the transcript, and ``guard``: await something unless the interrupt
comes first (``Interrupted``). ``idle`` refuses a session change while any of them runs
(``AgentBusy``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class AgentBusy(RuntimeError):
    """A session change was asked for while a turn runs (the turn owns the transcript)."""


class Interrupted(Exception):
    """Raised inside the loop when ``Agent.interrupt()`` was called."""


class RunControl:
    """The interrupt and the busy flags of one agent."""

    def __init__(self) -> None:
        self.interrupt = asyncio.Event()
        """Set by ``Agent.interrupt()``; cleared when a turn or a ``/compact`` starts."""
        self.running = False
        """A turn (or a ``/compact``) is running."""
        self.rewinding = False
        """A rewind is restoring files or cutting the transcript."""

    def start(self) -> None:
        """A turn or a ``/compact`` starts: an earlier interrupt does not stop it."""
        self.interrupt.clear()
        self.running = True

    def idle(self, what: str) -> None:
        """``AgentBusy`` (saying why ``what`` must wait) while a turn or a rewind runs."""
        if self.running:
            raise AgentBusy(f"A turn is running: {what} after it ends (Esc interrupts it).")
        if self.rewinding:
            raise AgentBusy(f"A rewind is in progress: {what} after it ends.")

    async def guard(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable`` unless the turn is interrupted first (``Interrupted``)."""
        task = asyncio.ensure_future(awaitable)
        waiter = asyncio.ensure_future(self.interrupt.wait())
        try:
            done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if task in done:
            return task.result()
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception):
            pass
        raise Interrupted


__all__ = ["AgentBusy", "Interrupted", "RunControl"]
