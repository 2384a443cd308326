"""Reading a session file back: its lines parsed into a ``ReadBack`` (the meta line, the
messages, checkpoint records and compactions, applied as they happened), broken lines skipped
and counted, never fatal. A last line without its newline that does not parse is a torn tail;
a line that does not parse but ends in a whole entry (an append that ran onto a torn line)
gives that entry back. The seal is not checked here: ``session_store.SessionStore.load`` does.

A message line as agent-tui writes it is parsed and validated in one pass (``_message``: the
JSON parsed by pydantic straight into the ``Message``, about half the time of ``json.loads``
then ``model_validate``); any line that pass does not take whole — not UTF-8, a lone surrogate
escape, anything it finds invalid — is read the general way, which decides what it is (read,
cleaned, salvaged or skipped), so both ways read every file the same.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from agent_tui.core.checkpoints.records import CheckpointEntry, Rewound, entry_adapter
from agent_tui.core.conversation.repair import repair
from agent_tui.core.text.utf8 import SURROGATE_FREE
from agent_tui.core.transcript import Message

if TYPE_CHECKING:  # a session with a compaction imports it (issue 45)
    from agent_tui.core.conversation.compaction import Compacted

_ENTRY_START = re.compile(rb'\{"type": ?"(?:message|meta|checkpoint|compaction)"')
"""Where a session line starts: a line an unfinished write left is followed, in files written
before appends began on a fresh line, by a whole line on the same line."""
_MESSAGE_LINE = b'{"type": "message", "message": {'
"""How a message line ``SessionLog.append`` writes begins (``json.dumps``' separators)."""


class _MessageLine(BaseModel):
    """A message line, for ``_message``."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["message"]
    message: Message


@functools.cache
def _message_line() -> TypeAdapter[_MessageLine]:
    """Built on ``Message``'s own validator, built first: the line's adds ~1 ms to it, and the
    first message the resumed session makes (its next prompt) does not build it then, on the
    event loop (~13 ms; this runs in the thread that loads the session)."""
    Message.model_rebuild()
    return TypeAdapter(_MessageLine)


def _message(raw: bytes) -> Message | None:
    """The message of a line ``SessionLog.append`` wrote (``raw``: UTF-8), parsed and
    validated in one pass; None when that pass does not take it whole. Its JSON parser refuses
    what ``json.loads`` refuses and a lone surrogate escape too, so every string it gives is
    UTF-8 encodable: the models' cleaning (``core.text.utf8``) is told so and skipped."""
    if not raw.startswith(_MESSAGE_LINE):
        return None
    try:
        return _message_line().validate_json(raw, context=SURROGATE_FREE).message
    except ValidationError:
        return None


@dataclass
class ReadBack:
    """What a session file's lines say, before they become a ``SessionLog``."""

    meta: dict[str, Any] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    entries: list[CheckpointEntry] = field(default_factory=list)
    folded: list[Message] = field(default_factory=list)
    compactions: list[Compacted] = field(default_factory=list)
    skipped: int = 0
    recovered: int = 0
    torn: int = 0
    skipped_at: list[int] = field(default_factory=list)
    replaced_at: list[int] = field(default_factory=list)


def read_lines(data: bytes) -> ReadBack:
    """The entries of a session file's content ``data``, applied in order (a rewind cuts the
    transcript, a compaction folds it); broken lines skipped and counted."""
    meta: dict[str, Any] = {}
    messages: list[Message] = []
    entries: list[CheckpointEntry] = []
    folded: list[Message] = []
    compactions: list[Compacted] = []
    skipped = recovered = torn = 0
    skipped_at: list[int] = []
    replaced_at: list[int] = []
    lines = data.split(b"\n")
    for number, raw in enumerate(lines):
        if not raw.strip():
            continue
        if raw.isascii() or _utf8(raw):
            message = _message(raw)
            if message is not None:
                messages.append(message)
                continue
        else:
            replaced_at.append(number + 1)
        entry = _entry(raw)
        if entry is None:
            entry = _salvage(raw)
            skipped += 1  # the unfinished line before what is salvaged is lost
            skipped_at.append(number + 1)
            if entry is None:
                if number == len(lines) - 1:  # no newline after it: a write cut short
                    torn = len(raw)
                continue
            recovered += 1
        kind = entry.get("type")
        try:
            if kind == "meta":
                meta = entry
            elif kind == "message":
                messages.append(Message.model_validate(entry.get("message")))
            elif kind == "checkpoint":
                record = entry_adapter().validate_python(entry.get("entry"))
                entries.append(record)
                if isinstance(record, Rewound) and record.messages is not None:
                    # live, the transcript was whole (repaired) when it was cut
                    messages = repair(messages)[: record.messages]
            elif kind == "compaction":
                from agent_tui.core.conversation.compaction import Compacted, summary_message

                compaction = Compacted.model_validate(entry.get("record"))
                messages = repair(messages)  # live, it was whole when it was folded
                folded.extend(messages[: compaction.folded])
                messages[: compaction.folded] = [summary_message(compaction)]
                compactions.append(compaction)
        except ValidationError:
            skipped += 1
            skipped_at.append(number + 1)
    return ReadBack(
        meta=meta,
        messages=messages,
        entries=entries,
        folded=folded,
        compactions=compactions,
        skipped=skipped,
        recovered=recovered,
        torn=torn,
        skipped_at=skipped_at,
        replaced_at=replaced_at,
    )


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def line_list(numbers: list[int]) -> str:
    """``line 3`` / ``lines 3, 7 and 12`` / ``lines 3, 7, 12… (40 in all)``."""
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    shown = ", ".join(str(n) for n in numbers[:5])
    if len(numbers) > 5:
        return f"lines {shown}… ({len(numbers)} in all)"
    head, _, last = shown.rpartition(", ")
    return f"lines {head} and {last}"


def read_header(path: Path) -> dict[str, Any] | None:
    """The meta line of a session file (read as bytes: a byte that is not UTF-8 further on
    must not hide the session), or None when the first line is not one. Only a regular file
    is read: a FIFO named like a session must not block, a device not be opened."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            first = fh.readline(1 << 20)
    except OSError:
        return None
    entry = _entry(first)
    return entry if entry is not None and entry.get("type") == "meta" else None


def _entry(raw: bytes) -> dict[str, Any] | None:
    """A session line parsed, or None when it is not a JSON object."""
    try:
        entry = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        return None
    return entry if isinstance(entry, dict) else None


def _salvage(raw: bytes) -> dict[str, Any] | None:
    """The whole entry at the end of a broken line: the line an append wrote onto a torn
    line, which only the torn part spoils."""
    for match in _ENTRY_START.finditer(raw, 1):
        entry = _entry(raw[match.start() :])
        if entry is not None:
            return entry
    return None
