"""The agent's checkpoints and rewind: each turn's checkpoint, and going back to before one.

With a session file, each turn of an ``Agent`` (``agent``) gets a checkpoint (``checkpoint``:
its start recorded, the file tools' changes kept before they are made, the workspace watched
for what other tools change; ``core.checkpoints``). ``turns``, ``preview_rewind`` and
``rewind`` read those records to list the turns and go back to before one: its code, its
conversation or both (the plan and the restore are ``core.rewind``), recording the rewind in
the session file so a resumed session shows the rewound state.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.checkpoints.plan import Outside, outside_changes, start_of
from agent_tui.core.checkpoints.records import Rewound, TurnStarted
from agent_tui.core.checkpoints.turn import TurnCheckpoint, TurnRecorder, WorkspaceWatch
from agent_tui.core.conversation.rewind import (
    RewindError,
    RewindPreview,
    RewindReport,
    RewindWhat,
    TurnSummary,
    find_turn,
    last_rewind,
    list_turns,
    preview,
    restore_code,
)
from agent_tui.core.conversation.session import session_usage

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent

log = logging.getLogger(__name__)
PROMPT_KEPT = 200
"""Characters of a prompt its ``TurnStarted`` record keeps (the transcript has it whole)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def turns(agent: Agent) -> list[TurnSummary]:
    """The turns of the transcript, oldest first, with the files each changed."""
    entries = agent.session.entries if agent.session is not None else []
    return list_turns(agent.messages, entries, agent.cwd)


def undoable_rewind(agent: Agent) -> TurnSummary | None:
    """The latest code rewind, if it changed files: ``rewind(its id, "code")`` undoes it."""
    return last_rewind(agent.session.entries, agent.cwd) if agent.session is not None else None


async def preview_rewind(agent: Agent, turn: str) -> RewindPreview:
    """What ``rewind(turn, ...)`` would do, the files read as they are now (in a thread)."""
    await agent.settle()
    summary = find(agent, turn)
    session = agent.session
    entries = list(session.entries) if session is not None else []
    blobs = session.blobs if session is not None else None
    count = len(agent.messages)
    return await asyncio.to_thread(preview, summary, count, entries, blobs, agent.cwd)


def find(agent: Agent, turn: str) -> TurnSummary:
    entries = agent.session.entries if agent.session is not None else []
    return find_turn(turn, agent.messages, entries, agent.cwd)


async def rewind(
    agent: Agent, turn: str, what: RewindWhat = "both", *, overwrite: Collection[str] = ()
) -> RewindReport:
    """Go back to before ``turn`` (a ``TurnSummary.id``): its code, its conversation or
    both (see ``core.rewind``). ``overwrite``: files changed by someone else since that
    may be overwritten all the same (paths as previewed). The session file records it,
    so a resumed session shows the rewound state. ``RewindError`` when it cannot be done
    (its text says why), ``AgentBusy`` during a turn."""
    agent._idle("rewind")
    await agent.settle()
    summary = find(agent, turn)
    code = what in ("code", "both")
    conversation = what in ("conversation", "both")
    if summary.kind == "rewind" and conversation:
        raise RewindError("Undoing a rewind restores files only; the conversation stays.")
    session = agent.session
    if code and (session is None or not summary.checkpointed):
        raise RewindError(
            f"Turn {summary.number} has no checkpoint, so its files cannot be restored "
            "(the session was saved before checkpoints existed, or is not saved)."
        )
    rewind_id = "rw-" + secrets.token_hex(4)
    record = Rewound(
        turn=rewind_id,
        target=summary.id,
        at=_now(),
        code=code,
        conversation=conversation,
        messages=summary.message_index if conversation else None,
    )
    agent.rewinding = True
    try:
        if session is not None:
            await asyncio.to_thread(session.record, record)
        files = None
        if code:
            assert session is not None
            files = await asyncio.to_thread(
                restore_code,
                summary,
                list(session.entries),
                session.blobs,
                agent.cwd,
                rewind_id,
                session.record,
                overwrite,
            )
            for path in files.touched:  # what the model read there is not there now
                agent.file_state.forget(Path(path))
        dropped = 0
        if conversation:
            dropped = len(agent.messages) - summary.message_index
            del agent.messages[summary.message_index :]
            agent.usage = session_usage(agent.messages)
            agent.file_state.clear()  # the model no longer saw what it read after that
    finally:
        agent.rewinding = False
    if conversation:
        await agent.collect_spills()
    entries = session.entries if session is not None else []
    start = start_of(entries, summary.id)
    return RewindReport(
        summary,
        what,
        files=files,
        messages_dropped=dropped,
        prompt=summary.prompt if summary.kind == "turn" else "",
        outside=outside_changes(entries, start, agent.cwd) if start is not None else Outside(),
    )


def checkpoint(agent: Agent, turn: str, prompt: str) -> TurnCheckpoint | None:
    """The checkpoint of a new turn (None without a session file), its start recorded."""
    session = agent.session
    if session is None:
        return None
    try:
        session.record(TurnStarted(turn=turn, at=_now(), prompt=prompt[:PROMPT_KEPT]))
    except OSError as exc:  # the recorder will fail too, and refuse to write files unkept;
        # the user hears of it by the session's error event (a traceback here would print)
        log.info("recording the start of a turn failed: %s", exc)
    watch = WorkspaceWatch(agent.cwd, turn, session.record, skip=unwatched(agent))
    files = TurnRecorder(turn, session.blobs, session.record, on_write=watch.wrote)
    return TurnCheckpoint(turn, files, watch)


def unwatched(agent: Agent) -> list[str]:
    """Directories a workspace scan skips: the spills and the sessions, when inside it."""
    spills = Path(agent.settings.budget.spill_dir)
    found = [str(spills if spills.is_absolute() else agent.cwd / spills)]
    if agent.session is not None:
        found.append(str(agent.session.path.parent))
    return found


__all__ = [
    "PROMPT_KEPT",
    "checkpoint",
    "find",
    "preview_rewind",
    "rewind",
    "turns",
    "undoable_rewind",
    "unwatched",
]
