"""Rewinding a session: the turns it can go back to, what going back would do, and doing it.

A turn is one user message and all that followed it until the next. Rewinding to before a turn
can restore the **code** (every file the agent's file tools and its commands changed from that
turn on, back as it was before; files they created are deleted), the **conversation** (the
transcript cut just before that turn's message: the model forgets the turn and what followed),
or both. What ``run_shell`` (or any tool that does not report its changes) did where the
workspace's shadow keeps nothing (ignored files, files too big) cannot be restored: a preview
lists it. A file changed by someone else since the agent last wrote it, or inside ``.git``, is
only overwritten when named in ``overwrite``; whatever a restore overwrites is kept first, so a
code rewind can itself be undone (``rewind`` to the rewind's own id). See ``core.checkpoints``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.plan import (
    FilePreview,
    Outside,
    changed_by,
    outside_changes,
    plan_files,
    preview_file,
    shown_path,
    start_of,
)
from agent_tui.core.checkpoints.records import (
    CheckpointEntry,
    FileAfter,
    FileBefore,
    Rewound,
    ShellChanges,
    TurnStarted,
)
from agent_tui.core.checkpoints.restore import RESTORING, RestoreReport, restore_files
from agent_tui.core.checkpoints.turn import Sink
from agent_tui.core.transcript import Message

RewindWhat = Literal["code", "conversation", "both"]
OLD_TURN = "msg-"
"""The id given to a user message of a transcript older than checkpoints: ``msg-<index>``
(its conversation can be rewound; it has no checkpoint)."""


class RewindError(Exception):
    """The rewind asked for cannot be done (unknown turn, nothing to restore…); the text says
    why, for people."""


@dataclass(frozen=True)
class TurnSummary:
    """One turn a rewind can go back to."""

    id: str
    number: int
    """1 for the transcript's first turn; 0 for a rewind (``kind``)."""
    message_index: int
    """Where its user message is in the transcript (-1 for a rewind)."""
    prompt: str
    at: str | None
    """When it began (UTC, ISO seconds); None when not recorded."""
    files: tuple[str, ...] = ()
    """The files its file tools changed (as shown: relative to the cwd when inside)."""
    outside: int = 0
    """Files other tools (run_shell) changed in it: not restorable."""
    checkpointed: bool = False
    """The session has its checkpoint: its code can be rewound."""
    kind: Literal["turn", "rewind"] = "turn"


@dataclass(frozen=True)
class RewindPreview:
    """What rewinding to before ``turn`` would do."""

    turn: TurnSummary
    files: tuple[FilePreview, ...] = ()
    """The files a code rewind would change (and those it cannot: ``unavailable``)."""
    unchanged: int = 0
    """Files changed since that already hold their old content again."""
    outside: Outside = field(default_factory=Outside)
    messages_dropped: int = 0
    """Messages a conversation rewind takes out of the transcript."""

    @property
    def conflicts(self) -> tuple[FilePreview, ...]:
        """Files changed by someone else since, and files inside ``.git``: overwritten only
        when asked for by name."""
        return tuple(f for f in self.files if (f.changed_since or f.git) and f.action in RESTORING)

    @property
    def restorable(self) -> tuple[FilePreview, ...]:
        return tuple(f for f in self.files if f.action in RESTORING)


@dataclass(frozen=True)
class RewindReport:
    """What a rewind did."""

    turn: TurnSummary
    what: RewindWhat
    files: RestoreReport | None = None
    """None when the code was not rewound."""
    messages_dropped: int = 0
    prompt: str = ""
    """The rewound turn's prompt (for the prompt box, to edit and send again)."""
    outside: Outside = field(default_factory=Outside)


def list_turns(
    messages: Sequence[Message], entries: Sequence[CheckpointEntry], cwd: Path
) -> list[TurnSummary]:
    """The turns of ``messages``, oldest first, with what their checkpoints say."""
    starts = {e.turn: e for e in entries if isinstance(e, TurnStarted)}
    outside: dict[str, set[str]] = {}
    for entry in entries:
        if isinstance(entry, ShellChanges):
            outside.setdefault(entry.turn, set()).update(c.path for c in entry.changes)
    turns: list[TurnSummary] = []
    for index, message in enumerate(messages):
        if message.role != "user" or message.injected:  # typed during a turn: part of it
            continue
        turn_id = message.turn or f"{OLD_TURN}{index}"
        start = starts.get(turn_id)
        turns.append(
            TurnSummary(
                id=turn_id,
                number=len(turns) + 1,
                message_index=index,
                prompt=message.prompt,
                at=start.at if start is not None else None,
                files=tuple(shown_path(p, cwd) for p in changed_by(entries, turn_id)),
                outside=len(outside.get(turn_id, ())),
                checkpointed=start is not None,
            )
        )
    return turns


def last_rewind(entries: Sequence[CheckpointEntry], cwd: Path) -> TurnSummary | None:
    """The code rewind that made the latest change to files, if it did: undoing it puts them
    back as they were just before it. None once a turn has changed files since (going back
    to before the rewind would undo that turn too: rewind to the turn instead)."""
    latest = next((e for e in reversed(entries) if isinstance(e, (FileBefore, FileAfter))), None)
    if latest is None:
        return None
    rewind = next(
        (e for e in entries if isinstance(e, Rewound) and e.turn == latest.turn and e.code), None
    )
    if rewind is None:
        return None
    files = changed_by(entries, rewind.turn)
    if not files:
        return None
    return TurnSummary(
        id=rewind.turn,
        number=0,
        message_index=-1,
        prompt="the code rewind",
        at=rewind.at,
        files=tuple(shown_path(p, cwd) for p in files),
        checkpointed=True,
        kind="rewind",
    )


def find_turn(
    turn_id: str,
    messages: Sequence[Message],
    entries: Sequence[CheckpointEntry],
    cwd: Path,
) -> TurnSummary:
    for summary in list_turns(messages, entries, cwd):
        if summary.id == turn_id:
            return summary
    undo = last_rewind(entries, cwd)
    if undo is not None and undo.id == turn_id:
        return undo
    raise RewindError(f"No turn {turn_id!r} in this conversation (it may have been rewound away).")


def preview(
    turn: TurnSummary,
    messages_count: int,
    entries: Sequence[CheckpointEntry],
    blobs: BlobStore | None,
    cwd: Path,
) -> RewindPreview:
    """What rewinding to before ``turn`` would do, reading the files as they are now.
    Blocking."""
    dropped = messages_count - turn.message_index if turn.kind == "turn" else 0
    start = start_of(entries, turn.id)
    if start is None or blobs is None:
        return RewindPreview(turn, messages_dropped=dropped)
    plans = plan_files(entries, start)
    previews = [preview_file(plan, cwd, blobs) for plan in plans]
    shown = tuple(p for p in previews if p.action != "unchanged")
    return RewindPreview(
        turn,
        shown,
        unchanged=len(previews) - len(shown),
        outside=outside_changes(entries, start, cwd, {p.path for p in plans}),
        messages_dropped=dropped,
    )


def restore_code(
    turn: TurnSummary,
    entries: Sequence[CheckpointEntry],
    blobs: BlobStore,
    cwd: Path,
    rewind: str,
    sink: Sink,
    overwrite: Collection[str],
) -> RestoreReport:
    """Put the files back as they were before ``turn`` (the ``Rewound`` record is already in
    ``entries``, so what this restore does is recorded under ``rewind``). Blocking."""
    start = start_of(entries, turn.id)
    if start is None:
        return RestoreReport()
    # the plan of everything from the turn on, but not this rewind's own records
    end = start_of(entries, rewind)
    plans = plan_files(entries[:end] if end is not None else entries, start)
    return restore_files(plans, cwd, blobs, rewind, sink, overwrite)
