"""The garbage collector, tuned for a long-lived interactive process.

A full (generation-2) collection walks every object it tracks and holds the event loop
meanwhile: measured on this 2-core machine, 120–150 ms for a 50,000-token answer's heap and
250–300 ms for a resumed 500-turn session (``gc.callbacks`` probes, benchmarks/README.md).
What the app keeps — the start-up heap, a resumed session's turns, the reply parts already
shown — is alive at each full collection, and walked again by the next. So:

- ``start`` (before the first frame): the start-up heap (every module imported, the app) is
  frozen, so a full collection while the first frame is built walks only what was made since:
  one landed in the shell's mount, 60 ms of its ~170 ms (``benchmarks/bench_startup.py``),
  and none in a trivial Textual app's, whose smaller heap stays under the threshold.
- ``quiet`` (as the main screen opens): the heap is frozen (``gc.freeze``: moved out of the
  collector's sight, O(1)), and from then on so is whatever survives a full collection: each
  full collection walks only what was made since the previous one. Full collections run at
  the interpreter's default pace (every 10 middle ones): short, not rare.
- What is frozen and dies later is still freed by its reference count; only cycles among
  frozen objects wait. ``settle`` (a turn's end, when the app is idle) gives them back once
  the heap has grown by ``REFREEZE_GROWTH`` allocated blocks since the last time, with one full
  collection; ``thaw`` (the session's views replaced) at once, its collection a moment later
  (``refreeze``).
- ``release`` (the app ends) undoes all of it: a process may go on (tests, benchmarks).

The C allocator (glibc's ``malloc``, where Python puts objects over 512 bytes) is tuned too:
``one_arena`` (before the core is built in a thread) keeps every thread in one arena, not an
arena each (the boot, preload and index threads left ~2 MB of free, unreturned pages in theirs:
``benchmarks/bench_headless_start.py``'s idle RSS); ``trim`` (start-up done) gives the free
pages of the start-up back to the system (~1 MB). Elsewhere (no glibc) they do nothing.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from typing import Any

M_ARENA_MAX = -8
"""``mallopt``'s parameter for the most arenas ``malloc`` makes (glibc's ``malloc.h``)."""

MIDDLE_PER_FULL = 10
"""Middle collections per full one (the interpreter's default; the app used 50 before, which
made full collections rarer and each one five times longer)."""
REFREEZE_GROWTH = 400_000
"""Allocated blocks the heap may grow by before a turn's end collects it all again
(``settle``). Growth is counted in the allocator's blocks (``sys.getallocatedblocks``: ~0.1 ms,
it adds up the arenas) rather than the frozen objects (``gc.get_freeze_count`` walks the whole
frozen list: 5.6 ms per 500,000 objects here, more in the app's scattered heap, and three
calls of it were 49 ms of a resume's profile). A tracked object is one to three blocks (its
dict, its strings): 400,000 blocks is about the 200,000 objects counted before."""


class _State:
    installed = False
    threshold: tuple[int, int, int] | None = None
    settled_at = 0
    """The allocated blocks that are not growth: after the last full collection of
    everything, or when ``freeze`` froze a session's own content since."""


def _after_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()  # what survived it is kept: the next full collection skips it


def start() -> None:
    """Freeze the start-up heap now (what ``quiet`` freezes a moment later anyway)."""
    gc.freeze()


def quiet() -> None:
    """Freeze the heap now and every full collection's survivors from now on."""
    gc.freeze()
    if not _State.installed:
        _State.installed = True
        _State.threshold = gc.get_threshold()
        young, middle, _ = _State.threshold
        gc.set_threshold(young, middle, MIDDLE_PER_FULL)
        gc.callbacks.append(_after_collection)
    _State.settled_at = sys.getallocatedblocks()


def freeze() -> None:
    """Freeze what is alive now (a resumed session's replayed and earlier turns): the
    session's own content, which dies only when its views are replaced (``thaw``), so it does
    not count as growth for ``settle`` (else the first turn's end after a resume would walk
    the whole session once more)."""
    gc.freeze()
    _State.settled_at = max(_State.settled_at, sys.getallocatedblocks())


def settle() -> None:
    """At a turn's end: if the heap grew by ``REFREEZE_GROWTH`` blocks since the last full
    collection of everything, collect it all once (its dead cycles freed) and freeze again."""
    if sys.getallocatedblocks() - _State.settled_at >= REFREEZE_GROWTH:
        refreeze()


def thaw() -> None:
    """Give the frozen heap back to the collector (what was frozen may be garbage now: the
    views of a session no longer shown); ``refreeze`` collects it."""
    gc.unfreeze()


def refreeze() -> None:
    """One full collection of everything, then what lives is frozen again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _State.settled_at = sys.getallocatedblocks()


def _libc() -> Any:
    """The C library's functions, or None where they cannot be had."""
    import ctypes

    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def one_arena() -> None:
    """Threads share ``malloc``'s main arena from now on (glibc; elsewhere nothing). With the
    GIL they seldom allocate at once; an arena per thread held its free pages apart."""
    libc = _libc()
    if libc is None:
        return
    with contextlib.suppress(AttributeError):  # not glibc: no mallopt
        libc.mallopt(M_ARENA_MAX, 1)


def trim() -> None:
    """Give ``malloc``'s free pages back to the system (glibc; elsewhere nothing): the start-up's
    garbage, once it is done."""
    libc = _libc()
    if libc is None:
        return
    with contextlib.suppress(AttributeError):  # not glibc: no malloc_trim
        libc.malloc_trim(0)


def release() -> None:
    """Undo ``quiet``: nothing frozen, the collector's own pace and no callback."""
    if _State.installed:
        gc.callbacks.remove(_after_collection)
        if _State.threshold is not None:
            gc.set_threshold(*_State.threshold)
        _State.installed = False
    gc.unfreeze()
    _State.settled_at = 0
