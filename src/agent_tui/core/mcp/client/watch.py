"""Following the MCP configuration files: call back when one changes.

The files are polled (``os.stat`` every ``TICK_S`` on the event loop: their inode, size and
modification and change times), not watched with ``watchfiles``: a TUI with no server holds
neither ``watchfiles`` nor anyio nor their thread (~3 MB at idle, issue 45), and two or three
``stat`` calls a tick cost less than the notify thread's own tick did. A file that does not
exist yet (nor its directory) is followed too: its creation is a change. A change is reported
once the files have stayed the same for ``DEBOUNCE_S`` (an editor's save in several writes is
one change). The first look sets ``ready``, so a caller (a test) knows changes from then on
are seen. ``ConfigWatch`` is the manager's watch (a task, started once, closed with the
manager); a failure of it is logged, never raised: the watch is a convenience and must not
take the app down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

log = logging.getLogger(__name__)
DEBOUNCE_S = 0.3
TICK_S = 0.5

Signature = tuple[int, int, int, int] | None
"""What a look at one file sees: (inode, size, mtime, ctime in ns), None when it is not there."""


def _look(files: Sequence[Path]) -> list[Signature]:
    found: list[Signature] = []
    for path in files:
        try:
            st = os.stat(path)  # follows a symbolic link: its target's changes count
        except OSError:
            found.append(None)
        else:
            found.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return found


async def watch_files(
    files: Sequence[Path],
    stop: asyncio.Event,
    ready: asyncio.Event,
    on_change: Callable[[], Awaitable[None]],
) -> None:
    """Until ``stop`` is set: ``await on_change()`` after any of ``files`` changed."""
    wanted = sorted({p.absolute() for p in files})
    seen = _look(wanted)
    ready.set()
    while not stop.is_set():
        await asyncio.sleep(TICK_S)
        now = _look(wanted)
        if now == seen:
            continue
        while not stop.is_set():  # settled: unchanged for DEBOUNCE_S
            await asyncio.sleep(DEBOUNCE_S)
            later = _look(wanted)
            if later == now:
                break
            now = later
        seen = now
        if not stop.is_set():
            await on_change()


class ConfigWatch:
    """Call ``on_change`` whenever one of ``files()`` changes, from ``start`` to ``aclose``."""

    def __init__(
        self, files: Callable[[], Sequence[Path]], on_change: Callable[[], Awaitable[None]]
    ) -> None:
        self.files = files
        self.on_change = on_change
        self.ready = asyncio.Event()
        """Set once the files are being watched."""
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start watching (once; again after ``aclose``)."""
        if self._task is None:
            self._stop = asyncio.Event()
            self._task = asyncio.create_task(self._run(), name="mcp config watcher")

    async def aclose(self) -> None:
        """Stop watching and wait until the watch is gone."""
        if self._task is None:
            return
        assert self._stop is not None
        self._stop.set()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
        self._task = None

    async def _run(self) -> None:
        assert self._stop is not None
        try:
            await watch_files(self.files(), self._stop, self.ready, self.on_change)
        except Exception:  # the watch is a convenience: never take the app down
            log.exception("watching the MCP configuration failed")


__all__ = ["ConfigWatch", "watch_files"]
