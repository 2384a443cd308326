"""The workspace's paths, in memory, for the ``@`` picker: walked once (in a thread: the UI
builds it from a worker), kept current by ``IndexWatcher``, queried on every keystroke.

A query must answer within a frame or two on 100,000 paths, in Python, so it never scores
them all. The paths live in two strings — every label lowercased, one a line, and every
basename the same way — that ``str.find`` and one regex scan in C, in tiers, best kind of
match first: basenames that start with the query, basenames that contain it, paths that
contain it, then paths that hold its characters in order. The first ``CANDIDATES`` lines
found (shallow paths first: the walk is breadth first) are scored (``fuzzy.score``) and the
best ``limit`` returned. A query that extends the previous one rescans only the previous
candidates, when they were all of its matches.

Readers never lock: a change (the watcher) builds a new ``Snapshot`` and swaps it in.
"""

from __future__ import annotations

import bisect
import heapq
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.mentions.fuzzy import Scored, score
from agent_tui.core.mentions.walk import Entry, Walker
from agent_tui.core.workspace import ignores

MAX_ENTRIES = 200_000
"""Entries kept; a bigger workspace is cut (``FileIndex.truncated`` says so) — the walk is
breadth first, so what is left out is the deepest."""
CANDIDATES = 1_000
"""Matching lines found per query at most."""
SCORED = 200
"""Of those, lines scored: the best tiers, the shortest paths of a tier."""
PUBLISH_AT = (10_000, 50_000)
"""While the first walk runs, the entries so far are queryable from these counts on."""


@dataclass(frozen=True)
class Hit:
    label: str
    """The path relative to the workspace; a directory's ends with ``/``."""
    is_dir: bool
    score: float
    positions: tuple[int, ...]


@dataclass(frozen=True)
class Result:
    hits: tuple[Hit, ...]
    matched: int
    """How many candidates matched (at least: the scan stops at ``CANDIDATES``)."""
    complete: bool
    """``matched`` is every match (the scan did not stop)."""


@dataclass
class Snapshot:
    labels: list[str]
    lower: list[str] = field(init=False)
    name_at: list[int] = field(init=False)
    blob: str = field(init=False)
    names: str = field(init=False)
    starts: list[int] = field(init=False)
    name_starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.lower = [label.lower() for label in self.labels]
        self.name_at = [label.rstrip("/").rfind("/") + 1 for label in self.labels]
        names = [low[at:].rstrip("/") for low, at in zip(self.lower, self.name_at, strict=True)]
        # "\n" before each line: a line's start is found as "\n" + the query
        self.blob = "".join("\n" + low for low in self.lower)
        self.names = "".join("\n" + name for name in names)
        self.starts = _starts(self.lower)
        self.name_starts = _starts(names)
        self._with: dict[str, list[int]] = {}
        self._counts: dict[str, int] = {}

    def count(self, char: str) -> int:
        """How often ``char`` occurs in all the paths (what makes it rare)."""
        found = self._counts.get(char)
        if found is None:
            found = self._counts[char] = self.blob.count(char)
        return found

    def warm(self) -> None:
        """Find the lines of every character now (in the thread that built the snapshot), so
        that no keystroke pays for it."""
        for char in set(self.blob) - {"\n"}:
            self.lines_with(char)

    def lines_with(self, char: str) -> list[int]:
        """The lines holding ``char``, found the first time a query asks (a few ms)."""
        found = self._with.get(char)
        if found is None:
            found = self._with[char] = [i for i, low in enumerate(self.lower) if char in low]
        return found


def _starts(lines: list[str]) -> list[int]:
    """The offset of each line's "\\n" in the joined string."""
    out: list[int] = []
    pos = 0
    for line in lines:
        out.append(pos)
        pos += len(line) + 1
    return out


def _tier(query: str, lower: str, name_at: int) -> int:
    """0: the basename starts with ``query``; 1: holds it; 2: the path holds it; 3: its
    characters are in the path in order."""
    at = lower.find(query)
    if at < 0:
        return 3
    if at >= name_at:
        return 0 if at == name_at else 1
    return 1 if lower.find(query, name_at) >= 0 else 2


def _fuzzy_regex(query: str) -> re.Pattern[str]:
    """Matches (``match``: from the start) a line holding ``query``'s characters in order.
    Each ``[^c]*+c`` is possessive and stops at the first ``c``, so a line is scanned once,
    whatever the query."""
    return re.compile("".join(f"[^{re.escape(c)}]*+{re.escape(c)}" for c in query))


class FileIndex:
    """The entries of one workspace (see the module's docstring)."""

    def __init__(
        self,
        workspace: Path,
        readable: ignores.Readable | None = None,
        *,
        max_entries: int = MAX_ENTRIES,
    ) -> None:
        self.walker = Walker(workspace, readable)
        self.workspace = self.walker.workspace
        self.max_entries = max_entries
        self._entries: dict[str, bool] = {}
        """rel -> is_dir, in walk order (new entries at the end)."""
        self._lock = threading.Lock()
        self._snapshot = Snapshot([])
        self._last: tuple[str, Snapshot, dict[int, int]] | None = None
        """The last complete query: its text, the snapshot and every line it matched."""
        self.ready = threading.Event()
        """The first walk is done."""
        self.truncated = False
        """The workspace has more than ``max_entries`` entries: the deepest are left out."""
        self.build_seconds = 0.0

    # -- building ---------------------------------------------------------------------------

    def build(self, stop: threading.Event | None = None) -> None:
        """Walk the workspace (blocking: call it in a thread). Queryable as it goes."""
        started = time.perf_counter()
        entries: dict[str, bool] = {}
        truncated = False
        for entry in self.walker.walk(stop=stop):
            if len(entries) >= self.max_entries:
                truncated = True
                break
            entries[entry.rel] = entry.is_dir
            if len(entries) in PUBLISH_AT:
                self._publish(dict(entries))
        if stop is not None and stop.is_set():
            return
        with self._lock:
            self._entries = entries
            self.truncated = truncated
            self._rebuild()
        self.build_seconds = time.perf_counter() - started
        self.ready.set()

    def _publish(self, entries: dict[str, bool]) -> None:
        with self._lock:
            self._entries = entries
            self._rebuild()

    def _rebuild(self) -> None:
        labels = [rel + "/" if is_dir else rel for rel, is_dir in self._entries.items()]
        snapshot = Snapshot(labels)
        snapshot.warm()
        self._snapshot = snapshot
        self._last = None

    def __len__(self) -> int:
        return len(self._snapshot.labels)

    def __contains__(self, rel: str) -> bool:
        return rel.rstrip("/") in self._entries

    def labels(self) -> list[str]:
        return list(self._snapshot.labels)

    # -- changes (the watcher) --------------------------------------------------------------

    def apply(self, added: Iterable[Entry], removed: Iterable[str]) -> bool:
        """Add ``added``, remove ``removed`` (a removed directory takes what is below it);
        True when the index changed."""
        changed = False
        with self._lock:
            for rel in removed:
                rel = rel.rstrip("/")
                if self._entries.pop(rel, None) is not None:
                    changed = True
                    below = rel + "/"
                    for other in [k for k in self._entries if k.startswith(below)]:
                        del self._entries[other]
            for entry in added:
                if len(self._entries) >= self.max_entries:
                    self.truncated = True
                    break
                if self._entries.get(entry.rel) != entry.is_dir:
                    self._entries[entry.rel] = entry.is_dir
                    changed = True
            if changed:
                self._rebuild()
        return changed

    # -- queries ----------------------------------------------------------------------------

    def query(self, text: str, limit: int = 50) -> Result:
        """The ``limit`` best entries for ``text`` (case-insensitive), best first."""
        snap = self._snapshot
        query = text.lower()
        if not query:
            shallow = heapq.nsmallest(
                limit, snap.labels[:CANDIDATES], key=lambda s: (s.count("/"), s)
            )
            top = tuple(Hit(label, label.endswith("/"), 0.0, ()) for label in shallow)
            return Result(top, len(snap.labels), True)
        found, complete = self._candidates(snap, query)
        labels = snap.labels
        # the best kinds of match first, short paths first within one: only those are scored
        ranked = heapq.nsmallest(
            SCORED, found.items(), key=lambda item: (item[1], len(labels[item[0]]), item[0])
        )
        scored: list[tuple[float, int, Scored]] = []
        for line, _ in ranked:
            one = score(query, labels[line], snap.lower[line], snap.name_at[line])
            if one is not None:
                scored.append((one.score, -line, one))
        best = heapq.nlargest(limit, scored, key=lambda item: (item[0], item[1]))
        hits = tuple(
            Hit(labels[-neg], labels[-neg].endswith("/"), s, one.positions) for s, neg, one in best
        )
        return Result(hits, len(found), complete)

    def _candidates(self, snap: Snapshot, query: str) -> tuple[dict[int, int], bool]:
        """The matching lines found, each with its tier (0 best), and whether that is all."""
        last = self._last
        if last is not None and last[1] is snap and query.startswith(last[0]):
            match = _fuzzy_regex(query).match
            lower, name_at = snap.lower, snap.name_at
            narrowed = {
                line: _tier(query, lower[line], name_at[line])
                for line in last[2]
                if match(lower[line]) is not None
            }
            self._last = (query, snap, narrowed)
            return narrowed, True
        found: dict[int, int] = {}
        complete = (
            self._literal(snap.names, snap.name_starts, "\n" + query, found, 0)
            and self._literal(snap.names, snap.name_starts, query, found, 1)
            and self._literal(snap.blob, snap.starts, query, found, 2)
            and self._fuzzy(snap, query, found)
        )
        if complete:
            self._last = (query, snap, found)
        return found, complete

    def _literal(
        self, blob: str, starts: list[int], needle: str, found: dict[int, int], tier: int
    ) -> bool:
        """Add the lines of ``blob`` holding ``needle``; False when ``CANDIDATES`` is reached."""
        pos = blob.find(needle)
        while pos >= 0:
            line = bisect.bisect_right(starts, pos) - 1
            found.setdefault(line, tier)
            if len(found) >= CANDIDATES:
                return False
            following = line + 1
            if following >= len(starts):
                break
            pos = blob.find(needle, starts[following])
        return True

    def _fuzzy(self, snap: Snapshot, query: str, found: dict[int, int]) -> bool:
        """Add the lines holding ``query``'s characters in order, among those that hold its
        three rarest characters."""
        rarest = sorted(set(query), key=snap.count)[:3]
        lines: Iterable[int] = snap.lines_with(rarest[0])
        if len(rarest) > 1:  # the lines holding all three, in order (in C, mostly)
            both = set(lines).intersection(*(snap.lines_with(char) for char in rarest[1:]))
            lines = sorted(both)
        match = _fuzzy_regex(query).match
        lower = snap.lower
        for line in lines:
            if match(lower[line]) is not None:
                found.setdefault(line, 3)
                if len(found) >= CANDIDATES:
                    return False
        return True
