"""Where sessions live: ``SessionStore`` makes a new session file, forks one, and finds one to
resume (the latest of a folder, or by id or path), loading it only when its seal says agent-tui
wrote it as it is (``session_seal``); ``in_use_note`` says a run went on in a fork because
another process writes its session."""

from __future__ import annotations

import json
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path

from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_read import read_header
from agent_tui.core.conversation.session_seal import (
    Doubted,
    Keeper,
    SessionDoubted,
    create_sealed,
    read_session,
)
from agent_tui.core.state.paths import data_dir


class SessionStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or (data_dir() / "sessions")
        self.passed_over: list[Path] = []
        """The session files the last ``latest`` could not read the header of."""

    def new(self, cwd: Path, model: str, *, forked_from: str | None = None) -> SessionLog:
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
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
        keeper = create_sealed(path, (json.dumps(meta) + "\n").encode("utf-8"))
        session = SessionLog(session_id, path, str(cwd), model, created, forked_from=forked_from)
        session.keeper = keeper
        session.claim()  # new: nobody else can hold it
        return session

    def fork(self, session: SessionLog) -> SessionLog:
        """A new session (new id, new file) with ``session``'s whole history: every line of
        its file but the meta line, so it reads back to the same transcript and checkpoints;
        the kept contents are linked (or copied) into its own directory. Blocking."""
        lines = session.sealed_bytes().split(b"\n")  # checked as a load checks it
        if lines and not lines[-1]:
            lines.pop()
        if lines:
            try:
                if json.loads(lines[0]).get("type") == "meta":
                    del lines[0]
            except (json.JSONDecodeError, AttributeError):
                pass
        fork = self.new(Path(session.cwd), session.model, forked_from=session.id)
        if lines:  # one sealed append, as crash-safe as any
            failure = fork.append_bytes(b"".join(line + b"\n" for line in lines))
            if failure is not None:
                raise failure
        session.blobs.copy_to(fork.blobs)
        session.images.copy_to(fork.images)  # its chips show and its images are sent again
        loaded = SessionLog.load(fork.path)
        loaded.writer = fork.writer  # the lock new() took goes with it
        loaded.keeper = fork.keeper  # and what its writer sealed
        return loaded

    def all(self) -> list[Path]:
        """Session files, newest first."""
        if not self.root.is_dir():
            return []
        return sorted(self.root.glob("*.jsonl"), key=lambda p: p.name, reverse=True)

    def latest(self, cwd: Path) -> SessionLog | None:
        """The most recent session started in ``cwd``; ``SessionDoubted`` when it is not as
        agent-tui last wrote it (``core.state.seals``). A newer file whose header cannot be
        read (so whose folder is unknown) is not passed over in silence: it is named in the
        session's ``notes`` (or in ``passed_over`` when none is found), with how to resume
        it."""
        wanted = os.path.realpath(cwd)
        self.passed_over = []
        for path in self.all():
            meta = read_header(path)
            if meta is None:
                self.passed_over.append(path)
                continue
            if os.path.realpath(str(meta.get("cwd", ""))) == wanted:
                session = self.load(path, latest_of=cwd)
                session.notes.extend(self.passed_over_notes())
                return session
        return None

    def passed_over_notes(self) -> list[str]:
        """What ``latest`` passed over, each with how to resume it."""
        return [
            f"{path}: a newer session file whose first line is not a session header (damaged?) "
            f"was passed over; if it is this folder's, resume it with "
            f"`agent-tui --resume {path}`"
            for path in self.passed_over
        ]

    def find(self, session_id: str) -> SessionLog | None:
        """A session by id (or unique id prefix), or by file path; ``SessionDoubted`` when it
        is not as agent-tui last wrote it."""
        candidate = Path(session_id)
        if candidate.suffix == ".jsonl" and candidate.is_file():
            return self.load(candidate)
        matches = [p for p in self.all() if p.stem.rsplit("-", 1)[-1].startswith(session_id)]
        if len(matches) == 1:
            return self.load(matches[0])
        return None

    def load(self, path: Path, *, latest_of: Path | None = None) -> SessionLog:
        """Read the session file ``path`` after checking its seal: ``SessionDoubted`` when
        something else wrote it (shipped in a repository, copied, changed by another program,
        writable by another user). ``latest_of``: it was picked as the latest of that
        directory (for the message)."""
        try:
            found = read_session(path)
        except Doubted as doubted:
            raise SessionDoubted(path, doubted.why, latest_of) from None
        session = SessionLog.load(path, found.data)
        session.keeper = Keeper(path, found)
        return session


def in_use_note(original: SessionLog, fork: SessionLog, holder: str) -> str:
    """What a run that found its session in use by another process says: it went on in a
    fork (two writers would interleave their turns in one file)."""
    return (
        f"session {original.id} is in use by another agent-tui ({holder}): this run goes on "
        f"in a fork of it, session {fork.id}, with the same history; the original stays with "
        "the process writing it"
    )
