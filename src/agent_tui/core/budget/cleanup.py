"""Spill cleanup: a spill file is deleted only when nothing can still point at it.

A spill is *referenced* while its file name appears in a message of the live transcript
(tool results carry the pointer; the model may quote the path in its text or in a read_file
call), in a saved session file of this data dir (a session can be resumed, and its pointers
must work), or in the reference record of a live session of any process or data dir
(``refs``: records kept beside the spills, in the workspace, so that a run with another
``AGENT_TUI_DATA_DIR``, ``XDG_DATA_HOME`` or ``HOME`` sees them too). What is referenced is
kept; so is what *may* be (``refs.judge``: a record that cannot be read, a session file that
cannot be checked now): no doubt ever deletes. Age alone never deletes anything; it only
protects:

- a spill some record knows but no live session refers to any more (its session file was
  deleted, its process ended) goes once it is ``grace`` seconds old (an hour by default:
  ``budget.spill_grace_seconds``);
- a spill no record knows at all — written before records existed, or by an older
  agent-tui, maybe for a session of another data dir that may still be resumed — is kept
  ``unclaimed`` seconds (30 days: ``budget.spill_unclaimed_days``), unless this process's
  own sessions refer to it (then it is kept, and recorded for them: ``_adopt``).

The decision and the deletions happen under the spill directory's reference lock, held
exclusively: no session can start to refer to a spill (write its record) between the moment
a cleanup finds it unreferenced and its deletion, and two cleanups never race.

Images and audio that MCP results saved to ``<spill dir>/mcp-media/`` follow the same rules:
results point to them by path, so they go when nothing refers to them any more.

Everything is listed and deleted by name relative to the spill directory's descriptor, reached
without following a link: a symlinked spill directory (or a link named like a spill) never
makes cleanup delete what it points to.

Run it when a session ends and after the transcript shrinks (compaction): ``Agent.close()``
and ``Agent.collect_spills()`` do.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.budget.index import INDEX_DIR
from agent_tui.core.budget.refs import Ledger, open_ledger, session_key
from agent_tui.core.budget.store import SPILL_NAME, SpillStore, is_spill_name
from agent_tui.core.transcript import Message

GRACE_SECONDS = 3600.0
UNCLAIMED_SECONDS = 30 * 86_400.0
MEDIA_DIR = "mcp-media"
"""Inside the spill directory: media files of MCP results
(``core.mcp.client.adapter.MediaStore``)."""
MEDIA_NAME = re.compile(r"\d{8}T\d{6}Z-[A-Za-z0-9_-]+?-[0-9a-f]{4}\.[A-Za-z0-9]{1,8}")


@dataclass
class CleanupReport:
    deleted: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    """Referenced by this process's own view: its live messages or its saved sessions."""
    held: list[Path] = field(default_factory=list)
    """Referenced by a live session of another process or data dir (its record)."""
    doubtful: list[Path] = field(default_factory=list)
    """Kept because whether a session needs them cannot be told (``reasons`` says why)."""
    young: list[Path] = field(default_factory=list)
    """Unreferenced but inside the grace period."""
    waiting: list[Path] = field(default_factory=list)
    """Known to no record (older spills, or an older agent-tui's) and not yet as old as the
    unclaimed period."""
    reasons: list[str] = field(default_factory=list)
    """Why files were held or doubted, one sentence each."""


def message_texts(messages: Iterable[Message]) -> Iterator[str]:
    """Every text of ``messages`` that may hold a spill path."""
    for message in messages:
        yield message.content
        for call in message.tool_calls:
            yield call.arguments


def referenced_names(texts: Iterable[str], pattern: re.Pattern[str] = SPILL_NAME) -> set[str]:
    """Spill file names (or other names ``pattern`` matches) mentioned in ``texts``."""
    found: set[str] = set()
    for text in texts:
        found.update(pattern.findall(text))
    return found


def _names_in_files(
    paths: Iterable[Path],
    wanted: set[str],
    pattern: re.Pattern[str],
    mentions: dict[Path, set[str]],
) -> set[str]:
    """Which of ``wanted`` appear in the files ``paths`` (streamed line by line); each file's
    finds go to ``mentions`` too (its record is written from them: ``_adopt``)."""
    found: set[str] = set()
    for path in paths:
        if found >= wanted:
            break
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if "Z-" in line:
                        names = {n for n in pattern.findall(line) if n in wanted}
                        if names:
                            found |= names
                            mentions.setdefault(path, set()).update(names)
        except OSError:
            # An unreadable session may still be resumed later: keep everything.
            return set(wanted)
    return found


def first_file_naming(name: str, paths: Iterable[Path]) -> tuple[Path, OSError | None] | None:
    """The first of ``paths`` whose text mentions the file ``name`` (streamed line by line),
    with None; or the first that cannot be read, with its error (it may mention it, as for
    ``collect_spills``). None when no file mentions it. Blocking: use a thread."""
    for path in paths:
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                if any(name in line for line in fh):
                    return path, None
        except OSError as exc:
            return path, exc
    return None


@dataclass
class _Pass:
    """One kind of file (spills, media) in one cleanup."""

    files: list[tuple[str, os.stat_result]]
    sub: tuple[str, ...]
    unreferenced: set[str]
    """Not referenced by this process's own view (live messages, own session files)."""


def collect_spills(
    store: SpillStore,
    messages: Iterable[Message],
    session_files: Iterable[Path] = (),
    *,
    grace: float = GRACE_SECONDS,
    unclaimed: float = UNCLAIMED_SECONDS,
    now: float | None = None,
) -> CleanupReport:
    """Delete the spill files (and MCP media files) of ``store`` that nothing refers to: not
    the live transcript (``messages``), not this process's saved sessions (``session_files``),
    no live session of any data dir (the reference records); ``grace`` and ``unclaimed`` are
    the ages below which they are kept anyway. Blocking: use a thread."""
    report = CleanupReport()
    now = time.time() if now is None else now
    _remove_leftovers(store, now - max(grace, GRACE_SECONDS))  # a write may be under way
    texts = list(message_texts(messages))
    sessions = list(session_files)
    spills = [(n, st) for n, st in store.listing() if is_spill_name(n)]
    media = [(n, st) for n, st in store.listing(MEDIA_DIR) if MEDIA_NAME.fullmatch(n)]
    passes: list[_Pass] = []
    mentions: dict[Path, set[str]] = {}
    for files, pattern, sub in ((spills, SPILL_NAME, ()), (media, MEDIA_NAME, (MEDIA_DIR,))):
        files = [(n, st) for n, st in files if stat.S_ISREG(st.st_mode)]
        if not files:
            continue
        unreferenced = {n for n, _ in files} - referenced_names(texts, pattern)
        if unreferenced:
            unreferenced -= _names_in_files(sessions, unreferenced, pattern, mentions)
        passes.append(_Pass(files, sub, unreferenced))
    own = store.refs.held_keys()
    with open_ledger(store.dir, exclusive=True) as ledger:
        usable = ledger is not None and ledger.blocked is None
        if ledger is not None and usable:
            _adopt(ledger, mentions, own)
        rules = _Rules(ledger, own, now - grace, now - unclaimed)
        for each in passes:
            _sweep(store, each, rules, report)
        if ledger is not None and usable:
            present = {n for p in passes for n, _ in p.files}
            present -= {path.name for path in report.deleted}
            _forget_dead(ledger, own, present, now - max(grace, GRACE_SECONDS))
    return report


def _adopt(ledger: Ledger, mentions: dict[Path, set[str]], own: frozenset[str]) -> None:
    """Write the records of this data dir's sessions that mention spills here but have none
    that says so (saved before records existed, never resumed since), so that a cleanup of
    another data dir keeps their spills too."""
    for path, names in mentions.items():
        key = session_key(path)
        if key in own:
            continue
        known = ledger.record(key)
        if known is not None and names <= known.names:
            continue
        merged = names | (known.names if known is not None else frozenset())
        with contextlib.suppress(OSError):  # this process's own view keeps them anyway
            ledger.write(key, path, merged)


@dataclass(frozen=True)
class _Rules:
    """What happens to a file this process's own view does not refer to."""

    ledger: Ledger | None
    own: frozenset[str]
    known_before: float
    """A file a record knows but no live session refers to goes when older than this."""
    unclaimed_before: float
    """A file no record knows goes when older than this."""

    def verdict(self, name: str, mtime: float) -> tuple[str, str]:
        """("delete" | "held" | "doubt" | "young" | "waiting", why)."""
        ledger = self.ledger
        if ledger is not None:
            if ledger.blocked is not None:
                return "doubt", ledger.blocked
            claims = ledger.claims(name, self.own)
            for state in ("live", "doubt"):
                record = next((r for r in claims if r.state == state), None)
                if record is not None:
                    return "held" if state == "live" else "doubt", f"{record.key}: {record.why}"
        if mtime > self.known_before:
            return "young", ""
        if ledger is not None and ledger.known(name):
            return "delete", ""
        if mtime > self.unclaimed_before:
            return "waiting", ""
        return "delete", ""


def _sweep(store: SpillStore, each: _Pass, rules: _Rules, report: CleanupReport) -> None:
    """Delete the unreferenced files the rules let go: each by name in the spill directory's
    descriptor (``store.unlink``), so a link never makes it delete elsewhere."""
    directory = store.root.joinpath(*each.sub)
    where = {"held": report.held, "doubt": report.doubtful, "young": report.young}
    for name, st in each.files:
        path = directory / name
        if name not in each.unreferenced:
            report.kept.append(path)
            continue
        verdict, why = rules.verdict(name, st.st_mtime)
        if verdict != "delete":
            where.get(verdict, report.waiting).append(path)
            if why and why not in report.reasons:
                report.reasons.append(why)
            continue
        if each.sub:
            store.unlink(name, *each.sub)
        else:
            store.remove(path)
        report.deleted.append(path)


def _forget_dead(ledger: Ledger, own: frozenset[str], present: set[str], before: float) -> None:
    """Remove the records that keep nothing any more — of a dead session, or of a saved one
    no process runs now, naming no file left (a session resumed later writes its record
    again) —, ``.live`` files whose record is gone and whose process ended, and temporary
    files of record writes that never finished (older than ``before``)."""
    for record in list(ledger.records):
        idle = record.state == "dead" or (record.state == "live" and not record.running)
        if idle and record.key not in own and not record.names & present:
            with contextlib.suppress(OSError):
                ledger.forget(record.key)
    ledger.sweep_strays(own, before)


def _remove_leftovers(store: SpillStore, before: float) -> None:
    """Indexes whose spill is gone, and temporary files of writes that never finished."""
    present = {n for n, _ in store.listing()}
    for sub, suffix in (((), ".txt"), ((INDEX_DIR,), ".idx")):
        for name, st in store.listing(*sub):
            stale_temp = name.startswith(".tmp-") and st.st_mtime < before
            orphan = (
                suffix == ".idx"
                and not name.startswith(".")
                and is_spill_name(name.removesuffix(".idx"))
                and name.removesuffix(".idx") not in present
            )
            if stale_temp or orphan:
                store.unlink(name, *sub)
