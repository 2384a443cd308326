"""A change journal of the workspace (Linux's inotify): the scan of now, from the last one and
what changed since, instead of a full ``scan_workspace``.

A ``Journal`` watches every directory its last full scan listed (``.git`` and the skipped
directories aside), adding each watch before listing the directory, so that nothing written
into it after the listing is missed. The kernel queues each event when the change is made,
so a drain right after a command ends holds all that the command did. ``scan()`` drains the
queue, lists again only the directories an event names (no ``stat``), stats only the entries
named (an event's stamp is never trusted), lists in full each directory created or moved in
(its watch first), drops whatever was under a directory deleted or moved out, and stamps the
``GIT_STATE`` of ``.git`` again: the ``Scan`` it returns is the one ``scan_workspace`` would.

It gives up, and ``scan()`` makes a full scan and starts again, on anything it cannot follow
(fail closed): the queue overflowing, more than ``MAX_EVENTS`` events (a full scan is as
cheap), the root removed, moved or unmounted, an ignore file (or one above the root, or
``.git/info/exclude``) changed, a watch refused, a scan truncated. With no inotify (not
Linux), too many directories to watch (``MAX_WATCHES``: the user's editor needs watches too),
or a watch limit reached once, every scan is a full one. Not seen: a file changed through a
hard link outside the workspace, or written through a shared memory map (the kernel tells no
directory). A file with other hard links gives up when an event names it (its other names
changed with it, unannounced). Blocking: call it in a thread; a lock serializes the calls.
"""

from __future__ import annotations

import ctypes
import errno
import itertools
import os
import struct
import sys
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.checkpoints.scan import (
    MAX_ENTRIES,
    IgnoreStack,
    Scan,
    Walk,
    WalkHooks,
    enter,
    git_state,
    scan_workspace,
    stamp_of,
    walk,
)
from agent_tui.core.workspace import ignores as ignore_files

MAX_EVENTS = 5_000
"""Events a drain reads before it gives up: a full scan costs about that much."""
MAX_WATCHES = 10_000
"""Directories watched at most (and no more than a quarter of the user's limit)."""

_IN_MODIFY, _IN_ATTRIB, _IN_MOVED_FROM, _IN_MOVED_TO = 0x2, 0x4, 0x40, 0x80
_IN_CREATE, _IN_DELETE, _IN_DELETE_SELF, _IN_MOVE_SELF = 0x100, 0x200, 0x400, 0x800
_IN_UNMOUNT, _IN_Q_OVERFLOW, _IN_IGNORED = 0x2000, 0x4000, 0x8000
_IN_ONLYDIR, _IN_DONT_FOLLOW = 0x01000000, 0x02000000
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE) | (
    _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR | _IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")
_SERIALS = itertools.count(1)


class _Inotify:
    """An inotify instance (non-blocking), through the C library."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd: int = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if self.fd < 0:
            raise _os_error("inotify_init1")

    def add(self, path: str) -> int:
        wd: int = self._libc.inotify_add_watch(self.fd, os.fsencode(path), _MASK)
        if wd < 0:
            raise _os_error(path)
        return wd

    def remove(self, wd: int) -> None:
        self._libc.inotify_rm_watch(self.fd, wd)

    def read(self, at_most: int) -> list[tuple[int, int, str]] | None:
        """The events queued (none waited for): (watch, mask, name); None past ``at_most``."""
        events: list[tuple[int, int, str]] = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return events
            at = 0
            while at < len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, at)
                at += _EVENT.size
                events.append((wd, mask, os.fsdecode(data[at : at + size].rstrip(b"\0"))))
                at += size
            if len(events) > at_most:
                return None

    def close(self) -> None:
        os.close(self.fd)


def _os_error(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, os.strerror(code), what)


def _max_watches() -> int:
    try:
        limit = int(Path("/proc/sys/fs/inotify/max_user_watches").read_text())
    except (OSError, ValueError):
        return 0
    return min(MAX_WATCHES, limit // 4)


@dataclass
class _Dir:
    rules: IgnoreStack
    """Its rules, its own ignore files read."""
    inside_ignored: bool
    names: set[str]


class _GiveUp(Exception):
    pass


class Journal(WalkHooks):
    """The workspace's changes since its last scan (see the module)."""

    def __init__(
        self,
        root: str,
        *,
        skip: Collection[str] = (),
        limit: int = MAX_ENTRIES,
        ignores: bool = False,
        add_watch: Callable[[Callable[[str], int], str], int] | None = None,
    ) -> None:
        self.root = root
        self.skip = tuple(skip)
        self.limit = limit
        self.ignores = ignores
        self._how = Walk(len(root.rstrip(os.sep)) + 1, set(skip), limit, ignores)
        self._add_watch = add_watch
        """Tests: called with the real ``add`` and the path, instead of it."""
        self._lock = threading.Lock()
        self._inotify: _Inotify | None = None
        self._disabled = sys.platform != "linux"
        self._last: Scan | None = None
        self._dirs: dict[str, _Dir] = {}
        self._wd_of: dict[str, int] = {}
        self._path_of: dict[int, str] = {}
        self._moved: list[tuple[str, int]] = []
        """(the path a watch was at, the watch) for each directory met again under another name."""
        self._root_wd = -1
        self._cap = 0
        self._above: tuple[object, ...] = ()
        self._touched: set[str] | None = None
        """The paths a rescan went over (``Scan.delta``)."""
        self.full_scans = 0
        self.drains = 0
        """Counts (tests, benchmarks)."""

    def matches(self, root: str, skip: Collection[str], limit: int, ignores: bool) -> bool:
        """Whether its scans are those of ``scan_workspace`` with these arguments."""
        return (root, tuple(skip), limit, ignores) == (
            self.root,
            self.skip,
            self.limit,
            self.ignores,
        )

    def scan(self) -> Scan:
        """The scan of now: from the journal when it can, else a full one (journal restarted)."""
        with self._lock:
            if self._last is not None:
                scan = self._rescan()
                if scan is not None:
                    return scan
            return self._restart()

    def rescan(self) -> Scan | None:
        """The scan of now from the journal, or None (the journal stopped: ``scan`` again)."""
        with self._lock:
            return None if self._last is None else self._rescan()

    def close(self) -> None:
        with self._lock:
            self._stop()
            self._disabled = True

    def _full(self, hooks: WalkHooks | None = None) -> Scan:
        scan = scan_workspace(
            self.root, limit=self.limit, skip=self.skip, ignores=self.ignores, hooks=hooks
        )
        self.full_scans += 1
        return scan

    def _restart(self) -> Scan:
        self._stop()
        if self._disabled:
            return self._full()
        try:
            self._inotify = _Inotify()
            self._cap = _max_watches()
            above = self._above_now()
            scan = self._full(self)
        except (OSError, AttributeError, _GiveUp) as exc:  # AttributeError: no inotify
            if not isinstance(exc, OSError) or exc.errno in (errno.ENOSPC, errno.EMFILE):
                self._disabled = True  # a limit: the next tries would fail too
            self._stop()
            return self._full()
        if scan.truncated or self._moved or self.root not in scan.complete:
            self._stop()
            return scan
        self._root_wd = self._wd_of[self.root]
        scan.serial = next(_SERIALS)
        self._last, self._above = scan, above
        return scan

    def _stop(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
        self._inotify, self._last = None, None
        self._dirs, self._wd_of, self._path_of, self._moved = {}, {}, {}, []

    def before(self, directory: str) -> None:
        assert self._inotify is not None
        if len(self._wd_of) >= self._cap:
            raise _GiveUp
        add = self._inotify.add
        wd = add(directory) if self._add_watch is None else self._add_watch(add, directory)
        old = self._path_of.get(wd)
        if old is not None and old != directory:
            self._moved.append((old, wd))  # the same directory under another name
        self._path_of[wd] = directory
        self._wd_of[directory] = wd

    def listed(
        self, directory: str, rules: IgnoreStack, inside_ignored: bool, names: list[str]
    ) -> None:
        self._dirs[directory] = _Dir(rules, inside_ignored, set(names))
        if self._touched is not None:  # a directory come in a rescan: all of it new
            self._touched.update(os.path.join(directory, name) for name in names)

    def _above_now(self) -> tuple[object, ...]:
        """What of the ignore files above the root, and ``.git/info/exclude``, is there now."""
        if not self.ignores:
            return ()
        found: list[object] = []
        for path in ignore_files.inherited_paths(Path(self.root), Path(self.root)):
            try:
                st = os.stat(path, follow_symlinks=False)
            except OSError:
                found.append((str(path), None))
                continue
            kind = st.st_mode if path.name == ".git" else stamp_of(st)  # .git: only its kind
            found.append((str(path), kind))
        return tuple(found)

    def _rescan(self) -> Scan | None:
        self._touched = set()
        try:
            return self._drain()
        except (_GiveUp, OSError):
            self._stop()
            return None
        finally:
            self._touched = None

    def _drain(self) -> Scan:
        assert self._inotify is not None
        assert self._last is not None
        self.drains += 1
        events = self._inotify.read(MAX_EVENTS)
        if events is None or self._above_now() != self._above:
            raise _GiveUp
        touched: dict[str, set[str]] = {}
        for wd, mask, name in events:
            path = self._path_of.get(wd)
            if mask & (_IN_Q_OVERFLOW | _IN_UNMOUNT) or (
                wd == self._root_wd and mask & (_IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF)
            ):
                raise _GiveUp
            if path is None:
                continue  # a watch removed: its directory's parent tells what happened
            if mask & _IN_IGNORED:
                del self._path_of[wd]
                if self._wd_of.get(path) == wd:
                    del self._wd_of[path]
            elif name:
                if self.ignores and name in ignore_files.NAMES:
                    raise _GiveUp
                touched.setdefault(path, set()).add(name)
        last = self._last
        git = git_state(self.root) if self.ignores else ()
        if not touched and git == last.git:
            return last  # nothing changed: the same scan (its serial: a shadow brought to it is)
        scan = Scan(
            files=dict(last.files),
            complete=set(last.complete),
            seen=set(last.seen),
            entries=last.entries,
            ignored=set(last.ignored),
            linked=set(last.linked),
            git=git,
            serial=next(_SERIALS),
        )
        dropped: set[int] = set()
        for directory in sorted(touched, key=lambda path: path.count(os.sep)):
            self._relist(scan, directory, touched[directory], dropped)
        if scan.truncated or scan.entries > self.limit:
            raise _GiveUp
        if any(self._wd_of.get(old) == wd for old, wd in self._moved):
            raise _GiveUp  # still at its old path too (a bind mount): not followed
        assert self._touched is not None
        if not self._touched.isdisjoint(last.linked) or not self._touched.isdisjoint(scan.linked):
            raise _GiveUp  # a file with other names: they changed too, and no event says so
        self._moved = []
        for wd in dropped - self._path_of.keys():
            self._inotify.remove(wd)
        scan.delta = (last.serial, frozenset(self._touched))
        self._last = scan
        return scan

    def _relist(self, scan: Scan, directory: str, named: set[str], dropped: set[int]) -> None:
        """``directory`` again: its entries named by an event, or come or gone, anew."""
        state = self._dirs.get(directory)
        if state is None:
            if directory in scan.seen:
                raise _GiveUp  # watched but never listed (unreadable): not followed
            return  # gone with a directory above it
        with os.scandir(directory) as listing:  # OSError: given up
            entries = {entry.name: entry for entry in listing}
        scan.entries += len(entries) - len(state.names)
        names = named | (state.names ^ set(entries))
        state.names = set(entries)
        for name in names:
            self._drop(scan, os.path.join(directory, name), dropped)
            entry = entries.get(name)
            if entry is None:
                continue
            below = enter(scan, entry, state.rules, state.inside_ignored, self._how)
            if below is not None:
                walk(scan, [below], self._how, self)
                if below[0] not in scan.complete:
                    raise _GiveUp  # not listed: not followed

    def _drop(self, scan: Scan, path: str, dropped: set[int]) -> None:
        """Forget ``path``, and all under it when a directory."""
        stack = [path]
        assert self._touched is not None
        while stack:
            path = stack.pop()
            self._touched.add(path)
            scan.files.pop(path, None)
            scan.ignored.discard(path)
            scan.linked.discard(path)
            if path not in scan.seen:
                continue
            scan.seen.discard(path)
            scan.complete.discard(path)
            wd = self._wd_of.pop(path, None)
            if wd is not None and self._path_of.get(wd) == path:
                del self._path_of[wd]
                dropped.add(wd)
            state = self._dirs.pop(path, None)
            if state is not None:
                scan.entries -= len(state.names)
                stack.extend(os.path.join(path, name) for name in state.names)
