"""The files agent-tui itself last wrote, by stamp: so a check after a command can tell them
from the command's.

An unsandboxed command's changes to the files that configure the agent are undone after it
(``sandbox.config_watch``), but the agent writes some of them too — an "always allow" rule
saved to ``.agent-tui/settings.local.json``, an approved edit — possibly while a command runs.
Every atomic write of the agent (``safe_open.replace_file``) notes the stamp of the file it
made (inode, size, modification and change times: a command cannot make another file with
that stamp, the change time cannot be set); a file whose stamp is noted here is the agent's.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

Stamp = tuple[int, int, int, int]
KEPT = 1024
"""Writes remembered (the oldest forgotten first): more than run between two checks."""

_lock = threading.Lock()
_written: OrderedDict[str, Stamp] = OrderedDict()


def stamp_of(info: os.stat_result) -> Stamp:
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def note(path: str, info: os.stat_result) -> None:
    """The agent has just made ``path`` (absolute, resolved) with the stat ``info``."""
    with _lock:
        _written[path] = stamp_of(info)
        _written.move_to_end(path)
        while len(_written) > KEPT:
            _written.popitem(last=False)


def ours(path: str, info: os.stat_result) -> bool:
    """Is ``path`` as ``info`` finds it the agent's own last write?"""
    with _lock:
        return _written.get(path) == stamp_of(info)
