"""This process's reference record in one spill directory (``refs``): kept up to date as the
session references spills, so no cleanup anywhere deletes what the session points to.

A store has one ``SpillRefs``; the agent ``attach``-es it to its session (at start, and on
``/new``, ``--resume``, a fork) and hooks the session's writes (``saw``: every line the
session file is given, scanned for spill names before it is written). The store calls ``add``
when it reserves a spill's name, before the data is written: from then on a record names it.
A store no session was attached to (a tool run outside a session) records under a key of its
own process, alive as long as the process.

Records are written only where the spill directory already is (``open_existing``): a session
start in a workspace without spills makes nothing; the record follows with the first spill.
While a session is attached its ``.live`` file is locked, so cleanups know its process runs
(even before its session file is saved, or after it was deleted). ``detach`` (the session
ends, or another is attached) writes the record as the session file holds it — the spills it
wrote but never mentioned are dropped, they were of no saved message — and unlocks.

A record that cannot be written (a read-only workspace, a full disk) is logged and costs
nothing else: the spill is then known to no record and kept as an unclaimed one (``cleanup``).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import secrets
import threading
from collections.abc import Iterable
from pathlib import Path

from agent_tui.core.budget.refs import (
    LIVE_SUFFIX,
    REFS_DIR,
    encode,
    lock_shared,
    names_in,
    process_key,
    session_key,
)
from agent_tui.core.budget.spill_dir import SpillDir
from agent_tui.core.state.nofollow import enter, open_at, replace_at

log = logging.getLogger(__name__)
SCAN_CHUNK = 1 << 20


class SpillRefs:
    """The record of the session this process runs, in the spill directory ``spill_dir``."""

    def __init__(self, spill_dir: SpillDir, *, durable: bool = True) -> None:
        self._dir = spill_dir
        self._durable = durable
        """``fsync`` a record before renaming it in (as its store does its spills)."""
        self._lock = threading.RLock()
        self._key: str | None = None
        self._session: Path | None = None
        """The session file (None: the session is not saved, or there is none)."""
        self._mentioned: set[str] = set()
        """Names the session file holds (or was given to write)."""
        self._written: set[str] = set()
        """Names of spills written while attached."""
        self._recorded: frozenset[str] | None = None
        """What the record on disk names (None: not written yet)."""
        self._scan: Path | None = None
        """A session file still to read for names (resumed before the spill dir existed)."""
        self._live: tuple[Path, int] | None = None
        """(the spill directory, the descriptor of the locked ``.live`` file in it)."""
        self.problem: str | None = None
        """Why the last record could not be written (logged once)."""

    @property
    def key(self) -> str | None:
        return self._key

    def held_keys(self) -> frozenset[str]:
        """The key whose ``.live`` lock this process holds now: its own view (live messages,
        own session files) covers what that record names."""
        with self._lock:
            return frozenset([self._key]) if self._key and self._live is not None else frozenset()

    def attach(self, session_id: str, path: Path | None, *, scan: bool) -> None:
        """Record for the session ``session_id`` saved in ``path`` (None: not saved) from now
        on; ``scan``: its file already holds lines (a resumed or forked session), read for the
        names it mentions. The previous session's record is finished (``detach``). Blocking."""
        with self._lock:
            self.detach()
            if path is None:
                self._key = f"unsaved-{session_id}-{secrets.token_hex(4)}"
            else:
                self._key = session_key(path)
            self._session = path
            self._scan = path if scan and path is not None else None
            self._flush()

    def add(self, names: Iterable[str]) -> None:
        """Spills this process is writing (their names reserved in the spill directory)."""
        with self._lock:
            if self._key is None:  # no session: the process's own record
                self._key = process_key()
            fresh = set(names) - self._written
            if fresh or self._live is None:
                self._written |= fresh
                self._flush()

    def saw(self, data: bytes) -> None:
        """The session is writing ``data`` to its file: record the spill names in it."""
        found = names_in(data)
        if not found:
            return
        with self._lock:
            fresh = found - self._mentioned
            if fresh and self._key is not None:
                self._mentioned |= fresh
                self._flush()

    def detach(self) -> None:
        """The session ends (or another takes its place): its record keeps what its file names;
        the spills it wrote but never mentioned (a subagent's, say: of no saved message) go to
        a record of no session, dead at once, so cleanups treat them as any spill nothing
        points to. The ``.live`` lock is let go. Idempotent; blocking."""
        with self._lock:
            if self._key is None:
                return
            if self._recorded is not None:
                unsaid = self._written - self._mentioned
                if self._session is not None and unsaid:
                    self._written -= unsaid
                    self._write_apart(unsaid)
                self._flush(final=True)
            self._release()
            self._key, self._session, self._scan = None, None, None
            self._mentioned, self._written, self._recorded = set(), set(), None

    # -- writing ----------------------------------------------------------------------------

    def _flush(self, *, final: bool = False) -> None:
        """Write the record when what it names changed (and the spill directory exists)."""
        try:
            spill_fd = self._dir.open_existing()
        except OSError:
            return  # no spill directory (yet): nothing to protect there
        root = self._dir.path
        try:
            fd = enter(spill_fd, REFS_DIR, root / REFS_DIR, create=True)
        except OSError as exc:
            self._failed(exc)
            return
        finally:
            os.close(spill_fd)
        try:
            self._read_session()
            names = frozenset(self._mentioned | self._written)
            if not names and self._recorded is None:
                return  # nothing to keep: no record (a session start leaves no trace)
            if not final:
                self._hold_live(fd, root)
            if names == self._recorded and (names or not final):
                return
            lock = lock_shared(fd, root)
            try:
                key = f"{self._key}.json"
                if final and not names:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(key, dir_fd=fd)
                else:
                    replace_at(
                        fd, key, encode(self._session, names), mode=0o644, durable=self._durable
                    )
            finally:
                if lock is not None:
                    os.close(lock)
            self._recorded = names
            self.problem = None
        except OSError as exc:
            self._failed(exc)
        finally:
            os.close(fd)

    def _write_apart(self, names: set[str]) -> None:
        """A record of ``names`` under a key of no session and no process (dead at once)."""
        try:
            fd = self._dir.open_existing(REFS_DIR)
        except OSError as exc:
            self._failed(exc)
            return
        try:
            lock = lock_shared(fd, self._dir.path)
            try:
                key = f"released-{secrets.token_hex(6)}.json"
                replace_at(fd, key, encode(None, names), mode=0o644, durable=self._durable)
            finally:
                if lock is not None:
                    os.close(lock)
        except OSError as exc:
            self._failed(exc)
        finally:
            os.close(fd)

    def _read_session(self) -> None:
        """The names a resumed session's file mentions (once, streamed)."""
        path, self._scan = self._scan, None
        if path is None:
            return
        tail = b""
        try:
            with open(path, "rb") as fh:
                while chunk := fh.read(SCAN_CHUNK):
                    data = tail + chunk
                    self._mentioned |= names_in(data)
                    tail = data[-64:]  # a name cut by the chunk's end
        except OSError as exc:
            log.info("reading %s for its spill names failed: %s", path, exc)

    def _hold_live(self, fd: int, root: Path) -> None:
        """Lock this session's ``.live`` file in the ``.refs`` directory ``fd`` (once)."""
        if self._live is not None and self._live[0] == root:
            return
        self._release()
        name = f"{self._key}{LIVE_SUFFIX}"
        live = open_at(fd, name, os.O_RDONLY | os.O_CREAT, root / REFS_DIR / name, 0o644)
        try:
            fcntl.flock(live, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(live)  # held by another process on the same session: its lock says it
            return
        self._live = (root, live)

    def _release(self) -> None:
        live, self._live = self._live, None
        if live is None:
            return
        root, fd = live
        with contextlib.suppress(OSError):  # removed while still held: nobody sees it free
            refs = self._dir.open_existing(REFS_DIR) if root == self._dir.path else None
            if refs is not None:
                try:
                    name = f"{self._key}{LIVE_SUFFIX}"
                    if (
                        os.stat(name, dir_fd=refs, follow_symlinks=False).st_ino
                        == os.fstat(fd).st_ino
                    ):
                        os.unlink(name, dir_fd=refs)
                finally:
                    os.close(refs)
        os.close(fd)

    def _failed(self, exc: OSError) -> None:
        if self.problem is None:
            log.warning("the spill reference record could not be written: %s", exc)
        self.problem = str(exc)
