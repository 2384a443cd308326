"""Following the spill directory live for the spill browser (``watchfiles``): a spill written
or deleted by the agent, the cleanup or another process shows up in the list."""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

from agent_tui.core.budget.store import is_spill_name

log = logging.getLogger(__name__)

WATCH_DEBOUNCE_MS = 150

Refresh = Callable[[], object]
Later = Callable[[float, Refresh], object]
"""Calls a refresh after a delay (the screen's ``set_timer``: stops with the screen)."""


async def follow_spill_directory(root: Path, refresh: Refresh, later: Later) -> None:
    """Follow the spill directory ``root``; before it exists, the nearest existing parent.
    Calls ``refresh`` whenever spills may have come or gone; runs until cancelled.
    ``watchfiles`` (and anyio under it) is imported here, in a thread, the first time a
    browser opens: nothing at start holds it, and the import does not hold up the loop."""
    awatch = (await asyncio.to_thread(importlib.import_module, "watchfiles")).awatch

    polling = False
    while True:
        target = _nearest_directory(root)
        try:
            async for changes in awatch(
                target,
                watch_filter=None,
                recursive=False,
                debounce=WATCH_DEBOUNCE_MS,
                step=50,
                force_polling=polling or None,
                poll_delay_ms=300,
            ):
                if target != root:
                    if _nearest_directory(root) != target:
                        break  # a directory on the way to it appeared: go closer
                    continue
                gone = _nearest_directory(root) != root
                if gone or any(is_spill_name(os.path.basename(p)) for _, p in changes):
                    refresh()
                if gone:
                    break  # the spill directory was removed: wait for it again
        except (OSError, RuntimeError) as exc:  # e.g. the inotify watch limit
            log.warning("watching %s failed (%s); polling instead", target, exc)
            polling = True
            await asyncio.sleep(1.0)
        refresh()
        later(0.3, refresh)  # what was written while switching
        await asyncio.sleep(0.1)


def _nearest_directory(path: Path) -> Path:
    """``path`` when it is a directory, else its nearest ancestor that is."""
    while not path.is_dir() and path.parent != path:
        path = path.parent
    return path
