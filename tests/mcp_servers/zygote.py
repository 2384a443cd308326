"""A zygote for the Python fixture servers (tests only): imports the MCP SDK once, then forks a
child per request of ``launch.py``, which runs the requested script as ``python SCRIPT ARGS``
would, on the launcher's stdin, stdout and stderr.

    python zygote.py SOCKET [MODULE...]

Starting a fixture server costs some 1.3 CPU-seconds of SDK imports (pydantic models,
starlette, anyio); a forked child has them already. The zygote listens on the Unix socket
``SOCKET`` before it imports (a launcher that comes early waits in the backlog), imports the
SDK and the ``MODULE``s, stays single-threaded with no event loop (fork-safe), reports each
child's pid and then its end (exit code or signal) to its launcher, kills a child whose
launcher went away (its socket closed: the launcher was killed), and its children die with it
(``PR_SET_PDEATHSIG``). It removes ``SOCKET`` and exits on SIGTERM or when its standard input
closes (the test process that started it is gone).
"""

import contextlib
import ctypes
import importlib
import json
import os
import runpy
import selectors
import signal
import socket
import struct
import sys
import threading
import traceback

from launch import FORWARDED  # beside this script: the signals a launcher passes on

PRELOAD = (
    "mcp.server.mcpserver",
    "mcp.server.mcpserver.prompts.base",
    "mcp.server.stdio",
    "mcp.server.streamable_http",
    "mcp.server.streamable_http_manager",
    "mcp.types",
    "anyio._backends._asyncio",
    "uvicorn",
    "uvicorn.config",
    "uvicorn.server",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.lifespan.on",
    "uvicorn.loops.asyncio",
    "starlette.applications",
    "starlette.routing",
    "starlette.requests",
    "starlette.responses",
    "mcp.server.auth.middleware.auth_context",
    "mcp.server.auth.provider",
    "mcp.server.auth.settings",
    "mcp.shared.auth",
    "jwt",
)
"""What the fixture servers import (a module missing from this SDK version is skipped)."""
PR_SET_PDEATHSIG = 1
LAUNCHER_PID = "FIXTURE_LAUNCHER_PID"
"""The launcher's pid, in a child's environment: the process that stands for it (what the
fixture server's ``pid`` tool answers, so a test compares it with the processes it sees)."""


def preload(extra: list[str]) -> None:
    for name in (*PRELOAD, *extra):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def receive(conn: socket.socket) -> tuple[dict[str, object], list[int]]:
    """A launcher's request and its three fds."""
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < 4 or len(data) < 4 + struct.unpack("!I", data[:4])[0]:
        more = conn.recv(1 << 16)
        if not more:
            raise OSError("the launcher left mid-request")
        data += more
    size = struct.unpack("!I", data[:4])[0]
    return json.loads(data[4 : 4 + size]), list(fds)


def run_child(request: dict[str, object], fds: list[int], keep_out: list[int]) -> None:
    """In the forked child: become ``python SCRIPT ARGS`` on the launcher's fds; never
    returns."""
    code = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        dispose(request.get("ignored", []))  # type: ignore[arg-type]
        for fd in keep_out:
            with contextlib.suppress(OSError):
                os.close(fd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        argv = [str(a) for a in request["argv"]]  # type: ignore[attr-defined]
        os.chdir(str(request["cwd"]))
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in request["env"].items()})  # type: ignore[attr-defined]
        os.environ[LAUNCHER_PID] = str(request["launcher"])
        try:
            if argv[0] == "-m":  # python -m MODULE ARGS: sys.path[0] is the working directory
                sys.argv = argv[1:]
                sys.path[0] = os.getcwd()
                runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            else:
                script = os.path.abspath(argv[0])
                sys.argv = argv
                sys.path[0] = os.path.dirname(script)
                runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as done:
            if done.code is None:
                code = 0
            elif isinstance(done.code, int):
                code = done.code
            else:
                print(done.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            finish()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        except BaseException:
            traceback.print_exc()
            code = 1
        finish()
    finally:
        os._exit(code)


def dispose(ignored: list[int]) -> None:
    """The launcher's signal dispositions, as ``python SCRIPT`` spawned by its parent would have
    them, not the zygote's (which inherited its own from the test run, e.g. SIGHUP ignored under
    ``nohup``): a signal the launcher ignored is ignored, the rest take their default action,
    SIGINT as Python sets it up (``KeyboardInterrupt``) unless ignored."""
    for signum in FORWARDED:
        if int(signum) in ignored:
            signal.signal(signum, signal.SIG_IGN)
        elif signum == signal.SIGINT:
            signal.signal(signum, signal.default_int_handler)
        else:
            signal.signal(signum, signal.SIG_DFL)


def finish() -> None:
    """What the interpreter does at its end: wait for threads, run atexit, flush."""
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]
    with contextlib.suppress(BaseException):
        import atexit

        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()


def main() -> None:
    path, extra = sys.argv[1], sys.argv[2:]
    # absolute, so a child that moves to its launcher's working directory imports from the same
    # places (``PYTHONPATH=src:.`` of a test run)
    sys.path[1:] = [os.path.abspath(entry) if entry else entry for entry in sys.path[1:]]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    preload(extra)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    stopping: list[bool] = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_r, selectors.EVENT_READ, "wake")
    selector.register(0, selectors.EVENT_READ, "parent")
    children: dict[int, socket.socket] = {}
    try:
        while not stopping:
            for key, _ in selector.select():
                if key.data == "accept":
                    accept(listener, selector, children, [listener.fileno(), wake_r, wake_w])
                elif key.data == "wake":
                    os.read(wake_r, 512)
                    reap(selector, children)
                elif key.data == "parent":
                    if not os.read(0, 512):
                        stopping.append(True)
                else:  # a launcher's socket: readable means it closed (it was killed)
                    pid, conn = key.data
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                    selector.unregister(conn)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def accept(
    listener: socket.socket,
    selector: selectors.BaseSelector,
    children: dict[int, socket.socket],
    keep_out: list[int],
) -> None:
    conn, _ = listener.accept()
    try:
        request, fds = receive(conn)
    except (OSError, ValueError):
        conn.close()
        return
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    assert threading.active_count() == 1, "the zygote must fork single-threaded"
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    held = [key.fd for key in selector.get_map().values()]
    pid = os.fork()
    if pid == 0:
        shut = [*keep_out, conn.fileno(), *held]
        run_child(request, fds, [fd for fd in shut if fd > 2])
    for fd in fds:
        os.close(fd)
    children[pid] = conn
    try:
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except OSError:
        os.kill(pid, signal.SIGKILL)
        return
    selector.register(conn, selectors.EVENT_READ, (pid, conn))


def reap(selector: selectors.BaseSelector, children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is None:
            continue
        if os.WIFSIGNALED(status):
            end = {"signal": os.WTERMSIG(status)}
        else:
            end = {"exit": os.waitstatus_to_exitcode(status)}
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(end).encode() + b"\n")
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(conn)
        conn.close()


if __name__ == "__main__":
    main()
