"""The agent's own provider keys, out of reach of the commands it runs unsandboxed.

An unsandboxed command runs as the user, so it can read ``/proc/<pid>/environ`` of any process
of the user — the agent's own included (``cat /proc/$(ps -o ppid= $PPID)/environ``, or a loop
over ``/proc/*/environ``). That file is not ``os.environ``: the kernel reads it from the
process's memory, the block of ``NAME=value`` strings the environment arrived in at ``exec``.
Giving commands an environment without the keys (``environment.unsandboxed_env``) therefore
leaves them one ``cat`` away.

``hide_provider_keys`` closes that: for each provider key (and each variable whose value holds
one, as ``unsandboxed_env`` drops them), it overwrites the value in that block with zero bytes
(``/proc/<pid>/environ`` then shows ``NAME=`` and nothing) and removes the name from the C
library's environment (a child started without an explicit environment inherits that one, not
``os.environ``). Python's ``os.environ`` — a copy made at start-up — keeps the keys: the
providers read them there. It also marks the process not dumpable (``PR_SET_DUMPABLE``): its
``/proc`` files become root's, so a process of the same user cannot read its memory
(``/proc/<pid>/mem``, a debugger) where the keys still are — root can, as root can anyway.

Linux only (elsewhere ``/proc/<pid>/environ`` does not exist; macOS's ``ps eww`` shows only
a process's own user's, and is left alone here). Fails open to the old state, never crashes a
start: what could not be done is returned for the log.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from agent_tui.core.sandbox.environment import unsandboxed_env

log = logging.getLogger(__name__)

PR_SET_DUMPABLE = 4


def hidden_names(environ: Mapping[str, str]) -> set[str]:
    """The variables an unsandboxed command does not get: the ones to hide."""
    return set(environ) - set(unsandboxed_env(environ))


def hide_provider_keys(environ: Mapping[str, str] | None = None) -> list[str]:
    """Wipe the provider keys from this process's start-up environment block and from the C
    environment, and make the process not dumpable; the names wiped (idempotent)."""
    if sys.platform != "linux":
        return []
    names = hidden_names(os.environ if environ is None else environ)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        log.warning("could not mark the agent not dumpable: errno %d", ctypes.get_errno())
    if not names:
        return []
    for name in names:
        try:
            os.unsetenv(name)  # the C environment only: os.environ keeps it
        except (OSError, ValueError):
            continue
    try:
        return _wipe(names)
    except (OSError, ValueError) as exc:
        log.warning("could not wipe the provider keys from /proc/self/environ: %s", exc)
        return []


def _wipe(names: set[str]) -> list[str]:
    """Zero the values of ``names`` in the block ``/proc/self/environ`` reads."""
    start, end = _environ_span()
    if not 0 < start < end:
        raise ValueError("no environment block in /proc/self/stat")
    shown = Path("/proc/self/environ").read_bytes()
    block = ctypes.string_at(start, end - start)
    if block != shown:  # not the block the kernel shows (moved?): touch nothing
        raise ValueError("the environment block is not where /proc/self/stat says")
    wiped: list[str] = []
    offset = 0
    for entry in block.split(b"\0"):
        name, eq, value = entry.partition(b"=")
        if eq and value and os.fsdecode(name) in names:
            ctypes.memset(start + offset + len(name) + 1, 0, len(value))
            wiped.append(os.fsdecode(name))
        offset += len(entry) + 1
    return sorted(wiped)


def _environ_span() -> tuple[int, int]:
    """``env_start`` and ``env_end`` of this process (``/proc/self/stat`` fields 50 and 51)."""
    stat = Path("/proc/self/stat").read_bytes()
    fields = stat.rsplit(b")", 1)[1].split()  # field 3 (state) is index 0: comm may hold spaces
    return int(fields[47]), int(fields[48])
