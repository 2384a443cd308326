"""The lifeline watchdog: ``python -I -S _lifeline_main.py AGENT_PID -- ARGV...`` (Linux).

It runs ARGV as its only child. It is a *subreaper* (``PR_SET_CHILD_SUBREAPER``): whatever the
command starts and leaves behind — a job in the background, one that left the process group
or the session (``setsid``, ``nohup … &``, a double fork) — becomes its child when its own
parent ends, never init's. So when the command ends, every process it left is killed and
reaped before the watchdog ends (as the sandbox's PID namespace ends with its command): no
job outlives the command to plant something after the checks that follow it have looked.
When the agent dies, even by ``kill -9``, the kernel sends it SIGUSR2 (``PR_SET_PDEATHSIG``)
and it kills all it has started, the same way, then its process group (it leads it:
``run_shell`` starts it with ``start_new_session``), itself included. Otherwise it is
transparent: the fds are inherited and the child's exit code or fatal signal becomes its own.
Run as a script on every unsandboxed command: nothing but fast C modules and ctypes.
"""

from __future__ import annotations

import ctypes
import os
import sys

try:  # the C half of ``signal``: the same functions without its enum set-up (~5 ms a start)
    import _signal as signal  # type: ignore[import-not-found]
except ImportError:  # not CPython
    import signal

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_SET_CHILD_SUBREAPER = 36
DEATH = signal.SIGUSR2
IGNORED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# The child gets the default back: for what we ignore and what Python ignores at start-up
# (as subprocess's restore_signals does for SIGPIPE and SIGXFSZ).
RESET = (*IGNORED, signal.SIGPIPE, signal.SIGXFSZ)


def _children() -> list[int]:
    """This process's children (single-threaded: its one task's list), or, where the kernel
    does not keep that list, those ``/proc`` names this process as the parent of."""
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children", "rb") as listing:
            return [int(pid) for pid in listing.read().split()]
    except OSError:
        pass
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue  # ended meanwhile
            if int(fields[1]) == me:
                found.append(int(name))
    return found


def _end_left() -> None:
    """Kill and reap every process left: the children and, as each dies and its own children
    come to this subreaper, theirs. Ends when the kernel says there is no child (``ECHILD``),
    not when a listing comes back empty (the list may miss a child being born)."""
    while True:
        children = _children()
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            pid, _ = os.waitpid(-1, 0 if children else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:  # a child not listed yet: look again
            os.sched_yield()


def _end_group(*_: object) -> None:
    _end_left()
    os.killpg(0, signal.SIGKILL)  # the group, this process included: never returns


def main() -> None:
    agent = int(sys.argv[1])
    argv = sys.argv[3:]  # after "--"
    if os.getpgrp() != os.getpid():  # never end the caller's group: lead one of our own
        os.setpgid(0, 0)
    # The handler before prctl, so a death notice right after it is not lost. A SIGTERM,
    # SIGINT or SIGHUP to the group (run_shell's _terminate) is for the command: we outlive
    # it to mirror its end below (a SIGKILL to the group still ends us with it).
    signal.signal(DEATH, _end_group)
    for sig in IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, DEATH, 0, 0, 0)  # best effort: refused, the command still runs
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # Linux 3.4+; refused, orphans go to init
    if os.getppid() != agent:  # the agent died before prctl took effect
        _end_group()
    # fork + exec, not posix_spawn: glibc's posix_spawn leaves its internal signals (32, 33)
    # ignored in the child, and ignored signals stay so through exec for every descendant.
    child = os.fork()
    if child == 0:
        try:
            for sig in RESET:
                signal.signal(sig, signal.SIG_DFL)
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"lifeline: cannot run {argv[0]}: {exc.strerror or exc}\n".encode())
        finally:
            os._exit(127)  # exec failed: the child never goes on as a second watchdog
    # PEP 475: waitpid resumes after a signal, unless the handler ended the group.
    _, status = os.waitpid(child, 0)
    _end_left()  # what the command left running ends with it
    if os.WIFSIGNALED(status):  # die of the same signal, so the caller sees it
        sig = os.WTERMSIG(status)
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # only if the signal did not end us (it should have)
    os._exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
