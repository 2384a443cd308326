"""Enter typed while the TUI starts is Enter, not a new line.

Until Textual's driver puts the terminal in raw mode (some hundreds of milliseconds of imports
after ``agent-tui`` starts), the terminal is in its cooked mode, whose ``ICRNL`` turns the
``\\r`` of Enter into ``\\n`` as it is typed: the app then reads Ctrl+J, the prompt's new-line
key, and a fast typist's ``fix the tests⏎`` sat in the box unsent. ``keep_enter`` turns
``ICRNL`` off first thing (only that flag; typing still echoes and lines still edit as before),
and gives back a function that puts the terminal's settings back as they were: called once the
app is gone, whatever happened (Textual restores the settings it found at its start — ours).
What was typed before even that (``agent-tui⏎fix it⏎`` typed fast in a shell: the terminal
took the Enter before our process ran) ``typed_ahead`` takes out of the queue just before the
driver starts, its line feeds Enter again, for the app to post ahead of what the driver reads.
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


def typed_ahead(fd: int) -> str:
    """What was typed on terminal ``fd`` before the app reads it, taken out of the terminal's
    queue now (the app posts it as keys before any its driver reads): the terminal was cooked,
    so a line ended by Enter before ``keep_enter`` ran holds ``ICRNL``'s ``\\n``, given back as
    the ``\\r`` of Enter. The line being typed is taken too (the line discipline hands it over
    once ``ICANON`` is off, for the moment of the read). Not a terminal, nothing typed: ``""``."""
    try:
        import termios
    except ImportError:  # not POSIX
        return ""
    try:
        if not os.isatty(fd):
            return ""
        before = termios.tcgetattr(fd)
        if not before[3] & termios.ICANON:
            return ""  # raw already: whoever made it so reads it
        now = list(before)
        now[3] = before[3] & ~termios.ICANON
        now[6] = list(before[6])
        now[6][termios.VMIN] = 0  # a read returns what is there, at once
        now[6][termios.VTIME] = 0
        termios.tcsetattr(fd, termios.TCSANOW, now)
    except (OSError, termios.error):
        return ""
    taken = bytearray()
    try:
        while chunk := os.read(fd, 65536):
            taken.extend(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)
    return taken.replace(b"\n", b"\r").decode("utf-8", "replace")
