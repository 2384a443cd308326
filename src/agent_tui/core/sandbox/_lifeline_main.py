"""The lifeline watchdog (Linux), run two ways by this Python:

- ``python -I -S _lifeline_main.py AGENT_PID -- ARGV...``: one watchdog for one command (the
  fallback, ``lifeline.lifeline_argv``);
- ``python -I -S _lifeline_main.py AGENT_PID --zygote FD``: the session's *zygote*
  (``zygote.py``), started once: for each request read from the socket FD it clones a
  watchdog — no interpreter to start — that is the agent's own child (``CLONE_PARENT``), so
  the agent waits for it and its death signal follows the agent, as the script's does.

The watchdog runs ARGV as its only child. It is a *subreaper* (``PR_SET_CHILD_SUBREAPER``):
whatever the command starts and leaves behind — a job in the background, one that left the
process group or the session (``setsid``, ``nohup … &``, a double fork) — becomes its child
when its own parent ends, never init's. So when the command ends, every process it left is
killed and reaped before the watchdog ends (as the sandbox's PID namespace ends with its
command): no job outlives the command to plant something after the checks that follow it have
looked. When the agent dies, even by ``kill -9``, the kernel sends it SIGUSR2
(``PR_SET_PDEATHSIG``) and it kills all it has started, the same way, then its process group
(it leads it), itself included. Otherwise it is transparent: the fds are the command's and the
child's exit code or fatal signal becomes its own. Nothing but fast C modules and ctypes.
"""

from __future__ import annotations

import ctypes
import marshal
import os
import sys

try:  # the C half of ``signal``: the same functions without its enum set-up (~5 ms a start)
    import _signal as signal  # type: ignore[import-not-found]
except ImportError:  # not CPython
    import signal

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_SET_CHILD_SUBREAPER = 36
CLONE_PARENT = 0x8000  # <linux/sched.h>
SYS_CLONE = {"x86_64": 56, "aarch64": 220, "riscv64": 220}
"""``clone``'s number where its arguments are (flags, stack, …): zeros after the flags."""
DEATH = signal.SIGUSR2
IGNORED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# The child gets the default back: for what we ignore and what Python ignores at start-up
# (as subprocess's restore_signals does for SIGPIPE and SIGXFSZ).
RESET = (*IGNORED, signal.SIGPIPE, signal.SIGXFSZ)
REQUEST_FDS = 5
"""A request's fds, in order: the control socket, the request (argv, cwd, env), stdio."""
libc = ctypes.CDLL(None, use_errno=True)


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


def _arm(agent: int) -> None:
    """Take the agent's death signal and become the subreaper; end at once (the group) when
    the agent is already gone. The handler before prctl, so a death notice right after it is
    not lost. A SIGTERM, SIGINT or SIGHUP to the group (run_shell's ``terminate``) is for the
    command: we outlive it to mirror its end (a SIGKILL to the group still ends us with it)."""
    signal.signal(DEATH, _end_group)
    for sig in IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    libc.prctl(PR_SET_PDEATHSIG, DEATH, 0, 0, 0)  # best effort: refused, the command still runs
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # Linux 3.4+; refused, orphans go to init
    if os.getppid() != agent:  # the agent died before prctl took effect
        _end_group()


def _supervise(argv: list[str], env: dict[str, str] | None) -> None:
    """Run ``argv`` (with ``env``, else ours), end what it left, then end as it did.

    fork + exec, not posix_spawn: glibc's posix_spawn leaves its internal signals (32, 33)
    ignored in the child, and ignored signals stay so through exec for every descendant."""
    child = os.fork()
    if child == 0:
        try:
            for sig in RESET:
                signal.signal(sig, signal.SIG_DFL)
            if env is None:
                os.execvp(argv[0], argv)
            else:
                os.execvpe(argv[0], argv, env)
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


def main() -> None:
    agent = int(sys.argv[1])
    if sys.argv[2] == "--zygote":
        serve(agent, int(sys.argv[3]))
    argv = sys.argv[3:]  # after "--"
    if os.getpgrp() != os.getpid():  # never end the caller's group: lead one of our own
        os.setpgid(0, 0)
    _arm(agent)
    _supervise(argv, None)


def serve(agent: int, channel: int) -> None:
    """The zygote: one watchdog per request on ``channel`` (a ``SOCK_SEQPACKET`` socket), until
    the agent closes it. It dies with the agent (``SIGKILL``); single-threaded, it keeps no
    fd but its own three and ``channel``, and never waits for what it clones (the agent's)."""
    import socket  # once a session: not on the script's path

    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != agent:
        os._exit(0)
    clone = ctypes.PyDLL(None, use_errno=True).syscall  # the GIL held across the clone
    clone.restype = ctypes.c_long
    clone.argtypes = [ctypes.c_long] * 6
    number = SYS_CLONE[os.uname().machine]
    sock = socket.socket(fileno=channel)
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 16, REQUEST_FDS)
        except OSError:
            os._exit(1)
        if not data:  # the agent closed its end: the session is over
            os._exit(0)
        if len(fds) != REQUEST_FDS:
            for fd in fds:
                os.close(fd)
            continue
        ctypes.set_errno(0)
        pid = clone(number, CLONE_PARENT | signal.SIGCHLD, 0, 0, 0, 0)
        if pid == 0:
            try:
                _watch(agent, channel, fds)
            finally:
                os._exit(127)  # never back into the zygote's loop
        if pid < 0:
            _tell(fds[0], b"F%d" % ctypes.get_errno())
        for fd in fds:
            os.close(fd)


def _tell(ctl: int, message: bytes) -> None:
    try:
        os.write(ctl, message)
    except OSError:
        pass  # the agent gave up on this request


def _watch(agent: int, channel: int, fds: list[int]) -> None:
    """A cloned watchdog: its own session, the command's stdio, no other fd; armed, it tells
    the agent its pid (or why the command cannot start) and runs the command on its word."""
    os.close(channel)  # the zygote's: its end must end with the zygote
    ctl, request, *stdio = fds
    os.setsid()  # a session and a group of its own, which it leads (start_new_session)
    data = b""
    while chunk := os.pread(request, 1 << 20, len(data)):
        data += chunk
    argv, cwd, env = marshal.loads(data)
    for target, fd in enumerate(stdio):
        os.dup2(fd, target)  # inheritable: the command's
    os.closerange(3, ctl)
    os.closerange(ctl + 1, 1 << 20)
    _arm(agent)
    try:
        os.chdir(cwd)
    except OSError as exc:
        _tell(ctl, b"E%d %d" % (os.getpid(), exc.errno or 0))
        os._exit(127)
    _tell(ctl, b"P%d" % os.getpid())
    try:
        go = os.read(ctl, 1)
    except OSError:
        go = b""
    if go != b"G":  # the agent gave up before it started: nothing runs
        os._exit(127)
    os.close(ctl)
    _supervise(argv, env)


if __name__ == "__main__":
    main()
