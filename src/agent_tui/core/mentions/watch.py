"""Keeping the mention index current (``watchfiles``): files and directories that appear or
go away are added to it or taken out, judged by the same ignore files as the first walk.

``IndexWatcher.run(stop)`` blocks (the UI runs it in a thread worker). It must stay cheap on
a busy tree (a build writing thousands of files, ``git checkout``): modifications are not
even reported to Python (the index holds names, not contents), nor changes under ``.git``
and the other skipped directories; what remains is gathered and applied at most once per
``APPLY_EVERY`` seconds, in one new snapshot; a batch of more than ``REWALK_OVER`` changes,
or a change to an ignore file, walks the workspace again instead.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from agent_tui.core.mentions.index import FileIndex
from agent_tui.core.mentions.walk import Entry, Stack, decide
from agent_tui.core.tools.files.walk import SKIP_DIRS
from agent_tui.core.workspace import ignores

log = logging.getLogger(__name__)

DEBOUNCE_MS = 300
TICK_MS = 500
APPLY_EVERY = 1.0
REWALK_OVER = 5_000
EXCLUDE = "/.git/info/exclude"


class IndexWatcher:
    def __init__(self, index: FileIndex) -> None:
        self.index = index
        self.root = index.workspace
        self.ready = threading.Event()
        """Watching: a change from now on is seen."""
        self.failed: str | None = None
        """Why watching stopped (the inotify watch limit…): the index is then as last seen."""
        self.applied = 0
        """Batches applied (tests wait on it)."""
        self._added: set[str] = set()
        self._removed: set[str] = set()
        self._rewalk = False

    def _wanted(self, change: object, path: str) -> bool:
        from watchfiles import Change

        if change == Change.modified:
            return path.endswith(EXCLUDE) or os.path.basename(path) in ignores.NAMES
        if path.endswith(EXCLUDE):
            return True
        rel = os.path.relpath(path, self.root)
        return not any(part in SKIP_DIRS for part in rel.split(os.sep))

    def run(self, stop: threading.Event) -> None:
        """Watch until ``stop`` is set (blocking)."""
        from watchfiles import Change, watch

        last = 0.0
        try:
            for changes in watch(
                self.root,
                watch_filter=self._wanted,
                debounce=DEBOUNCE_MS,
                rust_timeout=TICK_MS,
                yield_on_timeout=True,
                stop_event=stop,
                raise_interrupt=False,
            ):
                self.ready.set()
                for change, path in changes:
                    if path.endswith(EXCLUDE) or os.path.basename(path) in ignores.NAMES:
                        self._rewalk = True
                        continue
                    rel = Path(os.path.relpath(path, self.root)).as_posix()
                    if rel.startswith("../") or rel == ".":
                        continue
                    if change == Change.deleted:
                        self._added.discard(rel)
                        self._removed.add(rel)
                    else:
                        self._added.add(rel)
                if (self._added or self._removed or self._rewalk) and (
                    time.monotonic() - last >= APPLY_EVERY
                ):
                    self.flush(stop)
                    last = time.monotonic()
        except (OSError, RuntimeError) as exc:  # e.g. the inotify watch limit
            self.failed = str(exc)
            log.warning("watching %s for the mention index failed: %s", self.root, exc)

    def flush(self, stop: threading.Event | None = None) -> None:
        """Apply what was gathered."""
        added, removed = self._added, self._removed
        self._added, self._removed = set(), set()
        if self._rewalk or len(added) + len(removed) > REWALK_OVER:
            self._rewalk = False
            self.index.build(stop)
            self.applied += 1
            return
        walker = self.index.walker
        stacks: dict[str, Stack | None] = {}
        entries: list[Entry] = []
        gone = set(removed)
        for rel in sorted(added):
            path = os.path.join(self.root, rel)
            if not os.path.lexists(path):
                gone.add(rel)
                continue
            is_dir = os.path.isdir(path) and not os.path.islink(path)
            parent, _, name = rel.rpartition("/")
            if parent not in stacks:
                stacks[parent] = walker.stack_of(parent)
            stack = stacks[parent]
            if stack is None or (is_dir and name in SKIP_DIRS):
                continue
            if decide(stack, rel, name, is_dir):
                continue
            entries.append(Entry(rel, is_dir))
            if is_dir and rel not in self.index:  # moved in whole: its content is new too
                entries.extend(walker.walk(rel, stop))
        self.index.apply(entries, gone)
        self.applied += 1
