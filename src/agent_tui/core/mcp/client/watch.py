"""Following the MCP configuration files (``watchfiles``): call back when one changes.

The directories of the files are watched, not recursively (a file may not exist yet). The
watcher ticks every ``TICK_MS`` even when nothing changes: the first tick sets ``ready``, so a
caller (a test) knows changes from then on are seen. ``ConfigWatch`` is the manager's watch (a
task, started once, closed with the manager); a failure of it is logged, never raised: the
watch is a convenience and must not take the app down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

log = logging.getLogger(__name__)
DEBOUNCE_MS = 300
TICK_MS = 500


async def watch_files(
    files: Sequence[Path],
    stop: asyncio.Event,
    ready: asyncio.Event,
    on_change: Callable[[], Awaitable[None]],
) -> None:
    """Until ``stop`` is set: ``await on_change()`` after any of ``files`` changed."""
    from watchfiles import awatch

    wanted = {p.absolute() for p in files} | {p.resolve() for p in files}
    dirs = sorted({str(p.parent) for p in wanted if p.parent.is_dir()})
    if not dirs:
        return
    async for changes in awatch(
        *dirs,
        stop_event=stop,
        debounce=DEBOUNCE_MS,
        recursive=False,
        rust_timeout=TICK_MS,
        yield_on_timeout=True,
    ):
        ready.set()
        if any(Path(path) in wanted for _, path in changes):
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
