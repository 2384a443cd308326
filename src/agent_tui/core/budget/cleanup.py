"""Spill cleanup: a spill file is deleted only when nothing can still point at it.

A spill is *referenced* while its file name appears in a message of the live transcript
(tool results carry the pointer; the model may quote the path in its text or in a read_file
call) or in any saved session file (a session can be resumed, and its pointers must work).
Unreferenced files are deleted; age alone never deletes anything. The one age rule protects
young files: a spill written in the last ``grace`` seconds is kept even when unreferenced,
because another agent in the same directory may not have recorded its message yet.

Images and audio that MCP results saved to ``<spill dir>/mcp-media/`` follow the same rule:
results point to them by path, so they go when nothing refers to them any more.

Everything is listed and deleted by name relative to the spill directory's descriptor, reached
without following a link: a symlinked spill directory (or a link named like a spill) never
makes cleanup delete what it points to.

Run it when a session ends and after the transcript shrinks (compaction): ``Agent.close()``
and ``Agent.collect_spills()`` do.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.budget.index import INDEX_DIR
from agent_tui.core.budget.store import SPILL_NAME, SpillStore, is_spill_name
from agent_tui.core.transcript import Message

GRACE_SECONDS = 3600.0
MEDIA_DIR = "mcp-media"
"""Inside the spill directory: media files of MCP results (``core.mcp.adapter.MediaStore``)."""
MEDIA_NAME = re.compile(r"\d{8}T\d{6}Z-[A-Za-z0-9_-]+?-[0-9a-f]{4}\.[A-Za-z0-9]{1,8}")


@dataclass
class CleanupReport:
    deleted: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    young: list[Path] = field(default_factory=list)
    """Unreferenced but inside the grace period."""


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


def _names_in_files(paths: Iterable[Path], wanted: set[str], pattern: re.Pattern[str]) -> set[str]:
    """Which of ``wanted`` appear in the files ``paths`` (streamed line by line)."""
    found: set[str] = set()
    for path in paths:
        if found >= wanted:
            break
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if "Z-" in line:
                        found.update(n for n in pattern.findall(line) if n in wanted)
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


def collect_spills(
    store: SpillStore,
    messages: Iterable[Message],
    session_files: Iterable[Path] = (),
    *,
    grace: float = GRACE_SECONDS,
    now: float | None = None,
) -> CleanupReport:
    """Delete the spill files (and MCP media files) of ``store`` that nothing refers to.
    Blocking: use a thread."""
    report = CleanupReport()
    now = time.time() if now is None else now
    _remove_leftovers(store, now - grace)
    texts = list(message_texts(messages))
    sessions = list(session_files)
    spills = [(n, st) for n, st in store.listing() if is_spill_name(n)]
    media = [(n, st) for n, st in store.listing(MEDIA_DIR) if MEDIA_NAME.fullmatch(n)]
    kinds = ((spills, SPILL_NAME, ()), (media, MEDIA_NAME, (MEDIA_DIR,)))
    for files, pattern, sub in kinds:
        files = [(n, st) for n, st in files if stat.S_ISREG(st.st_mode)]
        if not files:
            continue
        unreferenced = {n for n, _ in files} - referenced_names(texts, pattern)
        if unreferenced:
            unreferenced -= _names_in_files(sessions, unreferenced, pattern)
        _sweep(store, files, sub, unreferenced, now - grace, report)
    return report


def _sweep(
    store: SpillStore,
    files: list[tuple[str, os.stat_result]],
    sub: tuple[str, ...],
    unreferenced: set[str],
    before: float,
    report: CleanupReport,
) -> None:
    """Delete the unreferenced files older than ``before``: each by name in the spill
    directory's descriptor (``store.unlink``), so a link never makes it delete elsewhere."""
    directory = store.root.joinpath(*sub)
    for name, st in files:
        path = directory / name
        if name not in unreferenced:
            report.kept.append(path)
            continue
        if st.st_mtime > before:
            report.young.append(path)
            continue
        if sub:
            store.unlink(name, *sub)
        else:
            store.remove(path)
        report.deleted.append(path)


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
