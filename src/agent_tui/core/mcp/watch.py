"""Following the MCP configuration files (``watchfiles``): call back when one changes.

The directories of the files are watched, not recursively (a file may not exist yet). The
watcher ticks every ``TICK_MS`` even when nothing changes: the first tick sets ``ready``, so a
caller (a test) knows changes from then on are seen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

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
