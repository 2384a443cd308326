"""The spills of a session as the browser lists them: ``list_spills`` reads only names,
``stat`` and index headers (the data is never read), and names the tool and call that made each,
what its input was, and whether a live message still points to it (``live_references``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from agent_tui.core.budget.cleanup import message_texts, referenced_names
from agent_tui.core.budget.index import SpillIndex, SpillMeta
from agent_tui.core.budget.store import SPILL_NAME, SpillStore, name_part
from agent_tui.core.calls import call_summary
from agent_tui.core.transcript import Message

_PARTS = re.compile(r"(?P<when>\d{8}T\d{6}Z)-(?P<middle>[A-Za-z0-9_-]+?)-[0-9a-f]{4}\.txt")
NAMED_LIKE = "<UTC time>-<tool>-<call id>-<token>.txt"


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
        middle = f"-{name_part(message.name)}-{name_part(message.tool_call_id)}-"
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


def index_header(path: Path) -> tuple[int, int, SpillMeta] | None:
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
        header = index_header(path)
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
