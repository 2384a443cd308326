"""The lifeline watchdog: ``python -I -S _lifeline_main.py AGENT_PID -- ARGV...`` (Linux).

It runs ARGV as its only child and ends the whole process group when the agent dies, even by
``kill -9``: the kernel sends it SIGUSR2 then (``PR_SET_PDEATHSIG``). It leads its process
group (``run_shell`` starts it with ``start_new_session``), so ``killpg(0, SIGKILL)`` ends the
command, everything it started in the group and the watchdog itself. Otherwise it is
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
DEATH = signal.SIGUSR2
IGNORED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# The child gets the default back: for what we ignore and what Python ignores at start-up
# (as subprocess's restore_signals does for SIGPIPE and SIGXFSZ).
RESET = (*IGNORED, signal.SIGPIPE, signal.SIGXFSZ)


def _end_group(*_: object) -> None:
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
    if os.WIFSIGNALED(status):  # die of the same signal, so the caller sees it
        sig = os.WTERMSIG(status)
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # only if the signal did not end us (it should have)
    os._exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
