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
  with its footer and the call that returns them; ``window_ending_at`` for paging back and
  jumping to the end under read_file's 100,000-character window cap; ``window_text``: the
  lines of a window as the file has them (what the browser copies);
- ``delete_spill``: refused while a live message, a saved session or the reference record of
  another data dir's session points to the spill (``why_not_delete`` says why before
  asking).
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from agent_tui.core.budget.cleanup import message_texts, referenced_names
from agent_tui.core.budget.index import SpillIndex, SpillMeta
from agent_tui.core.budget.reader import SpillReader
from agent_tui.core.budget.store import SPILL_NAME, SpillStore, _safe, is_spill_name
from agent_tui.core.call_summary import call_summary
from agent_tui.core.tools.builtin import read_file
from agent_tui.core.tools.builtin._read_window import numbered_row
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


# -- windows --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpillWindow:
    """Lines ``offset..last`` of a spill, as ``read_file(shown, offset, limit)`` returns them."""

    shown: str
    offset: int
    limit: int
    rows: tuple[str, ...]
    """read_file's rows: ``{line:>6}\\t{text}``, long lines cut with a marker."""
    last: int
    """The last line shown (0 when nothing is): read_file's window cap may end it early."""
    total: int
    capped: bool
    cut: tuple[tuple[int, int], ...]
    """(line, its length in chars) of each line shown cut."""
    final_newline: bool
    footer: str
    """read_file's footer for this window (its whole output for an empty file)."""

    @property
    def empty(self) -> bool:
        return not self.rows

    @property
    def at_end(self) -> bool:
        return self.last >= self.total

    @property
    def call(self) -> str:
        """The read_file call that returns exactly this window."""
        return read_file.window_call(self.shown, self.offset, self.limit)

    @property
    def span(self) -> str:
        """``lines a–b of N``."""
        if self.empty:
            return f"0 lines of {self.total:,}" if self.total else "empty file: 0 lines"
        return f"lines {self.offset:,}–{self.last:,} of {self.total:,}"

    def contains(self, line: int) -> bool:
        return bool(self.rows) and self.offset <= line <= self.last

    def text(self) -> str:
        """The window as read_file returns it to the model: the rows and the footer."""
        return "\n".join([*self.rows, self.footer])

    def row_index(self, line: int) -> int | None:
        return line - self.offset if self.contains(line) else None


def window_of(reader: SpillReader, shown: str, offset: int, limit: int) -> SpillWindow:
    """The window from ``offset`` (clamped into the file) of an open reader."""
    total = reader.lines
    limit = max(1, min(limit, read_file.MAX_LINES))
    offset = max(1, min(offset, max(total, 1)))
    if total == 0:
        return SpillWindow(
            shown, 1, limit, (), 0, 0, False, (), reader.ends_with_newline, "[empty file: 0 lines]"
        )
    rows = read_file.spill_rows(reader, offset, limit)
    final_newline = reader.ends_with_newline
    return SpillWindow(
        shown=shown,
        offset=offset,
        limit=limit,
        rows=tuple(rows.rows),
        last=rows.last,
        total=total,
        capped=rows.capped,
        cut=tuple(rows.cut),
        final_newline=final_newline,
        footer=read_file.rows_footer(shown, offset, rows, total, final_newline, limit),
    )


def read_window(path: Path, shown: str, offset: int, limit: int) -> SpillWindow:
    """Open the spill, read one window, close it: what ``read_file`` does for this call."""
    with open_reader(path, shown) as reader:
        return window_of(reader, shown, offset, limit)


def window_ending_at(reader: SpillReader, end_line: int, limit: int) -> int:
    """The offset of the window that ends at ``end_line``: the first line from which read_file
    returns ``end_line`` within ``limit`` lines and its character cap. For ``G`` (the last
    window) and ``PgUp`` (the window before). Reads at most ``limit`` rows."""
    end_line = max(1, min(end_line, reader.lines))
    limit = max(1, min(limit, read_file.MAX_LINES))
    first = max(1, end_line - limit + 1)
    sizes = [
        len(numbered_row(row.line, row.text, row.chars)) + 1
        for row in reader.rows(first, end_line - first + 1, read_file.MAX_LINE_CHARS)
    ]
    used, start = 0, end_line
    for at in range(len(sizes) - 1, -1, -1):
        if used and used + sizes[at] > read_file.MAX_WINDOW_CHARS:
            break
        used += sizes[at]
        start = first + at
    return start


COPY_MAX_BYTES = 1 << 20
"""The most ``window_text`` reads: a copy of a window of huge lines stops there."""


@dataclass(frozen=True)
class WindowText:
    """The text of a window's lines, exactly as the file has them."""

    text: str
    complete: bool
    """False when the lines held more than ``COPY_MAX_BYTES``: ``text`` is their start."""


def window_text(
    reader: SpillReader, window: SpillWindow, max_bytes: int = COPY_MAX_BYTES
) -> WindowText:
    """Lines ``window.offset..window.last`` as the file has them: no line numbers, no footer,
    cut lines whole, line endings kept (``\\r\\n`` too; none after a last line that has
    none). One ``pread`` of at most ``max_bytes``; undecodable bytes become U+FFFD, as
    read_file shows them."""
    if window.empty:
        return WindowText("", True)
    index = reader.index
    start = index.line_start(window.offset)
    end = index.data_bytes if window.last >= index.lines else index.line_start(window.last + 1)
    size = min(end - start, max_bytes)
    data = os.pread(reader.fd, size, start)
    if len(data) < end - start:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        return WindowText(decoder.decode(data), False)  # an unfinished character is left out
    return WindowText(data.decode("utf-8", "replace"), True)


# -- lines and bytes ------------------------------------------------------------------------


def line_start(index: SpillIndex, line: int) -> int:
    """The byte offset where ``line`` (1-based) starts."""
    return index.line_start(line)


def line_of_byte(index: SpillIndex, byte: int) -> int:
    """The line holding byte ``byte`` (a binary search of the index's line starts)."""
    return index.line_at(byte)


def column_of_byte(reader: SpillReader, line: int, byte: int) -> int:
    """Characters between the start of ``line`` and ``byte``: decoded from the nearest index
    checkpoint, so at most one checkpoint step of text is read even inside a huge line."""
    index = reader.index
    start = index.line_start(line)
    char, base = 0, start
    if byte - start > 4 * index.step:
        found = index.checkpoint_before(byte)
        if found is not None and found[0] == line:
            char, base = found[1], found[2]
    return char + len(os.pread(reader.fd, byte - base, base).decode("utf-8", "replace"))


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
    "line_of_byte",
    "line_start",
    "list_spills",
    "live_references",
    "not_indexed",
    "open_reader",
    "parse_name",
    "read_window",
    "resolve_spill",
    "session_id",
    "why_not_delete",
    "window_ending_at",
    "window_of",
    "window_text",
]
