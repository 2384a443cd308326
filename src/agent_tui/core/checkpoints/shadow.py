"""The workspace's shadow: the content of every file a command could change, as of the last
scan, so that what a command (``run_shell``) changes is rewound like a file tool's change.

The first refresh of a session (started with the session, in a thread: ``Rewinder.warm``) keeps
every file the scan reaches: its content in the blob store (deduplicated: a workspace's content
is stored once, whatever the number of commands), its mode, or where a symbolic link points.
In a git checkout, a file git holds unchanged is not read: its object id is kept
(``Kept.git_oid``; ``core.checkpoints.gitbase``), and its content is fetched from git, verified,
only when a command changes it (one ``git cat-file`` kept running: ``catfile``; ``close`` ends
it). Before each later call only the
files whose stamp changed since are kept again. After the call, the differences of the two
scans become records (``capture``): for each changed file a ``FileBefore`` from the shadow (what
it held, its mode, its link) and a ``FileAfter`` (what it holds now, kept too: it is the next
command's pre-image). The shadow does not keep what an ignore file ignores (``node_modules``,
build outputs) nor files over the size limit: a change there is listed in a ``ShellChanges``
with why, never skipped silently; nor ``.git``: a call that moved git's refs, index or reflog
is listed (``why="git"``: no rewind puts them back). Blocking; thread-safe.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.catfile import CatFile
from agent_tui.core.checkpoints.gitbase import git_base, git_oid
from agent_tui.core.checkpoints.records import (
    CheckpointEntry,
    FileAfter,
    FileBefore,
    OutsideChange,
    link_digest,
)
from agent_tui.core.checkpoints.scan import Scan, Stamp, changes_between, delta_from, stamp_of
from agent_tui.core.checkpoints.snapshot import MAX_SNAPSHOT_BYTES
from agent_tui.core.tools.file_state import content_digest

log = logging.getLogger(__name__)

MAX_SHADOW_BYTES = 2 << 30
"""The bytes of files a shadow keeps at most (counted per file, before deduplication): a
workspace bigger than that (a home directory, a data set not ignored) is kept up to it, the
rest is not read (a change there: ``why="budget"``)."""


GIT_WORTHWHILE = 256
"""Files left to read after a saved shadow was adopted beyond which asking git which of them
it holds (a few hundred milliseconds) is worth it."""


@dataclass(frozen=True)
class Kept:
    """A file as the shadow keeps it."""

    stamp: Stamp
    blob: str | None
    """Its content's digest in the blob store; None for a symbolic link, or a file too big
    to keep (``digest`` then still tells its content)."""
    mode: int
    size: int
    link: str | None = None
    digest: str | None = None
    """The digest of its content (``link_digest`` for a link); None too for a file git holds."""
    git_oid: str | None = None
    """A file git holds unchanged (not read): its object id, the content to fetch from git."""
    unkept: str | None = None
    """Why its content is not in the store though it was read (``store``: writing it there
    failed — a full disk): tried again at the next refresh, never saved as kept."""


def keep(
    path: str, blobs: BlobStore, limit: int, room: int | None = None, real: str | None = None
) -> Kept | None:
    """``path`` as it is now, its content in ``blobs`` when not over ``limit`` (bigger: only
    its digest) nor over ``room`` (then not read: no digest); None when it is gone,
    unreadable, or not a regular file or a link. ``real``: where the file opened must really
    be (``opened_as``); elsewhere it is not read (None)."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(path)
            return Kept(stamp_of(st), None, 0, 0, target, link_digest(target))
        if not stat.S_ISREG(st.st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or not opened_as(fh.fileno(), real):
            return None
        mode = stat.S_IMODE(st.st_mode)
        if room is not None and limit >= st.st_size > room:
            return Kept(stamp_of(st), None, mode, st.st_size)
        if st.st_size > limit:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
            return Kept(stamp_of(st), None, mode, st.st_size, digest=digest)
        data = fh.read()
    try:
        blob = blobs.put(data, durable=False)
    except OSError as exc:  # a full data disk: the change is reported as not rewindable
        log.warning("could not keep %s for rewind: %s", path, exc.strerror or exc)
        digest = content_digest(data)
        return Kept(stamp_of(st), None, mode, len(data), digest=digest, unkept="store")
    return Kept(stamp_of(st), blob, mode, len(data), digest=blob)


def opened_as(fd: int, real: str | None) -> bool:
    """Whether ``fd`` is the file at ``real`` (a path with no symlink in it). O_NOFOLLOW
    guards only the last name: a directory above swapped for a link (a job racing the scan)
    would have the shadow read a file outside the workspace (a key), which a rewind would then
    write into it. The kernel's name of the open file says where it really is (Linux's
    ``/proc``; elsewhere, or without ``real``, not checked)."""
    if real is None:
        return True
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == real
    except OSError:
        return not os.path.isdir("/proc/self/fd")


class Shadow:
    """The shadow of one workspace (see the module)."""

    def __init__(
        self,
        root: str,
        blobs: BlobStore,
        *,
        limit: int = MAX_SNAPSHOT_BYTES,
        budget: int = MAX_SHADOW_BYTES,
    ) -> None:
        self.root = root
        self._prefix = root.rstrip(os.sep)
        self._real_root = os.path.realpath(root).rstrip(os.sep)
        """Where ``root`` really is: a file read must be there (``opened_as``)."""
        self.git_dir = os.path.join(root, ".git")
        self.algo: str | None = None
        """The object format of the checkout whose objects back files (``Kept.git_oid``)."""
        self._based = False
        self.blobs = blobs
        self.limit = limit
        self.files: dict[str, Kept] = {}
        self._synced: tuple[int, frozenset[str]] | None = None
        """(the ``Scan.serial`` of the journal's scan the shadow was last brought to, the paths
        not kept as it saw them): the next scan made from it is compared on its delta only."""
        self._lock = threading.Lock()
        self.kept = 0
        """Files read and kept so far (for tests and benchmarks)."""
        self.from_git = 0
        """Files kept as their git object id, not read (for tests and benchmarks)."""
        self.stopped = False
        """Set by ``stop``: a refresh in progress ends early (the next one does the rest)."""
        self.budget = budget
        self.used = 0
        """The bytes of the files whose content the shadow holds."""
        self.git = CatFile(root)
        """The ``git cat-file --batch`` that fetches pre-images (started at the first)."""

    def refresh(self, scan: Scan, *, read_at_most: int | None = None) -> None:
        """Keep each file of ``scan`` whose stamp is not the one kept; forget those gone. The
        first time, in a git checkout, the files git holds unchanged are not read. With
        ``read_at_most``, stop once that many bytes were read: the next refresh reads the rest
        (a session that never runs a command does not copy a big workspace)."""
        with self._lock:
            until = None if read_at_most is None else self.used + read_at_most
            if not self._based:
                self._based = True
                if not self.files or self._unkept(scan) > GIT_WORTHWHILE:
                    self._base_on_git(scan)
            paths = self._since(scan)
            complete = True
            for path in scan.files if paths is None else paths:
                stamp = scan.files.get(path)
                if stamp is None:
                    continue
                old = self.files.get(path)
                if old is not None and old.stamp == stamp and old.unkept is None:
                    continue
                if scan.is_ignored(path):
                    self._forget(path)
                    continue
                if self.stopped or (until is not None and self.used > until):
                    complete = False
                    break
                self._keep(path)
            gone = self.files.keys() - scan.files.keys() if paths is None else paths
            for path in [path for path in gone if path not in scan.files]:
                if scan.covers(path):
                    self._forget(path)
            self._synced = self._lagging(scan, paths) if complete else None
            self.blobs.release()

    def _base_on_git(self, scan: Scan) -> None:
        base = git_base(self.root, scan)
        if base is None:
            return
        self.algo = base.algo
        for path, (oid, st) in base.files.items():
            if path in self.files or st.st_size > self.limit or scan.is_ignored(path):
                continue
            mode = stat.S_IMODE(st.st_mode)
            self.files[path] = Kept(stamp_of(st), None, mode, st.st_size, git_oid=oid)
            self.from_git += 1

    def export(self) -> tuple[str | None, dict[str, Kept]]:
        """(the object format of the checkout, what the shadow keeps): to be saved."""
        with self._lock:
            return self.algo, dict(self.files)

    def adopt(self, algo: str | None, files: dict[str, Kept]) -> None:
        """Take ``files`` as kept (a saved shadow of this workspace, their contents in the blob
        store): the next refresh reads only the files whose stamp is not the one saved."""
        with self._lock:
            self._synced = None
            if algo is not None:
                self.algo = algo
            for path, kept in files.items():
                if path in self.files or (kept.git_oid is not None and algo is None):
                    continue
                self.files[path] = kept
                self.used += kept.size if kept.blob is not None else 0

    def _unkept(self, scan: Scan) -> int:
        """How many files of ``scan`` are not kept as they are (a saved shadow adopted)."""
        files = self.files
        return sum(
            1 for p, st in scan.files.items() if (k := files.get(p)) is None or k.stamp != st
        )

    def stop(self) -> None:
        """End a refresh in progress early (the session is closing)."""
        self.stopped = True

    def close(self) -> None:
        """The session is closing: ``stop``, and the git process ends (a later capture
        lists the files git held as not restorable, ``why="gitobject"``)."""
        self.stop()
        self.git.close()

    def refresh_paths(self, paths: Iterable[str]) -> None:
        """Keep ``paths`` as they are now (the files the agent wrote since the last scan)."""
        with self._lock:
            paths = list(paths)
            for path in paths:
                if path in self.files or os.path.lexists(path):
                    self._keep(path)
            if self._synced is not None:  # kept as they are now, not as the scan saw them
                self._synced = (self._synced[0], self._synced[1] | frozenset(paths))
            self.blobs.release()

    def _since(self, scan: Scan) -> set[str] | None:
        """The paths to look at to bring the shadow to ``scan``: when a journal made it from
        the scan the shadow was brought to (``Scan.delta``), those that changed since and
        those the shadow could not keep as they were; else None (all)."""
        synced = self._synced
        if synced is not None and synced[0] and scan.serial == synced[0]:
            return set(synced[1])  # the very scan (the journal saw nothing since)
        if synced is None or scan.delta is None or scan.delta[0] != synced[0] or not synced[0]:
            return None
        return set(scan.delta[1] | synced[1])

    def _lagging(
        self, scan: Scan, paths: Collection[str] | None
    ) -> tuple[int, frozenset[str]] | None:
        """(``scan``'s serial, the paths not kept as ``scan`` saw them, or kept and not in it:
        of ``paths``, all the others being so already; None: all), or None when ``scan`` is
        not a journal's."""
        if not scan.serial:
            return None
        files, seen = self.files, scan.files
        lagging = {
            path
            for path in (seen if paths is None else paths)
            if ((stamp := seen.get(path)) is None and path in files)
            or (
                stamp is not None
                and ((kept := files.get(path)) is None or kept.stamp != stamp)
                and not scan.is_ignored(path)
            )
        }
        if paths is None:
            lagging.update(files.keys() - seen.keys())
        return (scan.serial, frozenset(lagging))

    def _keep(self, path: str) -> Kept | None:
        self._forget(path)
        inside = path.startswith(self._prefix + os.sep)
        real = self._real_root + path[len(self._prefix) :] if inside else None
        kept = keep(path, self.blobs, self.limit, self.budget - self.used, real)
        self.kept += 1
        if kept is not None:
            self.files[path] = kept
            self.used += kept.size if kept.blob is not None else 0
        return kept

    def _forget(self, path: str) -> None:
        old = self.files.pop(path, None)
        if old is not None and old.blob is not None:
            self.used -= old.size

    def capture(
        self, before: Scan, after: Scan, turn: str, ignore: dict[str, Stamp] | None = None
    ) -> tuple[list[CheckpointEntry], list[OutsideChange]]:
        """What changed from ``before`` to ``after``: the records of what can be rewound, and
        what cannot (with why). The shadow then holds ``after``."""
        records: list[CheckpointEntry] = []
        unkept: list[OutsideChange] = []
        if before.git != after.git and after.git:
            unkept.append(OutsideChange(path=self.git_dir, change="modified", why="git"))
        with self._lock:
            changes = changes_between(before, after, ignore=ignore)
            touched, lost = self._from_git(changes, before, after)
            for change in changes:
                path = change.path
                if after.is_ignored(path) or before.is_ignored(path):
                    unkept.append(change.model_copy(update={"why": "ignored"}))
                    self._forget(path)
                    continue
                if path in touched:
                    continue
                if path in lost:
                    unkept.append(change.model_copy(update={"why": "gitobject"}))
                    self._keep(path)
                    continue
                old = self.files.get(path) if change.change != "created" else None
                if change.change != "created" and (old is None or old.digest is None):
                    why = "unread" if old is None else "budget"
                    unkept.append(change.model_copy(update={"why": why}))
                    self._keep(path)
                    continue
                if old is not None and old.blob is None and old.link is None:
                    unkept.append(change.model_copy(update={"why": old.unkept or "big"}))
                    self._keep(path)
                    continue
                new = self._keep(path) if change.change != "deleted" else None
                if change.change == "deleted":
                    self._forget(path)
                if old is not None and new is not None and _same(old, new):
                    continue  # touched, not changed
                records.append(_before(turn, path, old, before))
                records.append(
                    FileAfter(
                        turn=turn,
                        path=path,
                        digest=new.digest if new is not None else None,
                        mode=new.mode if new is not None and new.link is None else None,
                        command=True,
                    )
                )
            paths = self._since(after) if delta_from(before, after) is not None else None
            for path in after.files if paths is None else paths:  # the rest the agent wrote
                stamp = after.files.get(path)
                if stamp is None:
                    continue
                old = self.files.get(path)
                if (old is None or old.stamp != stamp) and not after.is_ignored(path):
                    self._keep(path)
            self._synced = self._lagging(after, paths)
            self.blobs.release()
        return records, unkept

    def _from_git(
        self, changes: list[OutsideChange], before: Scan, after: Scan
    ) -> tuple[set[str], set[str]]:
        """The pre-images of the files git held that ``changes`` changed, fetched and kept
        (``Kept.git_oid`` made a blob): (the paths only touched, their content still the
        object's; the paths whose object git could not give, or gave wrong)."""
        touched: set[str] = set()
        wanted: dict[str, Kept] = {}
        for change in changes:
            path = change.path
            old = self.files.get(path)
            if old is None or old.git_oid is None or change.change == "created":
                continue
            if after.is_ignored(path) or before.is_ignored(path):
                continue
            if change.change == "modified" and self.algo is not None:
                now = _as_git(path, self.algo, self.limit)
                if now is not None and (now[0], now[2]) == (old.git_oid, old.mode):
                    self.files[path] = replace(old, stamp=now[1])
                    touched.add(path)
                    continue
            wanted[path] = old
        if not wanted or self.algo is None:
            return touched, set(wanted)
        sizes = {old.git_oid: old.size for old in wanted.values() if old.git_oid is not None}
        got = self.git.fetch(self.algo, sizes)
        lost: set[str] = set()
        for path, old in wanted.items():
            data = got.get(old.git_oid or "")
            if data is None:
                lost.add(path)
                continue
            blob = self.blobs.put(data, durable=False)
            self.files[path] = replace(old, blob=blob, digest=blob, git_oid=None)
            self.used += old.size
        return touched, lost


def _as_git(path: str, algo: str, limit: int) -> tuple[str, Stamp, int] | None:
    """The git object id of ``path``'s content now, its stamp and mode (None: not a regular
    file, unreadable, or over ``limit``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        data = fh.read()
    return git_oid(data, algo), stamp_of(st), stat.S_IMODE(st.st_mode)


def _same(old: Kept, new: Kept) -> bool:
    return (old.digest, old.mode) == (new.digest, new.mode)


def _before(turn: str, path: str, old: Kept | None, scan: Scan) -> FileBefore:
    if old is None:
        return FileBefore(turn=turn, path=path, exists=False, new_dirs=_new_dirs(path, scan))
    if old.link is not None:
        return FileBefore(turn=turn, path=path, exists=True, link=old.link)
    return FileBefore(
        turn=turn, path=path, exists=True, blob=old.blob, mode=old.mode, size=old.size
    )


def _new_dirs(path: str, scan: Scan) -> str | None:
    """The outermost parent of ``path`` that ``scan`` did not see (the call made it)."""
    missing = None
    parent = os.path.dirname(path)
    while parent not in scan.seen:
        up = os.path.dirname(parent)
        if up == parent:
            return None
        missing, parent = parent, up
    return missing
