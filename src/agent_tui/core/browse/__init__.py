"""The spill browser's core: what spills a session has, which path may be opened, and windows
exactly as ``read_file`` returns them. UI-free; every call costs what a window costs.

- ``list_spills``: the spill files of a store, newest first, with the tool and call that made
  each and what its input was, when, the size from the index header (the data is never read),
  and whether a live message still points to it;
- ``resolve_spill``: a pointer path (as the model sees it) to the spill file, or a
  ``SpillRefused`` that says what is wrong and what to do instead — outside the spill
  directory (also through ``..`` or a symlink; a spill directory that is itself a link, or
  has one on its way, is not the spill directory: its store uses a private one), not a spill
  file name, missing, not indexed;
- ``read_window``: the rows ``read_file(path, offset, limit)`` returns (read_file's own code),
  with its footer and the call that returns them; the rest of the windows (a long line's
  segments, paging back, copying) and bytes to lines are in ``windows``;
- ``delete_spill``: refused while a live message, a saved session or the reference record of
  another data dir's session points to the spill (``why_not_delete`` says why before
  asking).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from agent_tui.core.browse.windows import (
    COPY_MAX_BYTES,
    SpillWindow,
    WindowText,
    column_of_byte,
    last_segment,
    line_of_byte,
    line_start,
    segment_of,
    window_ending_at,
    window_of,
    window_text,
)
from agent_tui.core.budget.cleanup import message_texts, referenced_names
from agent_tui.core.budget.index import SpillIndex, SpillMeta
from agent_tui.core.budget.reader import SpillReader
from agent_tui.core.budget.store import SPILL_NAME, SpillStore, _safe, is_spill_name
from agent_tui.core.text.call_summary import call_summary
from agent_tui.core.transcript import Message

_PARTS = re.compile(r"(?P<when>\d{8}T\d{6}Z)-(?P<middle>[A-Za-z0-9_-]+?)-[0-9a-f]{4}\.txt")
NAMED_LIKE = "<UTC time>-<tool>-<call id>-<token>.txt"


class SpillRefused(Exception):
    """A spill that cannot be opened or deleted: ``what`` happened, ``hint`` says what to do."""

    def __init__(self, kind: str, what: str, hint: str) -> None:
        super().__init__(f"{what} {hint}")
        self.kind = kind
        """outside, not_spill, missing, not_indexed, referenced (a live message), saved (a
        saved session), empty"""
        self.what = what
        self.hint = hint


@dataclass(frozen=True)
class SpillEntry:
    """One spill file as the browser lists it."""

    path: Path
    shown: str
    """The path as the model sees it (relative to the cwd when inside it)."""
    tool: str
    call_id: str
    when: datetime
    """When it was written (UTC, from its name)."""
    bytes: int
    chars: int | None
    """From the index header; None when the index is missing or does not match the file."""
    lines: int | None
    referenced_by: str | None
    """Which live message points to it ("the result of run_shell call_1"…), or None."""
    summary: str = ""
    """The call's input in one line (its command, path or pattern): from the index, else from
    the live call that made it; empty when neither says (spills written before it was kept)."""

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def referenced(self) -> bool:
        return self.referenced_by is not None

    @property
    def indexed(self) -> bool:
        return self.chars is not None


def parse_name(name: str) -> tuple[datetime, str, str] | None:
    """(when, tool, call id) from a spill file name. The tool and the call id are joined by
    ``-``, which a tool name may contain too, so the last ``-`` is taken as the separator
    (call ids from providers do not contain one); ``list_spills`` prefers the live messages."""
    found = _PARTS.fullmatch(name)
    if found is None:
        return None
    when = datetime.strptime(found["when"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    tool, _, call_id = found["middle"].rpartition("-")
    return when, tool or found["middle"], call_id


def _producers(messages: Iterable[Message]) -> dict[str, tuple[str, str]]:
    """Spill name -> (tool, call id) of the tool result that made it (the first result that
    names it and whose tool and call id are the ones in the name)."""
    found: dict[str, tuple[str, str]] = {}
    for message in messages:
        if message.role != "tool" or not message.name or not message.tool_call_id:
            continue
        if "Z-" not in message.content:
            continue
        middle = f"-{_safe(message.name)}-{_safe(message.tool_call_id)}-"
        for name in SPILL_NAME.findall(message.content):
            if middle in name and name not in found:
                found[name] = (message.name, message.tool_call_id)
    return found


def _call_summaries(messages: Iterable[Message]) -> dict[str, str]:
    """Call id -> the summary of the call's input, for the calls of the live transcript."""
    return {
        call.id: call_summary(call)
        for message in messages
        if message.role == "assistant"
        for call in message.tool_calls
    }


def _who(message: Message) -> str:
    if message.role == "tool":
        return f"the result of {message.name or 'a tool'} {message.tool_call_id or ''}".rstrip()
    return "a message of the model" if message.role == "assistant" else "a user message"


def live_references(messages: Iterable[Message]) -> dict[str, str]:
    """Spill name -> a description of the first live message that points to it."""
    found: dict[str, str] = {}
    for message in messages:
        for name in referenced_names(message_texts([message])):
            found.setdefault(name, _who(message))
    return found


def _header(path: Path) -> tuple[int, int, SpillMeta] | None:
    """(chars, lines, meta) from the index of ``path``, or None when it has no valid one."""
    index = SpillIndex.open_for(path)
    if index is None:
        return None
    with index:
        return index.chars, index.lines, index.meta()


def list_spills(store: SpillStore, messages: Sequence[Message] = ()) -> list[SpillEntry]:
    """The spill files of ``store``, newest first. Reads only names, ``stat`` and index
    headers. Blocking (a few system calls per file): use a thread for long lists."""
    references = live_references(messages)
    producers = _producers(messages)
    summaries = _call_summaries(messages) if producers else {}
    entries: list[SpillEntry] = []
    for path in store.files():
        parsed = parse_name(path.name)
        if parsed is None:
            continue
        when, tool, call_id = parsed
        produced = producers.get(path.name)
        if produced is not None:
            tool, call_id = produced
        try:
            size = path.stat().st_size
        except OSError:
            continue  # deleted since it was listed
        header = _header(path)
        chars, lines, meta = header if header is not None else (None, None, SpillMeta())
        summary = meta.summary
        if not summary and produced is not None:
            summary = SpillMeta(summary=summaries.get(call_id, "")).summary
        entries.append(
            SpillEntry(
                path=path,
                shown=store.shown(path),
                tool=tool,
                call_id=call_id,
                when=when,
                bytes=size,
                chars=chars,
                lines=lines,
                referenced_by=references.get(path.name),
                summary=summary,
            )
        )
    entries.sort(key=lambda e: (e.when, e.name), reverse=True)
    return entries


def resolve_spill(store: SpillStore, path: str | Path) -> Path:
    """The spill file a pointer path names (relative paths are relative to the cwd), as the
    store names it; ``SpillRefused`` when it is not one this browser may open."""
    given = str(path).strip()
    if not given:
        raise SpillRefused("empty", "No spill path was given.", "Pick a spill from the list.")
    candidate = Path(given).expanduser()
    if not candidate.is_absolute():
        candidate = store.cwd / candidate
    spill_root = store.checked_root()  # a link on the way to it: the store's fallback
    root = Path(os.path.realpath(spill_root))
    real = Path(os.path.realpath(candidate))
    where = store.shown(spill_root)
    if real.parent != root and real.is_relative_to(root):
        raise SpillRefused(
            "not_spill",
            f"{given} is not a spill file (spill files are directly in {where}/, named "
            f"{NAMED_LIKE}).",
            "Pick a spill from the list.",
        )
    if real.parent != root:
        via = " (through a symlink)" if os.path.islink(candidate) else ""
        raise SpillRefused(
            "outside",
            f"{given} is outside the spill directory {where}/{via}.",
            "Only the outputs the budget saved there open in the spill browser; read other "
            "files with read_file or an editor.",
        )
    if not is_spill_name(real.name):
        raise SpillRefused(
            "not_spill",
            f"{given} is not a spill file (spill files are named {NAMED_LIKE}).",
            "Pick a spill from the list.",
        )
    spill = spill_root / real.name
    try:
        mode = os.stat(spill, follow_symlinks=False).st_mode
    except FileNotFoundError:
        raise SpillRefused(
            "missing",
            f"{given} does not exist any more: it was deleted (spill cleanup removes files no "
            "message refers to).",
            "The output cannot be recovered; re-run the call if you need it.",
        ) from None
    except OSError as exc:
        raise SpillRefused(
            "missing", f"{given} cannot be read: {exc.strerror or exc}.", "Check the file."
        ) from None
    if not stat.S_ISREG(mode):
        raise SpillRefused(
            "not_spill", f"{given} is not a regular file.", "Pick a spill from the list."
        )
    if _header(spill) is None:
        raise not_indexed(given)
    return spill


def not_indexed(shown: str) -> SpillRefused:
    return SpillRefused(
        "not_indexed",
        f"{shown} has no valid line index (it is missing, or the file changed after it was saved).",
        "read_file still reads it, by scanning the whole file; the browser opens only indexed "
        "spills, so it never has to load one.",
    )


def gone(shown: str) -> SpillRefused:
    return SpillRefused(
        "missing",
        f"{shown} was deleted while it was open.",
        "Pick another spill from the list.",
    )


def open_reader(path: Path, shown: str) -> SpillReader:
    """A reader of a spill, or ``SpillRefused`` when it vanished or its index went stale."""
    reader = SpillReader.open(path)
    if reader is None:
        raise gone(shown) if not path.exists() else not_indexed(shown)
    return reader


# -- windows (``windows``) ------------------------------------------------------------------


def read_window(path: Path, shown: str, offset: int, limit: int) -> SpillWindow:
    """Open the spill, read one window, close it: what ``read_file`` does for this call."""
    with open_reader(path, shown) as reader:
        return window_of(reader, shown, offset, limit)


# Deleting (``delete``) uses what is above: imported last, and re-exported from here.
from agent_tui.core.browse.delete import delete_spill, session_id, why_not_delete  # noqa: E402

__all__ = [
    "COPY_MAX_BYTES",
    "NAMED_LIKE",
    "SpillEntry",
    "SpillRefused",
    "SpillWindow",
    "WindowText",
    "column_of_byte",
    "delete_spill",
    "gone",
    "last_segment",
    "line_of_byte",
    "line_start",
    "list_spills",
    "live_references",
    "not_indexed",
    "open_reader",
    "parse_name",
    "read_window",
    "resolve_spill",
    "segment_of",
    "session_id",
    "why_not_delete",
    "window_ending_at",
    "window_of",
    "window_text",
]
