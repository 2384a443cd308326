"""The cyclic garbage collector around a headless start (issue 45).

A start imports some 500 modules and builds the core: ~80,000 objects the collector tracks,
of which it finds about 1 % to be garbage. Its passes over them while they are made (over a
hundred, the later ones over the whole heap) cost some 6 % of a one-turn run. So the
collector is paused while the core is imported and built, and what was built is then frozen
(``gc.freeze``): the run's own collections skip it. ``release`` gives it back to the
collector at the end of the run (a caller in the same process, a test, loses nothing).

At exit the interpreter's finalization collects again, over all of it: ~100 ms CPU, more than
a third of what a one-turn run spends after its imports. ``skip_final_collection`` freezes
what is left as the last exit handler, so finalization does not scan it. Exit handlers
(``atexit``, ``weakref.finalize``) still run and modules are still torn down; what is left is
objects in reference cycles not freed at exit (CPython never promised their ``__del__`` then;
agent-tui has none, and the OS takes the memory back).
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No collection inside; on the way out what exists is frozen and the collector runs
    again (if it ran before)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


_FINAL: list[bool] = []


def skip_final_collection() -> None:
    """Freeze what is left at exit, after the exit handlers registered later (once)."""
    if not _FINAL:
        _FINAL.append(True)
        atexit.register(gc.freeze)


def release() -> None:
    """What ``paused`` froze is collected as usual again."""
    gc.unfreeze()
