"""No full garbage collection while a reply streams; one when it is done.

A full collection walks every live object, and while a long reply streams the app is full of
short-lived widgets and render caches (the blocks of each write, the parts the freezer took
out of the DOM, thousands of strips): measured on a 10,000-token reply, the four full
collections that ran took 0.4–1.1 s each, the longest pauses of the stream by far. While a
reply streams the young generations are still collected as usual (a few ms each); full
collections wait, and one runs right after the reply's last paint.
"""

from __future__ import annotations

import gc

_HELD = 10**9
"""A full-collection threshold no stream reaches."""

_saved: int | None = None


def hold() -> None:
    """Hold off full collections (until ``release``; calling it again changes nothing)."""
    global _saved
    young, middle, old = gc.get_threshold()
    if _saved is None:
        _saved = old
        gc.set_threshold(young, middle, _HELD)


def release() -> None:
    """Full collections as before, and one now (what the reply left behind)."""
    global _saved
    if _saved is None:
        return
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, _saved)
    _saved = None
    gc.collect()
