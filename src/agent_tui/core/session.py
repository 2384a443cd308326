"""Session transcripts as append-only JSONL files, and resuming them.

Each session is one file ``<data dir>/sessions/<UTC time>-<id>.jsonl``: a ``meta`` line
(id, cwd, model, created, and ``forked_from`` for a fork) followed by one ``message`` line per
transcript message and one ``checkpoint`` line per checkpoint record (``core.checkpoints``),
appended and flushed as they happen, so a crash loses at most the line being written. The
file keeps the whole history: a rewind of the conversation is a record that cuts the
transcript when the file is read, not a deletion. Beside the file, the directory of the same
name holds the session's other files: ``blobs/``, the contents its checkpoints kept.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.records import ENTRY_ADAPTER, CheckpointEntry, Rewound
from agent_tui.core.events import ToolErrorEvent
from agent_tui.core.paths import data_dir
from agent_tui.core.transcript import CallRecord, Message, ToolCall, Usage

log = logging.getLogger(__name__)


@dataclass
class SessionLog:
    id: str
    path: Path
    cwd: str
    model: str
    created: str
    messages: list[Message] = field(default_factory=list)
    skipped_lines: int = 0
    entries: list[CheckpointEntry] = field(default_factory=list)
    """The checkpoint records, in the order they happened (``core.checkpoints.records``)."""
    forked_from: str | None = None
    """The id of the session this one was forked from."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def files_dir(self) -> Path:
        """The session's own directory, beside its file (same name, no ``.jsonl``)."""
        return self.path.with_suffix("")

    @property
    def blobs(self) -> BlobStore:
        """Where its checkpoints keep file contents."""
        return BlobStore(self.files_dir / "blobs")

    def _write(self, entry: dict[str, object]) -> None:
        line = json.dumps(entry)
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()

    def append(self, message: Message) -> None:
        self._write({"type": "message", "message": message.model_dump(mode="json")})
        self.messages.append(message)

    def record(self, entry: CheckpointEntry) -> None:
        """Save a checkpoint record (from any thread); ``OSError`` when it could not be. A
        rewind of the conversation (``Rewound.messages``) cuts ``messages`` as reading the
        file back does; the file keeps the messages cut."""
        self._write({"type": "checkpoint", "entry": entry.model_dump(mode="json")})
        self.entries.append(entry)
        if isinstance(entry, Rewound) and entry.messages is not None:
            del self.messages[entry.messages :]

    @classmethod
    def load(cls, path: Path) -> SessionLog:
        """Read a session file; broken lines are skipped and counted, never fatal."""
        meta: dict[str, str] = {}
        messages: list[Message] = []
        entries: list[CheckpointEntry] = []
        skipped = 0
        with path.open(encoding="utf-8", errors="replace") as fh:
            for raw in fh:
                if not raw.strip():
                    continue
                try:
                    entry = json.loads(raw)
                    if entry.get("type") == "meta":
                        meta = entry
                    elif entry.get("type") == "message":
                        messages.append(Message.model_validate(entry["message"]))
                    elif entry.get("type") == "checkpoint":
                        record = ENTRY_ADAPTER.validate_python(entry["entry"])
                        entries.append(record)
                        if isinstance(record, Rewound) and record.messages is not None:
                            # live, the transcript was whole (repaired) when it was cut
                            messages = repair(messages)[: record.messages]
                except (json.JSONDecodeError, ValidationError, KeyError, AttributeError):
                    skipped += 1
        if skipped:
            log.warning("%s: skipped %d unreadable line(s)", path, skipped)
        session = cls(
            id=meta.get("id", path.stem.rsplit("-", 1)[-1]),
            path=path,
            cwd=meta.get("cwd", ""),
            model=meta.get("model", ""),
            created=meta.get("created", ""),
            messages=messages,
            skipped_lines=skipped,
            entries=entries,
            forked_from=meta.get("forked_from") or None,
        )
        session.messages = repair(messages)
        return session


def repair(messages: list[Message]) -> list[Message]:
    """Give tool calls left without a result (a crash mid-call) an 'interrupted' result."""
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    out: list[Message] = []
    pending: list[Message] = []
    for message in messages:
        if message.role == "tool":
            out.append(message)
            continue
        out.extend(pending)
        pending = []
        out.append(message)
        if message.role == "assistant" and message.tool_calls:
            pending = [
                interrupted_result(
                    call, "Interrupted: the session ended before this call finished."
                )
                for call in message.tool_calls
                if call.id not in answered
            ]
    out.extend(pending)
    return out


ENDED_MID_CALL = "Interrupted: the session ended before this call finished."


def interrupted_result(call: ToolCall, text: str) -> Message:
    """The result of a call that never finished (an interrupt, a crash): ``text`` for the
    model, an ``interrupted`` error for the front ends."""
    end = ToolErrorEvent(id=call.id, name=call.name, code="interrupted", message=text)
    return Message.tool(call, text, is_error=True, record=CallRecord.of(end))


def session_usage(messages: list[Message]) -> Usage:
    """The tokens of a transcript: the sum of its requests' usage (as the live session
    counted them)."""
    total = Usage()
    for message in messages:
        if message.usage is not None:
            total = total + message.usage
    return total


class SessionStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or (data_dir() / "sessions")

    def new(self, cwd: Path, model: str, *, forked_from: str | None = None) -> SessionLog:
        self.root.mkdir(parents=True, exist_ok=True)
        now = datetime.now(UTC)
        session_id = secrets.token_hex(4)
        path = self.root / f"{now:%Y%m%dT%H%M%S}-{session_id}.jsonl"
        created = now.isoformat(timespec="seconds")
        meta = {
            "type": "meta",
            "id": session_id,
            "cwd": str(cwd),
            "model": model,
            "created": created,
        }
        if forked_from is not None:
            meta["forked_from"] = forked_from
        with path.open("x", encoding="utf-8") as fh:
            fh.write(json.dumps(meta) + "\n")
        return SessionLog(session_id, path, str(cwd), model, created, forked_from=forked_from)

    def fork(self, session: SessionLog) -> SessionLog:
        """A new session (new id, new file) with ``session``'s whole history: every line of
        its file but the meta line, so it reads back to the same transcript and checkpoints;
        the kept contents are linked (or copied) into its own directory. Blocking."""
        fork = self.new(Path(session.cwd), session.model, forked_from=session.id)
        with session._lock, session.path.open("rb") as src, fork.path.open("ab") as dst:
            first = True
            for line in src:
                if first:
                    first = False
                    try:
                        if json.loads(line).get("type") == "meta":
                            continue
                    except (json.JSONDecodeError, AttributeError):
                        pass
                dst.write(line if line.endswith(b"\n") else line + b"\n")
        session.blobs.copy_to(fork.blobs)
        return SessionLog.load(fork.path)

    def all(self) -> list[Path]:
        """Session files, newest first."""
        if not self.root.is_dir():
            return []
        return sorted(self.root.glob("*.jsonl"), key=lambda p: p.name, reverse=True)

    def latest(self, cwd: Path) -> SessionLog | None:
        """The most recent session started in ``cwd``."""
        wanted = os.path.realpath(cwd)
        for path in self.all():
            try:
                with path.open(encoding="utf-8") as fh:
                    meta = json.loads(fh.readline() or "{}")
            except (OSError, json.JSONDecodeError):
                continue
            if os.path.realpath(meta.get("cwd", "")) == wanted:
                return SessionLog.load(path)
        return None

    def find(self, session_id: str) -> SessionLog | None:
        """A session by id (or unique id prefix), or by file path."""
        candidate = Path(session_id)
        if candidate.suffix == ".jsonl" and candidate.is_file():
            return SessionLog.load(candidate)
        matches = [p for p in self.all() if p.stem.rsplit("-", 1)[-1].startswith(session_id)]
        if len(matches) == 1:
            return SessionLog.load(matches[0])
        return None
