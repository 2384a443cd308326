"""A session's transcript as an append-only JSONL file: ``SessionLog``, its one writer.

Reading a file back is ``session_read``; making, forking and finding sessions is
``session_store``; making a read-back transcript whole is ``repair``.

Each session is one file ``<data dir>/sessions/<UTC time>-<id>.jsonl``: a ``meta`` line
(id, cwd, model, created, and ``forked_from`` for a fork) followed by one ``message`` line per
transcript message and one ``checkpoint`` line per checkpoint record (``core.checkpoints``),
appended as they happen and ``fsync``-ed at the end of each turn. The file keeps the whole
history: a rewind of the conversation is a record that cuts the transcript when the file is
read, not a deletion, and a compaction (``compaction`` line, ``core.conversation.compaction``) is a
record that folds its first messages into a summary when the file is read; the folded messages stay
(``folded``). Beside the file, the directory of the same name holds the session's
other files: ``blobs/``, the contents its checkpoints kept, and ``<id>.jsonl``, the session as
Claude Code's transcript for hooks (``claude_export``, made from this file).

An append is whole lines in one ``write``. If the write fails midway (disk full, a file size
limit) the partial line is cut back off and the message lines are kept to be written with the
next append; if it could not be cut off (or the process died mid-write) the file ends in a
torn line: the reader skips it and says so (``problems``), and the next append starts on a
fresh line, so the next prompt is not written onto it and lost.

Each write seals the file (``NAME.jsonl.seal``: its inode, size, change time and hash,
``core.state.seals``), announcing it first as pending (``core.conversation.session_seal``); the
store loads a session (``latest``, ``find``, ``load``) only when its seal matches or the file is a
pending append a crash interrupted, so a session file shipped in a repository cloned as the home
directory, copied in, or rewritten by another program is not continued until the user accepts
it (``agent-tui trust --session ID``), while a ``kill -9`` mid-append never asks. Files are
mode 0600 and never opened through a link.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.records import CheckpointEntry, Rewound
from agent_tui.core.conversation.repair import repair
from agent_tui.core.conversation.session_lock import SessionLock
from agent_tui.core.conversation.session_read import line_list, read_lines
from agent_tui.core.conversation.session_seal import (
    Doubted,
    Keeper,
    SessionDoubted,
    append_sealed,
    read_session,
    sync_seal,
)
from agent_tui.core.events import ToolResult
from agent_tui.core.transcript import Message, Usage

if TYPE_CHECKING:
    from agent_tui.core.conversation.claude_export import ClaudeExport
    from agent_tui.core.conversation.compaction import Compacted

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
    """Lines that could not be read (the torn tail among them), skipped."""
    torn_tail: int = 0
    """Bytes of a last line that a write did not finish (no newline, not valid), skipped."""
    recovered: int = 0
    """Messages read back from a line an earlier append had run into a torn line with."""
    skipped_at: list[int] = field(default_factory=list)
    """The line numbers (from 1) of the lines skipped."""
    replaced_at: list[int] = field(default_factory=list)
    """The line numbers of lines read with bytes that are not UTF-8 (each replaced by U+FFFD)."""
    notes: list[str] = field(default_factory=list)
    """What choosing this session passed over (``SessionStore.latest``: a newer session file
    that could not be read), for the front ends to show with ``problems``."""
    entries: list[CheckpointEntry] = field(default_factory=list)
    """The checkpoint records, in the order they happened (``core.checkpoints.records``)."""
    forked_from: str | None = None
    """The id of the session this one was forked from."""
    folded: list[Message] = field(default_factory=list)
    """The messages compactions took out of the transcript, oldest first: still in the file,
    shown above the summary when the session is resumed."""
    compactions: list[Compacted] = field(default_factory=list)
    unsaved: list[str] = field(default_factory=list)
    """Message lines not written yet: the append failed (disk full, file size limit); each
    append, record and ``sync`` tries them again, first."""
    problem: str | None = None
    """Why the last write failed, until one succeeds (``take_problem`` reports it once)."""
    doubt: str | None = None
    """Set when another program changed the file during the session (``_still_ours``)."""
    _reported: bool = False
    _doubt_reported: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    writer: SessionLock | None = field(default=None, repr=False, compare=False)
    """The lock that makes this process the session's one writer (``claim``); the store hands
    it on to the log of a fork it read back."""
    keeper: Keeper | None = field(default=None, repr=False, compare=False)
    """What this writer last sealed (``core.conversation.session_seal``): set by the store that
    made or loaded the file, else made by the first append."""
    on_write: Callable[[bytes], None] | None = field(default=None, repr=False, compare=False)
    """Given every line before it is written (the spill reference record scans them for the
    spills the session points to: ``core.budget.refs_writer``)."""
    unwritable: OSError | None = field(default=None, repr=False, compare=False)
    """Why the file could not even be made (``unsaved_session``): the reason every failed
    write of it gives, rather than that the file is missing."""
    claude: ClaudeExport | None = field(default=None, repr=False, compare=False)
    """Its Claude Code transcript, for hooks (``claude_transcript``)."""

    @classmethod
    def unsaved_session(cls, root: Path, cwd: Path, model: str, why: OSError) -> SessionLog:
        """A session that cannot be written anywhere (``why``): the run goes on with it, each
        write fails and is reported once, and the end of the run says what was lost."""
        now = datetime.now(UTC)
        session_id = secrets.token_hex(4)
        path = root / f"{now:%Y%m%dT%H%M%S}-{session_id}.jsonl"
        session = cls(session_id, path, str(cwd), model, now.isoformat(timespec="seconds"))
        session.unwritable = why
        session.notes.append(
            f"the session cannot be saved ({why.strerror or why}: {why.filename or root}): "
            "this conversation is kept in memory only"
        )
        return session

    def claim(self) -> str | None:
        """Become the one process that writes this session (``core.conversation.session_lock``):
        None when this process now holds it, else who does (``pid 1234``)."""
        if self.writer is None:
            self.writer = SessionLock(self.path)
        return self.writer.claim()

    def release(self) -> None:
        """Stop being its writer (the session was left, or the process ends)."""
        if self.writer is not None:
            self.writer.release()

    @property
    def files_dir(self) -> Path:
        """The session's own directory, beside its file (same name, no ``.jsonl``)."""
        return self.path.with_suffix("")

    def claude_transcript(self) -> ClaudeExport:
        """The session as Claude Code's transcript, for hooks (``claude_export``):
        ``<files_dir>/<id>.jsonl``, made once."""
        with self._lock:
            if self.claude is None:
                from agent_tui.core.conversation.claude_export import ClaudeExport

                target = self.files_dir / f"{self.id}.jsonl"
                self.claude = ClaudeExport(self.path, target, self.id, self.cwd)
            return self.claude

    @property
    def blobs(self) -> BlobStore:
        """Where its checkpoints keep file contents."""
        return BlobStore(self.files_dir / "blobs")

    @property
    def images(self) -> BlobStore:
        """Where its images are kept (``core.images.store``), by content as the blobs are."""
        return BlobStore(self.files_dir / "images")

    def sealed_bytes(self) -> bytes:
        """The file's content, checked as a load checks it (``SessionDoubted`` when something
        else wrote it), read under the lock so no append of this process is half in it."""
        with self._lock:
            try:
                return read_session(self.path).data
            except Doubted as doubted:
                raise SessionDoubted(self.path, doubted.why) from None

    def append(self, message: Message) -> None:
        """Add ``message`` and save it: whole lines in one write (any the last append could
        not save first), starting on a fresh line if the file ends in an unfinished one. A
        failed write is cut back off the file and remembered in ``unsaved`` and ``problem``:
        it never raises, the conversation goes on."""
        line = json.dumps({"type": "message", "message": message.model_dump(mode="json")})
        with self._lock:
            self.messages.append(message)
            self.unsaved.append(line + "\n")
            self._write()

    def record(self, entry: CheckpointEntry) -> None:
        """Save a checkpoint record (from any thread); ``OSError`` when it could not be (then
        it is not kept to be written later: the caller acts on its failure). A rewind of the
        conversation (``Rewound.messages``) cuts ``messages`` as reading the file back does;
        the file keeps the messages cut."""
        line = json.dumps({"type": "checkpoint", "entry": entry.model_dump(mode="json")})
        with self._lock:
            self.unsaved.append(line + "\n")
            failure = self._write()
            if failure is not None:
                self.unsaved.pop()  # the message lines before it stay unsaved
                self._failed(failure)
                raise failure
            self.entries.append(entry)
            if isinstance(entry, Rewound) and entry.messages is not None:
                del self.messages[entry.messages :]

    def compact(self, record: Compacted) -> Message:
        """Save a compaction and apply it: the first ``record.folded`` messages of the
        transcript become the summary message (returned). ``OSError`` when the record could
        not be saved: then nothing changed, in memory or in the file."""
        line = json.dumps({"type": "compaction", "record": record.model_dump(mode="json")})
        with self._lock:
            self.unsaved.append(line + "\n")
            failure = self._write()
            if failure is not None:
                self.unsaved.pop()
                self._failed(failure)
                raise failure
            return self._fold(record)

    def _fold(self, record: Compacted) -> Message:
        from agent_tui.core.conversation.compaction import summary_message

        summary = summary_message(record)
        self.folded.extend(self.messages[: record.folded])
        self.messages[: record.folded] = [summary]
        self.compactions.append(record)
        return summary

    def sync(self) -> None:
        """At the end of a turn: write what is unsaved and ``fsync`` the file, so the turn is
        on disk, not only in the page cache. Failures go to ``problem``."""
        with self._lock:
            if self._write() is not None:
                return
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
                sync_seal(self.path)  # the seal on disk with the turn, after it
            except OSError as exc:
                self._failed(exc)

    def take_problem(self) -> str | None:
        """A write failure not reported yet (once for a run of failures), or that the file
        was changed by another program (once), or None."""
        if self.doubt is not None and not self._doubt_reported:
            self._doubt_reported = True
            return self.doubt
        if self.problem is None or self._reported:
            return None
        self._reported = True
        return self.problem

    def _write(self) -> OSError | None:
        """Write ``unsaved`` (under ``_lock``); the error if it failed, after taking the
        partial line back off the file and noting the failure in ``problem``."""
        if not self.unsaved:
            return None
        failure = self.append_bytes("".join(self.unsaved).encode("utf-8"))
        if failure is None:
            self.unsaved.clear()
            self.problem, self._reported = None, False
        return failure

    def append_bytes(self, data: bytes) -> OSError | None:
        """Append ``data`` (whole lines, as they are: a fork's copied history) in one write,
        sealed (``core.conversation.session_seal``); the error if it failed, after taking the
        partial line back off (``_failed`` notes it)."""
        if self.keeper is None:
            self.keeper = Keeper(self.path)
        if self.on_write is not None:
            self.on_write(data)
        try:
            append_sealed(self.path, self.keeper, data, self._still_ours)
        except OSError as exc:
            self._failed(exc)
            return exc
        return None

    def _still_ours(self, ours: bool) -> None:
        """Before an append (under the lock): note when the file is not as agent-tui last
        sealed it — another program changed it during the session. The append still happens
        (nothing is lost) but is not sealed: a later load doubts the file and asks the user,
        rather than a seal vouching for what another program wrote."""
        if not ours and self.doubt is None:
            self.doubt = (
                f"the session file {self.path} was changed by another program during this "
                "session: agent-tui goes on saving to it but no longer vouches for it, so "
                "--continue and --resume will not load it until you accept it "
                f"(`agent-tui trust --session {self.id}`)"
            )  # said once, by ``take_problem`` (an error event; on stderr in headless runs)

    def _failed(self, exc: OSError) -> None:
        if self.unwritable is not None and isinstance(exc, FileNotFoundError):
            exc = self.unwritable
        count = len(self.unsaved)
        first = self.problem is None
        self.problem = (
            f"the session could not be saved to {self.path}: {exc.strerror or exc}; "
            f"{count} line{'s are' if count != 1 else ' is'} kept in memory and written with "
            "the next save that works (until then --continue would not see "
            f"{'them' if count != 1 else 'it'}); if none works before the end, the run says "
            "what was lost"
        )
        if first:  # once for a run of failures; the user hears of it by an error event
            log.info("%s", self.problem)

    def finish(self) -> str | None:
        """At the end of a run: one more try to write what is unsaved; what still cannot be
        written goes to a rescue file in the temporary directory (another disk, often). None
        when everything is saved, else what was not saved and where it is, said once."""
        with self._lock:
            if not self.unsaved:
                return None
            failure = self._write()
            if failure is None:
                return None
            lines = list(self.unsaved)
        count = sum(1 for line in lines if line.startswith('{"type": "message"'))
        what = f"{count} message{'s' if count != 1 else ''} of this run"
        if self.unwritable is not None and isinstance(failure, FileNotFoundError):
            failure = self.unwritable
        why = failure.strerror or str(failure)
        rescue = _rescue(self.id, lines)
        if rescue is not None:
            where = (
                f"they were written to {rescue} instead; to keep them, append that file to "
                f"the session file (cat {rescue} >> {self.path}) and accept the session as "
                f"yours again (agent-tui trust --session {self.id})"
            )
        else:
            where = "nothing could be written elsewhere either: they are lost"
        return (
            f"{what} could not be saved to {self.path} ({why}): {where}. The session file "
            "holds the conversation before them."
        )

    def problems(self) -> list[str]:
        """What reading the file found wrong, for the front ends to show at resume."""
        out = []
        name = self.path.name
        if self.torn_tail:
            out.append(
                f"{name}: its last line was cut off ({self.torn_tail:,} bytes: a write that "
                "did not finish — disk full, or a crash) and is skipped"
            )
        others = self.skipped_lines - (1 if self.torn_tail else 0)
        if others:
            where = line_list(
                self.skipped_at[: len(self.skipped_at) - (1 if self.torn_tail else 0)]
            )
            out.append(
                f"{self.path}: {others} unreadable line(s) skipped ({where}); the rest of the "
                "session is here"
            )
        if self.replaced_at:
            out.append(
                f"{self.path}: {line_list(self.replaced_at)} held bytes that are not UTF-8, shown "
                "as \ufffd; the rest of each line was read"
            )
        if self.recovered:
            out.append(
                f"{name}: {self.recovered} message(s) recovered from a line written onto an "
                "unfinished one"
            )
        return [*self.notes, *out]

    @classmethod
    def load(cls, path: Path, data: bytes | None = None) -> SessionLog:
        """Read a session file (``data``: its content, already read); broken lines are
        skipped and counted, never fatal. A last line without its newline that does not parse
        is a torn tail (``torn_tail``); a line that does not parse but ends in a whole entry
        (an append that ran onto a torn line) gives that entry back. The seal is not checked
        here: ``SessionStore.load`` does."""
        if data is None:
            data = path.read_bytes()
        read = read_lines(data)
        if read.skipped:
            log.warning("%s: skipped %d unreadable line(s)", path, read.skipped)
        meta = read.meta
        session = cls(
            id=meta.get("id", path.stem.rsplit("-", 1)[-1]),
            path=path,
            cwd=meta.get("cwd", ""),
            model=meta.get("model", ""),
            created=meta.get("created", ""),
            messages=read.messages,
            skipped_lines=read.skipped,
            torn_tail=read.torn,
            recovered=read.recovered,
            skipped_at=read.skipped_at,
            replaced_at=read.replaced_at,
            entries=read.entries,
            forked_from=meta.get("forked_from") or None,
            folded=read.folded,
            compactions=read.compactions,
        )
        session.messages = repair(read.messages)
        return session


def _rescue(session_id: str, lines: list[str]) -> Path | None:
    """Write ``lines`` to a new file in the temporary directory; its path, or None."""
    import tempfile

    try:
        fd, name = tempfile.mkstemp(prefix=f"agent-tui-unsaved-{session_id}-", suffix=".jsonl")
    except OSError:
        return None
    try:
        _write_all(fd, "".join(lines).encode("utf-8"))
        os.fsync(fd)
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name)
        return None
    os.close(fd)
    return Path(name)


def _write_all(fd: int, data: bytes) -> None:
    """``data`` to ``fd``; a short write (a file size limit reached) goes on until an error."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def session_usage(messages: list[Message]) -> Usage:
    """The tokens of a transcript: the sum of its requests' usage (as the live session
    counted them), subagents' (``task`` results) included."""
    total = Usage()
    for message in messages:
        if message.usage is not None:
            total = total + message.usage
        if message.compaction is not None and message.compaction.usage is not None:
            total = total + message.compaction.usage  # the summarizer's requests
        end = message.record.end if message.record is not None else None
        if isinstance(end, ToolResult) and end.subagent is not None:
            total = total + end.subagent.usage
    return total


__all__ = ["SessionDoubted", "SessionLog", "session_usage"]
