"""Python fixture servers started from a zygote that has imported the MCP SDK once
(``tests/mcp_servers/zygote.py`` and ``launch.py``): ``preforked(script, *args)`` is the
command line that runs ``python SCRIPT ARGS`` through the thin launcher, which the client
spawns, pipes and kills as it would the server itself (the launcher passes on signals and ends
as its child does; the child dies with the launcher).

One zygote per test process, started on first use and stopped when the process ends (its
stdin closes). Without it (``AGENT_TUI_TEST_PREFORK=0``) the command is the plain
``python SCRIPT ARGS``. Tests about the server's own process (its pid, its process group, a
kill of the process the client spawned in a way the launcher cannot pass on) start it
directly.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

SERVERS = Path(__file__).resolve().parents[2] / "mcp_servers"
LAUNCH = SERVERS / "launch.py"
ZYGOTE = SERVERS / "zygote.py"

_lock = threading.Lock()
_sockets: dict[tuple[str, ...], str] = {}


def enabled() -> bool:
    return os.environ.get("AGENT_TUI_TEST_PREFORK", "1") != "0"


def zygote_socket(preload: tuple[str, ...] = ()) -> str:
    """The socket of this process's zygote that has also imported the modules ``preload``,
    started on first call."""
    with _lock:
        if preload in _sockets:
            return _sockets[preload]
        path = os.path.join(tempfile.mkdtemp(prefix="mcpz-"), "zygote.sock")
        zygote = subprocess.Popen(
            [sys.executable, str(ZYGOTE), path, *preload],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        # it listens at once: wait for the socket, so no launcher finds it missing and runs
        # its script without the zygote
        while not os.path.exists(path) and zygote.poll() is None:
            threading.Event().wait(0.01)
        atexit.register(_stop, zygote, path)
        _sockets[preload] = path
        return path


def _stop(zygote: subprocess.Popen[bytes], path: str) -> None:
    if zygote.stdin is not None:
        zygote.stdin.close()
    try:
        zygote.wait(timeout=10)
    except subprocess.TimeoutExpired:
        zygote.kill()
        zygote.wait()
    for leftover in (path, os.path.dirname(path)):
        try:
            os.remove(leftover) if leftover == path else os.rmdir(leftover)
        except OSError:
            pass


def preforked(script: str | Path, *args: str, preload: tuple[str, ...] = ()) -> list[str]:
    """The argv that runs ``python SCRIPT ARGS`` (``script`` ``-m``: ``python -m MODULE``,
    the module the first of ``args``) through a zygote that has imported the SDK and the
    modules ``preload`` (or directly when disabled)."""
    if not enabled():
        return [sys.executable, str(script), *args]
    return [sys.executable, "-S", str(LAUNCH), zygote_socket(preload), str(script), *args]
