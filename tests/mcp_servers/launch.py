"""The thin launcher of a preforked fixture server (tests only; stdlib only, no SDK import).

    python launch.py SOCKET SCRIPT [ARGS...]
    python launch.py SOCKET -m MODULE [ARGS...]

What a test's MCP client spawns instead of ``python SCRIPT ARGS``: it hands its stdin, stdout
and stderr (SCM_RIGHTS), ``SCRIPT ARGS``, its working directory and environment to the zygote
listening on the Unix socket ``SOCKET`` (``zygote.py``, which has imported the MCP SDK once),
which forks a child that runs ``SCRIPT`` on those very pipes. The launcher then stands for the
child: a SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 or SIGUSR2 it gets is passed on to the child,
which ignores the signals the launcher ignored and takes the default action of the others (as a
child the launcher's parent spawned would); when the child ends the launcher ends the same way
(its exit code, or killed by its signal); when the launcher is killed (SIGKILL too) the zygote
sees the socket close and kills the child. It closes its own copies of the three fds, so
end-of-file on the pipes is the child's alone. Without a zygote (no socket, or it refuses) it runs
``SCRIPT`` itself (``exec``): slower, the same behaviour.
"""

import json
import os
import signal
import socket
import struct
import sys

FORWARDED = (
    signal.SIGTERM,
    signal.SIGINT,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
)


def direct(argv: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, *argv])


def main() -> None:
    path, argv = sys.argv[1], sys.argv[2:]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        direct(argv)
        return
    # what a ``python SCRIPT`` started here would inherit: a signal this process ignores (under
    # ``nohup``, SIGHUP) is ignored by the child too, the others take their default action
    ignored = [int(s) for s in FORWARDED if signal.getsignal(s) == signal.SIG_IGN]
    fields = {
        "argv": argv,
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "launcher": os.getpid(),
        "ignored": ignored,
    }
    request = json.dumps(fields).encode()
    try:
        socket.send_fds(sock, [struct.pack("!I", len(request)) + request], [0, 1, 2])
        reply = sock.makefile("rb")
        line = reply.readline()
    except OSError:
        line = b""
    if not line:  # the zygote is going away: nothing was forked for us
        sock.close()
        direct(argv)
        return
    child = int(json.loads(line)["pid"])
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(child, signum)
        except ProcessLookupError:
            pass

    for signum in FORWARDED:
        signal.signal(signum, forward)
    line = reply.readline()  # the child's end (PEP 475: signals do not break the wait)
    end = json.loads(line) if line else {"signal": int(signal.SIGKILL)}
    if "signal" in end:
        signum = int(end["signal"])
        if signum != signal.SIGKILL:  # its action cannot be set, nor need be
            signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(int(end.get("exit", 1)))


if __name__ == "__main__":
    main()
