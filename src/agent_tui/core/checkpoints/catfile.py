"""One long-lived ``git cat-file --batch`` per workspace's shadow: the pre-images of the files
git held, fetched at capture without starting git for each command (``gitbase.fetch`` did:
about 15 ms a command, more on a loaded machine).

The process is started lazily, the first time a command changes a file git held, through
``sandbox.safe_git.spawn`` (the same argv, environment, ``-c`` overrides and ownership checks as
every other git call of the agent's; ``cat-file`` without ``--filters``/``--textconv`` runs
nothing the repository names). Before each fetch the git directory is checked again (still
the one the process was started for, still the user's): otherwise the process is closed and
started anew, or not at all (``Refused``). Each object is hashed here and must be the id asked
for, a blob, of the size the file had; anything else — a missing object, another size, a
reply not for the id asked, a process that died or hung — leaves the file out (its change is
then listed as not restorable, ``why="gitobject"``), never a wrong byte kept. Every read has a
deadline (20 s plus 20 MB/s of the bytes asked for): a hung git is killed and the fetch returns
what it has. A dead process is started again at the next fetch. ``close`` kills it (the
session's end; git also exits by itself when the agent dies: its stdin closes). Blocking;
thread-safe (one fetch at a time).
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
from pathlib import Path

from agent_tui.core.checkpoints.gitbase import git_oid
from agent_tui.core.sandbox import safe_git

CHUNK = 256
"""Ids written before their replies are read: 256 lines of at most 65 bytes stay within a pipe's
buffer, so neither side blocks the other."""

SLACK = 1 << 20
"""An object of another size than asked for is read and dropped up to this size (or the biggest
asked for); a bigger one ends the process rather than be read."""


class _Broken(Exception):
    """The process died, hung, or replied out of step: it is killed."""


class CatFile:
    """A ``git cat-file --batch`` kept running for the checkout at ``root`` (see the module)."""

    def __init__(self, root: str, *, timeout: float = 20.0) -> None:
        self.root = Path(root)
        self.timeout = timeout
        """The seconds a fetch waits for git, plus 20 MB/s of the bytes asked for."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._git_dir: str | None = None
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._closed = False
        self._asked = ""
        """The id whose reply is being read."""
        self.started = 0
        """Processes started so far (for tests and benchmarks)."""

    def fetch(self, algo: str, wanted: dict[str, int]) -> dict[str, bytes]:
        """The blobs ``wanted`` (id: the size the file had) that git holds, each verified;
        those missing, damaged or of another size are left out, and all of them when git
        cannot or must not run."""
        if not wanted:
            return {}
        deadline = time.monotonic() + self.timeout + sum(wanted.values()) / 20e6
        got: dict[str, bytes] = {}
        with self._lock:
            if self._closed:
                return got
            ids = list(wanted)
            failed: set[str] = set()
            for _attempt in range(2):  # once more with a new process if this one broke
                rest = [oid for oid in ids if oid not in got and oid not in failed]
                if not rest or time.monotonic() >= deadline:
                    break
                try:
                    self._ensure()
                    for at in range(0, len(rest), CHUNK):
                        self._batch(algo, rest[at : at + CHUNK], wanted, got, deadline)
                    break
                except _Broken:
                    self._kill()
                    failed.add(self._asked)  # not asked again
                except (safe_git.Refused, OSError, ValueError):
                    self._kill()
                    break
            if self._closed:  # closed during the fetch
                self._kill()
        return got

    def close(self) -> None:
        """Kill the process; no fetch starts it again. Does not wait for a fetch in
        progress (the kill ends it; it reaps the process)."""
        self._closed = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        if self._lock.acquire(blocking=False):
            try:
                self._kill()
            finally:
                self._lock.release()

    @property
    def running(self) -> bool:
        """Whether a process is up (for tests)."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _ensure(self) -> None:
        git_dir = safe_git.git_dir_of(self.root)  # Refused: not the user's (any more)
        if self._proc is not None and (self._proc.poll() is not None or git_dir != self._git_dir):
            self._kill()
        if self._proc is None:
            self._proc = safe_git.spawn(self.root, "cat-file", "--batch")
            self._git_dir = git_dir
            self._buf.clear()
            self.started += 1
            assert self._proc.stdout is not None
            os.set_blocking(self._proc.stdout.fileno(), False)

    def _batch(
        self,
        algo: str,
        ids: list[str],
        wanted: dict[str, int],
        got: dict[str, bytes],
        deadline: float,
    ) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise _Broken("no process")
        try:
            proc.stdin.write("".join(f"{oid}\n" for oid in ids).encode())
            proc.stdin.flush()
        except OSError as exc:  # BrokenPipeError: it died
            raise _Broken(str(exc)) from None
        most = max(SLACK, *(wanted[oid] for oid in ids))
        for oid in ids:
            self._asked = oid
            header = self._line(deadline).decode(errors="replace").split(" ")
            if header[0] != oid:
                raise _Broken("a reply for another object")
            if len(header) != 3:  # "<id> missing"
                continue
            if not header[2].isdigit() or int(header[2]) > most:
                raise _Broken("an object bigger than any asked for")
            data = self._exact(int(header[2]) + 1, deadline)
            if data[-1:] != b"\n":
                raise _Broken("no newline after an object")
            data = data[:-1]
            if header[1] == "blob" and len(data) == wanted[oid] and git_oid(data, algo) == oid:
                got[oid] = data

    def _fill(self, deadline: float) -> None:
        proc = self._proc
        if proc is None or proc.stdout is None:
            raise _Broken("no process")
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Broken("git did not answer in time")
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if not ready:
            raise _Broken("git did not answer in time")
        try:
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            raise _Broken("git exited")
        self._buf += chunk

    def _line(self, deadline: float) -> bytes:
        while (end := self._buf.find(b"\n")) < 0:
            if len(self._buf) > 4096:
                raise _Broken("a header line too long")
            self._fill(deadline)
        line = bytes(self._buf[:end])
        del self._buf[: end + 1]
        return line

    def _exact(self, size: int, deadline: float) -> bytes:
        while len(self._buf) < size:
            self._fill(deadline)
        data = bytes(self._buf[:size])
        del self._buf[:size]
        return data

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        self._buf.clear()
        if proc is None:
            return
        for pipe in (proc.stdin, proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:  # unkillable (D state): the kernel reaps it later
            pass
