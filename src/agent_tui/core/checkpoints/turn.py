"""The checkpoint of one turn: what the file tools change (``TurnRecorder``, the turn's
``ToolContext.changes``) and what the other tools change (``WorkspaceWatch``).

The recorder keeps a file's content the first time the turn is about to change it
(``FileBefore``, in the blob store), and what each change wrote (``FileAfter``). The watch
scans the workspace around each call of a tool that does not report its changes: the first
scan starts when the executor sees such a call coming (it overlaps the approval), the scan
after a call runs in the background while the model reads the result and becomes the next
call's "before"; every call that changes files waits for it, so what each scan finds is what
that call did (or what another program did meanwhile). Files the agent itself wrote since the
previous scan, and left as it wrote them, are not counted. With a ``Shadow`` (the session's),
what a call changed is recorded as the file tools' changes are (``FileBefore``/``FileAfter``),
so a rewind restores it; what the shadow does not keep is a ``ShellChanges``, as is what a
call changed in the writable directories outside the workspace (``OutsideWatch``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.journal import Journal
from agent_tui.core.checkpoints.outside import OutsideWatch
from agent_tui.core.checkpoints.records import (
    CheckpointEntry,
    FileAfter,
    FileBefore,
    OutsideChange,
    ShellChanges,
)
from agent_tui.core.checkpoints.scan import (
    MAX_ENTRIES,
    Scan,
    Stamp,
    changes_between,
    scan_workspace,
    stamp_of,
)
from agent_tui.core.checkpoints.shadow import Shadow
from agent_tui.core.checkpoints.snapshot import MAX_SNAPSHOT_BYTES, snapshot, unkept_note

T = TypeVar("T")
Sink = Callable[[CheckpointEntry], None]
"""Where records go (the session file); may raise ``OSError``."""
MAX_LISTED = 200
"""Paths a ``ShellChanges`` lists; beyond, it counts them (``more``)."""
log = logging.getLogger(__name__)


class TurnRecorder:
    """``FileChanges`` for one turn (see the module). Thread-safe."""

    def __init__(
        self,
        turn: str,
        blobs: BlobStore,
        sink: Sink,
        *,
        on_write: Callable[[str], None] | None = None,
        limit: int = MAX_SNAPSHOT_BYTES,
    ) -> None:
        self.turn = turn
        self.blobs = blobs
        self._sink = sink
        self._on_write = on_write
        self._limit = limit
        self._kept: set[str] = set()
        self._lock = threading.Lock()

    def before_change(self, path: Path, content: bytes | None = None) -> str | None:
        key = str(path)
        with self._lock:
            if key in self._kept:
                return None
            before = snapshot(path, self.turn, self.blobs, limit=self._limit, content=content)
            self._sink(before)
            self._kept.add(key)
        if before.exists and before.blob is None and before.size is not None:
            return unkept_note(before.size, self._limit)
        return None

    def changed(self, path: Path, digest: str | None) -> None:
        key = str(path)
        try:
            self._sink(FileAfter(turn=self.turn, path=key, digest=digest))
        except OSError:  # the change is made; a rewind will see it as made by someone else
            log.exception("recording the change of %s failed", key)
        if self._on_write is not None:
            self._on_write(key)


class WorkspaceWatch:
    """The workspace scans of one turn (see the module)."""

    def __init__(
        self,
        root: Path,
        turn: str,
        sink: Sink,
        *,
        skip: Collection[str] = (),
        limit: int = MAX_ENTRIES,
        shadow: Shadow | None = None,
        outside: Collection[str] = (),
        journal: Journal | None = None,
    ) -> None:
        self.root = str(root)
        self._journal = journal
        """The workspace's change journal (``checkpoints.journal``): the scans, when it fits."""
        self.shadow = shadow
        self.outside = OutsideWatch(outside, self.root, skip=skip)
        """The writable directories outside the workspace (``sandbox.allow_write``)."""
        self.turn = turn
        self._sink = sink
        self._skip = tuple(skip)
        self._limit = limit
        self._baseline: asyncio.Future[Scan] | None = None
        self._written: dict[str, Stamp] = {}
        self._lock = threading.Lock()
        self.scans = 0
        """Scans made (for tests and benchmarks)."""
        self.last_scan: tuple[float, Scan] | None = None
        """The latest scan, and when it started (``time.time()``): what the shadow holds."""

    def _scan(self) -> Scan:
        self.scans += 1
        started = time.time()
        scan = self._scan_now()
        self.last_scan = (started, scan)
        return scan

    def _scan_now(self) -> Scan:
        ignores = self.shadow is not None
        journal = self._journal
        if journal is not None and journal.matches(self.root, self._skip, self._limit, ignores):
            return journal.scan()
        return scan_workspace(self.root, limit=self._limit, skip=self._skip, ignores=ignores)

    def _first_scan(self) -> Scan:  # the shadow brought up to date: not a change of the turn
        scan = self._scan()
        self.outside.changes()
        if self.shadow is not None:
            self.shadow.refresh(scan)
        return scan

    def prepare(self) -> None:
        """Start the scan the next watched call will be compared with, if none is there."""
        if self._baseline is None:
            self._baseline = asyncio.ensure_future(asyncio.to_thread(self._first_scan))

    async def settled(self) -> None:
        """Wait for the scan in progress (a call that changes files must not run during it)."""
        if self._baseline is not None:
            await asyncio.shield(self._baseline)

    async def around(self, call_id: str, tool: str, run: Callable[[], Awaitable[T]]) -> T:
        """``run()`` between a scan before it and one after (in the background)."""
        self.prepare()
        assert self._baseline is not None
        try:
            before = await asyncio.shield(self._baseline)
        except OSError:  # the last call's scan or capture failed (logged there): look afresh
            log.exception("the last workspace scan failed; scanning again")
            self._baseline = None
            self.prepare()
            assert self._baseline is not None
            before = await asyncio.shield(self._baseline)
        if self.shadow is not None:  # what the agent wrote since: the call's pre-image
            with self._lock:
                earlier = list(self._written)
            if earlier:
                await asyncio.to_thread(self.shadow.refresh_paths, earlier)
        try:
            return await run()
        finally:
            with self._lock:
                written, self._written = self._written, {}
            self._baseline = asyncio.ensure_future(self._after(before, written, call_id, tool))

    async def _after(
        self, before: Scan, written: dict[str, Stamp], call_id: str, tool: str
    ) -> Scan:
        after = await asyncio.to_thread(self._scan)
        truncated = before.truncated or after.truncated
        if self.shadow is not None:
            try:
                records, changes = await asyncio.to_thread(
                    self.shadow.capture, before, after, self.turn, written
                )
            except OSError:  # said as not rewindable; the shadow brought to ``after`` again
                log.exception("keeping what %s changed failed", tool)
                records = []
                changes = [
                    c.model_copy(update={"why": "store"})
                    for c in changes_between(before, after, ignore=written)
                ]
                with contextlib.suppress(OSError):
                    await asyncio.to_thread(self.shadow.refresh, after)
            for entry in records:
                self._record(entry, tool)
        else:
            changes = changes_between(before, after, ignore=written)
        changes += await asyncio.to_thread(self.outside.changes, written)
        if changes or truncated:
            self._record(self._unkept(changes, call_id, tool, truncated), tool)
        return after

    async def catch_up(self, tool: str) -> None:
        """Record what changed since the last scan as this turn's (a background job it started
        went on writing after its last call): only the pre-images (``FileBefore``), so a rewind
        sees each file as changed since by someone else (the job, or anyone) and restores it
        only when asked for by name; what the shadow does not keep is a ``ShellChanges`` of
        ``tool``. With no shadow or no scan yet, nothing."""
        if self.shadow is None or self.last_scan is None:
            return
        before = self.last_scan[1]
        after = await asyncio.to_thread(self._scan)
        records, unkept = await asyncio.to_thread(self.shadow.capture, before, after, self.turn)
        unkept += await asyncio.to_thread(self.outside.changes)
        for entry in records:
            if isinstance(entry, FileBefore):
                self._record(entry, tool)
        if unkept:
            self._record(self._unkept(unkept, "background", tool, after.truncated), tool)

    def _unkept(
        self, changes: list[OutsideChange], call_id: str, tool: str, truncated: bool
    ) -> ShellChanges:
        return ShellChanges(
            turn=self.turn,
            call_id=call_id,
            tool=tool,
            changes=changes[:MAX_LISTED],
            more=max(0, len(changes) - MAX_LISTED),
            truncated=truncated,
        )

    def _record(self, entry: CheckpointEntry, tool: str) -> None:
        try:
            self._sink(entry)
        except OSError:
            log.exception("recording what %s changed failed", tool)

    def wrote(self, path: str) -> None:
        """The agent wrote ``path`` (a file tool, from its thread): not a change to report."""
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            return
        with self._lock:
            self._written[path] = stamp_of(st)

    async def close(self) -> None:
        """Wait for the last scan (its changes recorded); the next turn starts afresh."""
        pending, self._baseline = self._baseline, None
        if pending is not None:
            try:
                await asyncio.shield(pending)
            except Exception:
                log.exception("a workspace scan failed")


@dataclass
class TurnCheckpoint:
    """What the executor needs of a turn's checkpoint."""

    turn: str
    files: TurnRecorder
    watch: WorkspaceWatch

    async def close(self) -> None:
        await self.watch.close()
