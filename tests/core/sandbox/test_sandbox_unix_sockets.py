"""The network-off sandbox exposes no Unix socket outside the workspace.

A daemon's socket outside ``/run`` (``/var/lib/foo/x.sock``, Docker Desktop's
``~/.docker/run/docker.sock``, a socket bind-mounted into a container) was reachable: connecting
to a Unix socket is not a write, and the network namespace does not cover a socket with a path.
Here a real server listens on a socket in ``/var/tmp`` (a real disk the sandbox shows
read-only); each client reaches it bare (the attack is real) and not from the sandbox. Sockets
inside the workspace keep working.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox, sockets
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell

PROBLEM = Bubblewrap().problem()
needs_bwrap = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
HELLO = b"daemon-canary-reached"
CONNECT = (
    f"{sys.executable} -c 'import socket, sys; c = socket.socket(socket.AF_UNIX); "
    'c.connect(sys.argv[1]); print(c.makefile("rb").read().decode())\''
)


class Daemon:
    """A server on a Unix socket that greets every client with ``HELLO`` (as an HTTP
    response, for curl) and hangs up."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"HTTP/1.0 200 OK\r\n\r\n" + HELLO + b"\n")  # curl wants HTTP
                conn.shutdown(socket.SHUT_WR)
                conn.settimeout(2)
                with contextlib.suppress(OSError):  # read what the client sent: closing
                    while conn.recv(4096):  # with it unread would reset the connection
                        pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def var_tmp() -> Iterator[Path]:
    base = Path("/var/tmp") / f"agent-tui-sock-{os.getpid()}-{time.monotonic_ns()}"
    base.mkdir()
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def daemon(var_tmp: Path) -> Iterator[Daemon]:
    (var_tmp / "lib" / "foo").mkdir(parents=True)
    server = Daemon(var_tmp / "lib" / "foo" / "x.sock")
    yield server
    server.close()


def _bare(work: Path, command: str) -> str:
    done = subprocess.run(
        ["bash", "-c", command], cwd=work, capture_output=True, timeout=30, check=False
    )
    return (done.stdout + done.stderr).decode("utf-8", "replace")


async def _run(work: Path, command: str, **settings: object) -> ToolOutput:
    sandbox = SessionSandbox(SandboxSettings(**settings), work)  # type: ignore[arg-type]
    assert sandbox.state.shell is not None
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx)


def _work(tmp_path: Path, name: str = "ws") -> Path:
    work = tmp_path / name
    work.mkdir()
    return work


CLIENTS = [
    (CONNECT + " {sock}", ()),
    ("curl -s --max-time 5 --unix-socket {sock} http://x/; echo", ("curl",)),
    ("nc -U -w 2 {sock} </dev/null", ("nc",)),
    ("socat -T2 - UNIX-CONNECT:{sock} </dev/null", ("socat",)),
    # our own variants: through a link made in the workspace, through /proc/self/root, and a
    # connect from a child that changed directory first (relative path)
    ("ln -s {sock} s.sock && " + CONNECT + " s.sock", ()),
    (CONNECT + " /proc/self/root{sock}", ()),
    ("cd {dir} && " + CONNECT + " x.sock", ()),
]


@needs_bwrap
@pytest.mark.parametrize(("client", "needs"), CLIENTS, ids=[c[0][:40] for c in CLIENTS])
async def test_a_daemons_socket_outside_the_workspace_is_unreachable(
    tmp_path: Path, daemon: Daemon, client: str, needs: tuple[str, ...]
) -> None:
    if missing := [n for n in needs if shutil.which(n) is None]:
        pytest.skip(f"not installed: {', '.join(missing)}")
    command = client.format(sock=daemon.path, dir=daemon.path.parent)
    bare = _work(tmp_path, "bare")
    assert HELLO.decode() in _bare(bare, command), "the client does not reach it even bare"
    out = await _run(_work(tmp_path), command)
    assert HELLO.decode() not in out.content
    if out.is_error and "Connection refused" in out.content:
        assert "Unix socket" in out.content  # the card says why


@needs_bwrap
async def test_with_the_network_on_too(tmp_path: Path, daemon: Daemon) -> None:
    out = await _run(_work(tmp_path), f"{CONNECT} {daemon.path}", network="on")
    assert HELLO.decode() not in out.content


@needs_bwrap
async def test_a_socket_in_a_directory_shown_again_is_masked(
    tmp_path: Path, var_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a short home: tmp_path under xdist can push a socket's path past AF_UNIX's 108 bytes
    home = Path(tempfile.mkdtemp(prefix="home-", dir="/tmp"))
    (home / ".local" / "lib").mkdir(parents=True)  # kept from the hidden home, read-only
    monkeypatch.setenv("HOME", str(home))
    kept = Daemon(home / ".local" / "lib" / "agent.sock")
    shown = var_tmp / "shown"
    shown.mkdir()
    allowed = Daemon(shown / "db.sock")  # in an allow_read directory
    try:
        command = f"{CONNECT} {kept.path}; {CONNECT} {allowed.path}"
        assert _bare(_work(tmp_path, "bare"), command).count(HELLO.decode()) == 2
        out = await _run(_work(tmp_path), command, allow_read=[str(shown)])
        assert HELLO.decode() not in out.content
    finally:
        kept.close()
        allowed.close()
        shutil.rmtree(home, ignore_errors=True)


@needs_bwrap
@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm here")
async def test_sockets_in_the_places_the_sandbox_replaces_stay_unreachable(
    tmp_path: Path,
) -> None:
    """/dev/shm (a new /dev) and /tmp (a private tmpfs): not masked one by one, and not
    reachable either."""
    shm = Path("/dev/shm")
    servers = [
        Daemon(shm / f"agent-tui-{os.getpid()}.sock"),
        Daemon(tmp_path / "outside.sock"),  # tmp_path is below /tmp
    ]
    try:
        command = "; ".join(f"{CONNECT} {s.path}" for s in servers)
        assert _bare(_work(tmp_path, "bare"), command).count(HELLO.decode()) == 2
        out = await _run(_work(tmp_path), command)
        assert HELLO.decode() not in out.content
    finally:
        for server in servers:
            server.close()
            server.path.unlink(missing_ok=True)


@needs_bwrap
async def test_sockets_inside_the_workspace_still_work(tmp_path: Path) -> None:
    work = _work(tmp_path)
    inside = Daemon(work / "app.sock")  # e.g. a dev server the user started in the project
    try:
        out = await _run(work, f"{CONNECT} app.sock")
        assert HELLO.decode() in out.content
    finally:
        inside.close()
    # and a command's own server and client (a test suite's) work in the workspace and /tmp
    script = (
        "import socket, os, threading\n"
        "for path in ('own.sock', '/tmp/own.sock'):\n"
        "    s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen()\n"
        "    t = threading.Thread(target=lambda: s.accept()[0].sendall(b'own-ok'))\n"
        "    t.start()\n"
        "    c = socket.socket(socket.AF_UNIX); c.connect(path); print(c.recv(10).decode())\n"
        "    t.join(); os.unlink(path)\n"
    )
    (work / "own.py").write_text(script)
    out = await _run(work, f"{sys.executable} own.py")
    assert out.content.count("own-ok") == 2, out.content


# -- finding them ----------------------------------------------------------------------------


def test_listing_reads_net_unix_and_mount_points(tmp_path: Path) -> None:
    net = tmp_path / "unix"
    net.write_text(
        "Num       RefCount Protocol Flags    Type St Inode Path\n"
        "0000: 00000002 00000000 00010000 0001 01 49185 /var/lib/foo/x.sock\n"
        "0000: 00000003 00000000 00000000 0001 03  1366\n"
        "0000: 00000002 00000000 00010000 0001 01 49186 @abstract\n"
        "0000: 00000002 00000000 00010000 0001 01 49187 /srv/with space.sock\n"
        "0000: 00000002 00000000 00010000 0001 01 49188 relative.sock\n"
    )
    mounts = tmp_path / "mountinfo"
    mounts.write_text(
        "22 1 0:21 / / rw,relatime - overlay overlay rw\n"
        "30 22 0:5 /docker.sock /var/run/docker\\040x.sock rw - tmpfs tmpfs rw\n"
    )
    listed = list(sockets.listed_paths(str(net), str(mounts)))
    assert listed == [
        "/var/lib/foo/x.sock",
        "/srv/with space.sock",
        "/",
        "/var/run/docker x.sock",
    ]


def test_only_sockets_outside_the_workspace_and_the_emptied_places(
    tmp_path: Path, var_tmp: Path
) -> None:
    work = var_tmp / "ws"
    work.mkdir()
    plain = var_tmp / "plain-file"
    plain.write_text("")
    servers = [Daemon(var_tmp / "out.sock"), Daemon(work / "in.sock")]
    try:
        found = sockets.reachable(
            work,
            (),
            tmp_path,
            [str(var_tmp / "out.sock"), str(work / "in.sock"), str(plain), "/nonexistent.sock"],
        )
        assert found == (var_tmp / "out.sock",)
        hidden_home = sockets.reachable(work, (), var_tmp, [str(var_tmp / "out.sock")])
        assert hidden_home == ()  # under the hidden home: the tmpfs hides it already
    finally:
        for server in servers:
            server.close()


def test_thousands_of_listed_sockets(tmp_path: Path) -> None:
    """A busy desktop lists thousands of sockets: each listed path is looked at once, and
    none that does not exist is reachable. (What it costs is ``bench_sandbox.py``'s to
    measure: a test asserts behaviour, not time.)"""
    net = tmp_path / "unix"
    lines = ["Num       RefCount Protocol Flags    Type St Inode Path"]
    for i in range(3000):
        path = f" /run/user/1000/app{i}.sock" if i % 5 == 0 else ""
        lines.append(f"0000: 00000002 00000000 00010000 0001 01 {i}{path}")
    net.write_text("\n".join(lines) + "\n")
    listed = list(sockets.listed_paths(str(net), "/nonexistent"))
    assert len(listed) == 600
    assert sockets.reachable(tmp_path, (), None, listed) == ()
