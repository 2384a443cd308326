"""The cyclic garbage collector around a headless start (issue 45).

A start imports some 500 modules and builds the core: ~80,000 objects the collector tracks,
of which it finds about 1 % to be garbage. Its passes over them while they are made (over a
hundred, the later ones over the whole heap) cost some 6 % of a one-turn run. So the
collector is paused while the core is imported and built, and what was built is then frozen
(``gc.freeze``): the run's own collections skip it. ``release`` gives it back to the
collector at the end of the run (a caller in the same process, a test, loses nothing).
"""

from __future__ import annotations

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


def release() -> None:
    """What ``paused`` froze is collected as usual again."""
    gc.unfreeze()
