"""The lifeline without an interpreter per command (Linux): a zygote per agent thread.

``lifeline_argv`` starts a Python watchdog for every unsandboxed command, and that start cost
more than bubblewrap (issue 45). Here one small Python process, the *zygote*
(``_lifeline_main.serve``), is started once, on the first unsandboxed command, and dies with
the agent (``PR_SET_PDEATHSIG``). For each command the agent sends it a request over a Unix
socket — argv, cwd and environment in a memfd, stdin/stdout/stderr and a control socket as
fds (``SCM_RIGHTS``) — and it *clones* the same watchdog the script runs, with
``CLONE_PARENT``: no exec, no interpreter start, and the watchdog is the agent's own child,
exactly as before. So the agent waits for it (``Watched``: a pidfd), gets the command's exit
code or signal from it, and its death signal follows the agent's thread: the semantics are the
script's — subreaper, kill and reap what the command left when it ends, kill everything when
the agent dies (``kill -9`` too), transparent fds and signals.

The command runs only once the agent holds the watchdog's pid (it writes ``G`` on the control
socket): a zygote that dies mid-request never leaves a command running that nobody waits for,
and the agent retries with a fresh zygote, then falls back to the script
(``lifeline_argv``) — never to an unwatched command. Off Linux, on another architecture, or
without pidfds, ``start`` returns None and the caller runs the script.

The zygote is tied to the thread that started it: when that thread ends, the kernel sends the
death signal to the zygote and to every watchdog it cloned (their real parent). ``run_shell``
calls from the loop's thread, so a zygote is kept per (process, thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import marshal
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from agent_tui.core.sandbox._lifeline_main import REQUEST_FDS, SYS_CLONE
from agent_tui.core.sandbox.lifeline import SCRIPT

REPLY_SECONDS = 30.0
"""The longest to wait for a zygote to hand a watchdog over (it takes well under a ms)."""
ATTEMPTS = 2
"""Zygotes tried for a command (a fresh one after a dead one) before the script."""


class Watched:
    """A watchdog the zygote cloned, as much of ``asyncio.subprocess.Process`` as the shell
    tools use: ``pid`` (it leads its process group), ``returncode``, ``wait()``. It is reaped
    as soon as it ends (its pidfd watched by the loop), waited for or not."""

    def __init__(self, pid: int, loop: asyncio.AbstractEventLoop) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._loop = loop
        self._ended: asyncio.Future[int] = loop.create_future()
        self._pidfd = os.pidfd_open(pid)  # our unreaped child: the pid cannot be reused
        loop.add_reader(self._pidfd, self._reap)

    def _reap(self) -> None:
        try:
            done, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere (a waitpid(-1) in the agent)
            done, status = self.pid, 255 << 8
        if done == 0:
            return
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        self.returncode = os.waitstatus_to_exitcode(status)
        self._ended.set_result(self.returncode)

    async def wait(self) -> int:
        return await asyncio.shield(self._ended)


class _Zygote:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            argv = [sys.executable, "-I", "-S", str(SCRIPT), str(os.getpid()), "--zygote"]
            self.proc = subprocess.Popen(
                [*argv, str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # no terminal's signals
                env=_zygote_env(),
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        self.sock = ours

    def close(self) -> None:
        """End it (killed: nothing it cloned is its child) and reap it."""
        self.sock.close()
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.proc.wait()


ZYGOTE_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE")
"""All the zygote is started with: the locale (argv and paths decode as the agent's do) and
``PATH``. Never the agent's whole environment: a watchdog it clones keeps the zygote's initial
environment block, and a command reads it as ``/proc/$PPID/environ`` — the provider keys were
there (each command gets its own, allow-listed, environment through the request)."""


def _zygote_env() -> dict[str, str]:
    return {name: os.environ[name] for name in ZYGOTE_ENV if name in os.environ}


_zygotes: dict[tuple[int, int], _Zygote] = {}
_broken = False
"""The zygote cannot clone here (a seccomp filter, a kernel without ``CLONE_PARENT``)."""


def usable() -> bool:
    """Whether commands can go through a zygote on this machine (Linux, an architecture whose
    ``clone`` we know, pidfds: Linux 5.3)."""
    if _broken or not sys.platform.startswith("linux") or not sys.executable:
        return False
    return os.uname().machine in SYS_CLONE and hasattr(os, "memfd_create") and _pidfds()


@functools.cache
def _pidfds() -> bool:
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):  # an older Python or kernel
        return False
    return True


def _zygote() -> _Zygote:
    key = (os.getpid(), threading.get_ident())
    zygote = _zygotes.get(key)
    if zygote is None or zygote.proc.poll() is not None:
        if zygote is not None:
            zygote.close()
        zygote = _zygotes[key] = _Zygote()
    return zygote


def _discard(zygote: _Zygote) -> None:
    key = (os.getpid(), threading.get_ident())
    if _zygotes.get(key) is zygote:
        del _zygotes[key]
    zygote.close()


def running() -> list[int]:
    """The pids of this process's zygotes."""
    return [z.proc.pid for key, z in _zygotes.items() if key[0] == os.getpid()]


async def start(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], stdout: int
) -> Watched | None:
    """Run ``argv`` in ``cwd`` with ``env``, stdin ``/dev/null``, stdout and stderr to
    ``stdout``, under a watchdog a zygote clones; None when no zygote could (run the script).
    ``OSError`` when the command cannot start (``cwd`` gone), as from a subprocess."""
    global _broken
    if not usable():
        return None
    for _ in range(ATTEMPTS):
        zygote = _zygote()
        try:
            watched = await _request(zygote, argv, cwd, env, stdout)
        except _Refused:
            _broken = True
            _discard(zygote)
            return None
        if watched is not None:
            return watched
        _discard(zygote)  # dead, or stuck: the next try starts a fresh one
    return None


class _Refused(Exception):
    """The zygote cannot clone (an errno from ``clone``)."""


async def _request(
    zygote: _Zygote, argv: Sequence[str], cwd: Path, env: Mapping[str, str], stdout: int
) -> Watched | None:
    """One request: the watchdog, once it runs the command; None when the zygote did not
    answer (dead, stuck)."""
    loop = asyncio.get_running_loop()
    request = os.memfd_create("agent-tui-command", os.MFD_CLOEXEC)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    stdin = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.write(request, marshal.dumps((list(argv), os.fsdecode(cwd), dict(env))))
        fds = [theirs.fileno(), request, stdin, stdout, stdout]
        assert len(fds) == REQUEST_FDS
        sent = await _send(loop, zygote.sock, fds)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
        os.close(request)
        os.close(stdin)
    if not sent:
        ours.close()
        return None
    ours.setblocking(False)
    # The answer comes in a task the caller's cancellation does not interrupt between the pid
    # and the word to run: a cancelled call never runs the command, and its watchdog is reaped.
    abandoned: list[bool] = []
    answer = asyncio.ensure_future(_answer(loop, ours, abandoned))
    try:
        return await asyncio.shield(answer)
    except BaseException:
        abandoned.append(True)
        answer.add_done_callback(_forget)
        raise


def _forget(answer: asyncio.Future[Watched | None]) -> None:
    if not answer.cancelled():
        answer.exception()  # retrieved: the caller is gone


async def _send(loop: asyncio.AbstractEventLoop, sock: socket.socket, fds: list[int]) -> bool:
    """Hand the request over; False when the zygote is gone or does not take it in time."""
    try:
        async with asyncio.timeout(REPLY_SECONDS):
            while True:
                try:
                    socket.send_fds(sock, [b"R"], fds)
                    return True
                except BlockingIOError:  # its queue is full: wait for room
                    room = loop.create_future()
                    loop.add_writer(sock, room.set_result, None)
                    try:
                        await room
                    finally:
                        loop.remove_writer(sock)
    except (TimeoutError, OSError):
        return False


async def _answer(
    loop: asyncio.AbstractEventLoop, ctl: socket.socket, abandoned: list[bool]
) -> Watched | None:
    """The watchdog's pid and, once it is watched, its word to run (``G``, unless the caller
    has ``abandoned`` the call); raises the ``OSError`` of a command that cannot start and
    ``_Refused`` when ``clone`` failed."""
    with ctl:
        try:
            async with asyncio.timeout(REPLY_SECONDS):
                reply = await loop.sock_recv(ctl, 64)
        except (TimeoutError, OSError):
            reply = b""
        if not reply:  # the zygote died (or stalled) before it cloned: nothing runs
            return None
        kind, rest = reply[:1], reply[1:]
        if kind == b"F":
            raise _Refused(int(rest))
        if kind == b"E":
            pid, code = (int(word) for word in rest.split())
            ctl.close()
            await Watched(pid, loop).wait()  # it ends at once
            raise OSError(code, os.strerror(code))
        watched = Watched(int(rest), loop)
        if abandoned:
            return None  # no G: it ends without running the command, and is reaped
        with contextlib.suppress(OSError):  # it died meanwhile: it ran nothing
            ctl.send(b"G")
        return watched
