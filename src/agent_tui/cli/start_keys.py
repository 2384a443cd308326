"""Enter typed while the TUI starts is Enter, not a new line.

Until Textual's driver puts the terminal in raw mode (some hundreds of milliseconds of imports
after ``agent-tui`` starts), the terminal is in its cooked mode, whose ``ICRNL`` turns the
``\\r`` of Enter into ``\\n`` as it is typed: the app then reads Ctrl+J, the prompt's new-line
key, and a fast typist's ``fix the tests⏎`` sat in the box unsent. ``keep_enter`` turns
``ICRNL`` off first thing (only that flag; typing still echoes and lines still edit as before),
and gives back a function that puts the terminal's settings back as they were: called once the
app is gone, whatever happened (Textual restores the settings it found at its start — ours).
Not a terminal, or not a POSIX one: nothing is done.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable


def keep_enter(fd: int) -> Callable[[], None]:
    """Turn ``ICRNL`` off on terminal ``fd``; the function that restores its settings."""
    try:
        import termios
    except ImportError:  # not POSIX
        return _nothing
    try:
        if not os.isatty(fd):
            return _nothing
        before = termios.tcgetattr(fd)
        if not before[0] & termios.ICRNL:
            return _nothing
        changed = list(before)
        changed[0] = before[0] & ~termios.ICRNL
        termios.tcsetattr(fd, termios.TCSANOW, changed)
    except (OSError, termios.error):
        return _nothing

    def restore() -> None:
        with contextlib.suppress(OSError, termios.error):
            now = termios.tcgetattr(fd)
            now[0] |= termios.ICRNL  # only the flag we took: the rest as the app left it
            termios.tcsetattr(fd, termios.TCSANOW, now)

    return restore


def _nothing() -> None:
    return None
