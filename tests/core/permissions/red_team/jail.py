"""One bubblewrap jail per differential lab, which runs each program of the lab inside it.

The sed and awk differential tests run thousands of real programs, each confined to its lab
(a generated ``w /x`` or ``print > "/x"`` may name any path): the whole filesystem read-only
but the lab directory, nothing else shared (``--unshare-all``), gone with the test process
(``--die-with-parent``). A bwrap started per run cost ~15 ms of namespace set-up and tear-down
apiece, and sed runs four per script. A ``Jail`` starts one bwrap per lab with the same
confinement, holding a small runner that starts each program as bwrap did: its own argv,
directory, environment, input and timeout, in a session of its own that is killed when the
program is done, so nothing it left running outlives its run. The program and what it
prints are the same; only the bwrap process around it is shared.
"""

from __future__ import annotations

import base64
import json
import locale
import select
import subprocess
import sys
from pathlib import Path

RUNNER = r"""
import base64, json, os, signal, subprocess, sys
for line in sys.stdin:
    job = json.loads(line)
    text = job["stdin"]
    proc = subprocess.Popen(
        job["argv"], cwd=job["cwd"], env=job["env"], start_new_session=True,
        stdin=subprocess.DEVNULL if text is None else subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        data = None if text is None else text.encode(job["encoding"])
        out, err = proc.communicate(data, timeout=job["timeout"])
        reply = {"rc": proc.returncode, "out": base64.b64encode(out).decode(),
                 "err": base64.b64encode(err).decode()}
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        reply = {"timeout": True}
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""


def _text(data: bytes, encoding: str, errors: str) -> str:
    """Bytes as ``subprocess.run(..., text=True)`` gives them (universal newlines)."""
    return data.decode(encoding, errors).replace("\r\n", "\n").replace("\r", "\n")


class Jail:
    """A bwrap jail in which only ``base`` is writable, running programs one at a time."""

    def __init__(self, bwrap: str, base: Path) -> None:
        where = str(base)
        argv = [bwrap, "--ro-bind", "/", "/", "--bind", where, where, "--dev", "/dev"]
        argv += ["--unshare-all", "--die-with-parent", "--chdir", where, "--"]
        argv += [sys.executable, "-I", "-S", "-c", RUNNER]
        self._proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._encoding = locale.getpreferredencoding(False)

    def run(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        stdin: str | None,
        timeout: float,
        errors: str = "strict",
    ) -> subprocess.CompletedProcess[str]:
        """``argv`` in ``cwd`` with exactly ``env``, ``stdin`` as its input (None: /dev/null),
        as ``subprocess.run(..., capture_output=True, text=True)`` does it;
        ``subprocess.TimeoutExpired`` when it ran past ``timeout`` (and was killed)."""
        proc = self._proc
        assert proc.stdin is not None
        assert proc.stdout is not None
        job = {
            "argv": argv,
            "cwd": str(cwd),
            "env": env,
            "stdin": stdin,
            "timeout": timeout,
            "encoding": self._encoding,
        }
        proc.stdin.write((json.dumps(job) + "\n").encode())
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], timeout + 30)
        line = proc.stdout.readline() if ready else b""
        if not line:
            proc.kill()
            _, err = proc.communicate()
            raise RuntimeError(f"the jail's runner stopped answering: {err.decode()!r}")
        reply = json.loads(line)
        if reply.get("timeout"):
            raise subprocess.TimeoutExpired(argv, timeout)
        out = _text(base64.b64decode(reply["out"]), self._encoding, errors)
        err = _text(base64.b64decode(reply["err"]), self._encoding, errors)
        rc = reply["rc"]  # killed by a signal: 128 + its number, as bwrap says it
        return subprocess.CompletedProcess(argv, 128 - rc if rc < 0 else rc, out, err)

    def close(self) -> None:
        proc = self._proc
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
