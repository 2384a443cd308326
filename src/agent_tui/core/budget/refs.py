"""Which sessions reference which spills, recorded beside the spills, in the workspace.

Sessions are saved in the user's data dir, and which one that is depends on the environment
(``AGENT_TUI_DATA_DIR``, ``XDG_DATA_HOME``, ``HOME``): two runs in one workspace may each see
only their own sessions, and a cleanup that trusted its own view would delete the spills a
session of another data dir still points to. So every session keeps a *reference record* in
the spill directory it uses::

    .agent-spill/.refs/<session id>-<digest of its file's path>.json
        {"version": 1, "session": "/home/u/.local/share/agent-tui/sessions/….jsonl",
         "host": "laptop", "names": ["20260105T142233Z-run_shell-call_2_1-7f3a.txt", …]}
    .agent-spill/.refs/<same key>.live   flock-ed by the process running that session
    .agent-spill/.refs/.lock             held exclusively by a cleanup while it decides and
                                         deletes, shared by a record being written

The names are every spill (or MCP media) file name the session file mentions and every spill
the session wrote (``refs_writer``). A record is judged (``judge``):

- ``live``: its process runs (its ``.live`` lock is held), or its session file exists;
- ``dead``: its session file is gone — the directory that held it is there, without it — or it
  never had one (a session that could not be saved) and its process ended;
- ``doubt``: anything else — the file cannot be checked (no permission; its directory cannot
  be reached now: a disk not mounted, a data dir moved away), or the record was written on
  another machine, whose paths are not this one's, and the file is not visible here.

A record that cannot be read at all (not JSON, a link, a directory, a newer format) may name
any spill: while it is there, nothing in that spill directory is deleted. Records are
written whole: a temporary file made with ``O_EXCL | O_NOFOLLOW`` and renamed over, in the
``.refs`` directory reached without following a link (``spill_dir``), its data ``fsync``-ed
before the rename (a crash never leaves an empty record, which would keep everything).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import socket
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent_tui.core.budget.spill_dir import SpillDir
from agent_tui.core.state.nofollow import enter, open_at, read_at, replace_at

REFS_DIR = ".refs"
LOCK_FILE = ".lock"
LIVE_SUFFIX = ".live"
PROCESS_PREFIX = "process-"
VERSION = 1
MAX_RECORD = 32 << 20
"""A record larger than this is not read (about 700,000 names)."""
RECORD_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}\.json")
NAME = re.compile(rb"\d{8}T\d{6}Z-[A-Za-z0-9_-]+?-[0-9a-f]{4}\.[A-Za-z0-9]{1,8}")
"""A spill's or an MCP media file's name (``store.SPILL_NAME``, ``cleanup.MEDIA_NAME``)."""
_STAMP = 15
"""Characters of a name before its ``Z-``."""

State = Literal["live", "dead", "doubt"]
RUNNING = "an agent-tui process is running that session now"


def names_in(data: bytes) -> set[str]:
    """The spill and media file names written in ``data`` (a session file's lines)."""
    found: set[str] = set()
    at = data.find(b"Z-")
    while at != -1:
        if at >= _STAMP:
            match = NAME.match(data, at - _STAMP)
            if match is not None:
                found.add(match.group().decode("ascii"))
        at = data.find(b"Z-", at + 2)
    return found


def session_key(path: Path) -> str:
    """The record key of the session file ``path``: its id and a digest of where it is (two
    data dirs may hold copies of one session, each resumable: each has its own record)."""
    session_id = re.sub(r"[^A-Za-z0-9_]", "_", path.stem.rsplit("-", 1)[-1])[:40] or "session"
    digest = hashlib.sha1(
        os.path.abspath(path).encode("utf-8", "surrogateescape"), usedforsecurity=False
    )
    return f"{session_id}-{digest.hexdigest()[:10]}"


def process_key() -> str:
    """The record key of a store used outside a session, in this process."""
    return f"{PROCESS_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"


def this_host() -> str:
    return socket.gethostname()


def encode(session: Path | None, names: Iterable[str]) -> bytes:
    """A record's content."""
    body = {
        "version": VERSION,
        "session": os.path.abspath(session) if session is not None else None,
        "host": this_host(),
        "names": sorted(names),
    }
    return (json.dumps(body, indent=0) + "\n").encode("utf-8")


@dataclass(frozen=True)
class Record:
    """One reference record as read: what it keeps and whether its session is alive."""

    key: str
    names: frozenset[str]
    session: str | None
    host: str
    state: State
    why: str
    """Why it is in that state (for the browser's refusal and the report)."""
    running: bool = False
    """Live because a process runs its session now (its ``.live`` lock is held)."""


@dataclass
class Ledger:
    """The records of one spill directory, read under its lock (``open_ledger``)."""

    fd: int
    """The ``.refs`` directory (closed with the ledger)."""
    root: Path
    """The spill directory."""
    unreadable: list[str] = field(default_factory=list)
    """A sentence per record (or lock) that could not be read: nothing may be deleted."""
    _by_key: dict[str, Record] = field(default_factory=dict)
    _by_name: dict[str, list[Record]] = field(default_factory=dict)

    @property
    def records(self) -> list[Record]:
        return list(self._by_key.values())

    @property
    def blocked(self) -> str | None:
        """Why nothing may be deleted here now, or None."""
        return self.unreadable[0] if self.unreadable else None

    def claims(self, name: str, own: frozenset[str] = frozenset()) -> list[Record]:
        """The records naming ``name``, but the calling process's own: those of keys in
        ``own`` (its session's, which its own view covers) and those of its stores used
        outside a session (``process_key``: what it wrote there is its own business, as
        before records existed)."""
        mine = f"{PROCESS_PREFIX}{os.getpid()}-"
        host = this_host()
        return [
            r
            for r in self._by_name.get(name, ())
            if r.key not in own and not (r.key.startswith(mine) and r.host == host)
        ]

    def known(self, name: str) -> bool:
        """Some record (its own included) names it: written since records exist."""
        return name in self._by_name

    def add(self, record: Record) -> None:
        self._drop(record.key)
        self._by_key[record.key] = record
        for name in record.names:
            self._by_name.setdefault(name, []).append(record)

    def _drop(self, key: str) -> None:
        old = self._by_key.pop(key, None)
        if old is None:
            return
        for name in old.names:
            left = [r for r in self._by_name.get(name, ()) if r.key != key]
            if left:
                self._by_name[name] = left
            else:
                self._by_name.pop(name, None)

    def write(self, key: str, session: Path | None, names: Iterable[str]) -> None:
        """Write (replace) record ``key``; the caller holds the lock."""
        replace_at(self.fd, f"{key}.json", encode(session, names), mode=0o644)

    def record(self, key: str) -> Record | None:
        return self._by_key.get(key)

    def sweep_strays(self, own: frozenset[str], before: float) -> None:
        """Remove ``.live`` files whose record is gone and whose process ended, and the
        temporary files of record writes that never finished (older than ``before``)."""
        keys = self._by_key.keys() | own
        try:
            listed = os.listdir(self.fd)
        except OSError:
            return
        for name in listed:
            try:
                if name.endswith(".tmp") and name.startswith("."):
                    st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
                    if st.st_mtime < before:
                        os.unlink(name, dir_fd=self.fd)
                elif name.endswith(LIVE_SUFFIX):
                    key = name.removesuffix(LIVE_SUFFIX)
                    if key not in keys and _running(self.fd, key) is False:
                        os.unlink(name, dir_fd=self.fd)
            except OSError:
                continue

    def forget(self, key: str) -> None:
        """Remove record ``key`` and its ``.live`` file (a dead session's)."""
        for name in (f"{key}.json", f"{key}{LIVE_SUFFIX}"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=self.fd)
        self._drop(key)


@contextlib.contextmanager
def open_ledger(spill_dir: SpillDir, *, exclusive: bool) -> Iterator[Ledger | None]:
    """The records of the spill directory as it is now (``open_existing``: nothing followed,
    no fallback), read under its lock — ``exclusive`` for a cleanup, which keeps it until
    its deletions are done, so no record can be written (no session can start to reference
    a spill) between its decision and its deletions. None when the spill directory does not
    exist (or is a link: nothing there is ours to delete). ``.refs`` is made when missing."""
    try:
        spill_fd = spill_dir.open_existing()
    except OSError:
        yield None
        return
    root = spill_dir.path
    try:
        fd = enter(spill_fd, REFS_DIR, root / REFS_DIR, create=True)
    except FileNotFoundError:
        yield None  # the spill directory went away meanwhile
        return
    except OSError as exc:
        there = _lexists(spill_fd, REFS_DIR)
        if not there:  # it cannot be made: no process could have written a record
            yield None
        else:
            yield Ledger(-1, root, unreadable=[f"{root / REFS_DIR} cannot be read ({_say(exc)})"])
        return
    finally:
        os.close(spill_fd)
    ledger = Ledger(fd, root)
    try:
        lock = _lock(fd, root, exclusive=exclusive)
        if lock is None:
            ledger.unreadable.append(
                f"the lock {root / REFS_DIR / LOCK_FILE} cannot be taken (not a regular file?)"
            )
        try:
            _read_all(ledger)
            yield ledger
        finally:
            if lock is not None:
                os.close(lock)  # the lock goes with it
    finally:
        os.close(fd)


def _lexists(fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def _lock(fd: int, root: Path, *, exclusive: bool) -> int | None:
    """The lock file, locked (the caller closes it to unlock), or None when it cannot be."""
    try:
        lock = open_at(fd, LOCK_FILE, os.O_RDONLY | os.O_CREAT, root / REFS_DIR / LOCK_FILE, 0o644)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(lock).st_mode):
            os.close(lock)
            return None
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    except OSError:
        os.close(lock)
        return None
    return lock


def lock_shared(fd: int, root: Path) -> int | None:
    """The lock of the ``.refs`` directory ``fd``, shared (a record being written)."""
    return _lock(fd, root, exclusive=False)


def _read_all(ledger: Ledger) -> None:
    host = this_host()
    try:
        listed = sorted(os.listdir(ledger.fd))
    except OSError as exc:
        ledger.unreadable.append(
            f"the reference records in {ledger.root / REFS_DIR} cannot be listed ({_say(exc)})"
        )
        return
    for name in listed:
        if not RECORD_NAME.fullmatch(name):
            continue
        key = name.removesuffix(".json")
        where = ledger.root / REFS_DIR / name
        try:
            raw = read_at(ledger.fd, name, MAX_RECORD + 1)
        except FileNotFoundError:
            continue  # removed since listed
        except OSError as exc:
            ledger.unreadable.append(f"the reference record {where} cannot be read ({_say(exc)})")
            continue
        body = _parse(raw)
        if isinstance(body, str):
            ledger.unreadable.append(f"the reference record {where} {body}")
            continue
        session, recorded_host, names = body
        state, why = judge(ledger.fd, key, session, recorded_host, host)
        running = state == "live" and why == RUNNING
        ledger.add(Record(key, names, session, recorded_host, state, why, running))


def _parse(raw: bytes) -> tuple[str | None, str, frozenset[str]] | str:
    """(session, host, names) of a record, or what is wrong with it."""
    if len(raw) > MAX_RECORD:
        return "is too large to be one"
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return "is not a reference record agent-tui can read (not JSON)"
    if not isinstance(body, dict):
        return "is not a reference record agent-tui can read"
    version = body.get("version")
    if isinstance(version, int) and version > VERSION:
        return f"was written by a newer agent-tui (format {version})"
    session, host, names = body.get("session"), body.get("host"), body.get("names")
    if (
        version != VERSION
        or not (session is None or isinstance(session, str))
        or not isinstance(host, str)
        or not isinstance(names, list)
        or not all(isinstance(n, str) for n in names)
    ):
        return "is not a reference record agent-tui can read (fields missing or wrong)"
    return session, host, frozenset(names)


def judge(fd: int, key: str, session: str | None, recorded: str, host: str) -> tuple[State, str]:
    """Is the session of record ``key`` (``.refs`` directory ``fd``) alive?"""
    running = _running(fd, key)
    if running is True:
        return "live", RUNNING
    if session is None:
        if running is None:
            return "doubt", "whether the process of that unsaved session still runs is unknown"
        return "dead", "that session was never saved, and its process ended"
    path = Path(session)
    if not path.is_absolute():
        return "doubt", f"its session file {session!r} is not an absolute path"
    try:
        os.lstat(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        return "doubt", f"its session file {path} cannot be checked ({_say(exc)})"
    else:
        return "live", f"its session file {path} exists (agent-tui --resume {path})"
    if recorded != host:
        return (
            "doubt",
            f"it was written on another machine ({recorded}), whose session file {path} is not "
            "visible here",
        )
    try:
        folder = os.stat(path.parent)
    except OSError as exc:
        return (
            "doubt",
            f"the folder of its session file, {path.parent}, cannot be reached now "
            f"({_say(exc)}: a disk not mounted, a data dir moved?)",
        )
    if not stat.S_ISDIR(folder.st_mode):
        return "doubt", f"the folder of its session file, {path.parent}, is not a directory"
    return "dead", f"its session file {path} was deleted"


def _running(fd: int, key: str) -> bool | None:
    """Is record ``key``'s ``.live`` lock held (its process runs)? None: cannot tell."""
    try:
        live = os.open(f"{key}{LIVE_SUFFIX}", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except FileNotFoundError:
        return False
    except OSError:
        return None
    try:
        fcntl.flock(live, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return None
    finally:
        os.close(live)
    return False


def _say(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


__all__ = [
    "LIVE_SUFFIX",
    "REFS_DIR",
    "Ledger",
    "Record",
    "State",
    "encode",
    "judge",
    "lock_shared",
    "names_in",
    "open_ledger",
    "session_key",
]
