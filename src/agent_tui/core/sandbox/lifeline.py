"""The lifeline: without the sandbox, a command still never outlives the agent (Linux).

A tiny watchdog (``_lifeline_main.py``) stands between the agent and the command: cloned from
the session's zygote (``zygote.start``, no interpreter started per command), or, where that
cannot be used, run by this Python (``lifeline_argv``: the watchdog as a script). The kernel
sends it ``SIGUSR2`` when the agent dies (``PR_SET_PDEATHSIG``, ``kill -9`` included), and it
then kills everything the command started. It is a subreaper,
so every process the command leaves behind comes to it, whatever group or session it moved to
(``setsid``, ``nohup … &``, a double fork); when the command ends, the watchdog kills and reaps
those before it ends too — unsandboxed as in the sandbox (whose PID namespace ends with its
command), no background job outlives its command to change files after the checks that follow
the command have looked (the git watch). A job meant to outlive a turn is a background shell
(``core.jobs``), which runs under its own watchdog. Otherwise it is transparent: output fds
inherited, the command's exit code or fatal signal mirrored as its own, SIGTERM/SIGINT/SIGHUP
to the group reach the command (the watchdog ignores them and the command gets the default
dispositions back).

Limits: the watchdog must lead its process group (``start_new_session=True``; it makes a group
of its own otherwise; the zygote's watchdogs lead a session of their own). What a command asks
another program to run for it (``systemd-run``, ``at``, a daemon's socket) is not its
descendant and not covered. The death signal comes when
the agent's *thread* that started the watchdog (or the zygote) ends: start it from the thread
of the event loop, as ``run_shell`` does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SCRIPT = Path(__file__).with_name("_lifeline_main.py")


def lifeline_argv(argv: list[str]) -> list[str]:
    """The argv that runs ``argv`` under the watchdog (``argv`` unchanged off Linux, or when
    this Python's executable is unknown)."""
    if not sys.platform.startswith("linux") or not sys.executable:
        return argv
    return [sys.executable, "-I", "-S", str(SCRIPT), str(os.getpid()), "--", *argv]
