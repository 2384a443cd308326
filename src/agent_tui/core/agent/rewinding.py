"""The agent's checkpoints and rewind: each turn's checkpoint, and going back to before one.

With a session file, each turn gets a checkpoint (``Rewinder.checkpoint``: its start recorded,
the file tools' changes kept before they are made, the workspace watched for what other tools
change; ``core.checkpoints``); its last workspace scan ends after the turn (``close_later``,
``settle``). ``turns``, ``preview_rewind`` and ``rewind`` read those records to list the turns
and go back to before one: its code, its conversation or both (the plan and the restore are
``core.conversation.rewind``), recording the rewind in the session file so a resumed session
shows the rewound state. What it reads of the agent is ``RewindHost``; the session and the
transcript are the shared ``ConversationState``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_tui.core.agent.control import RunControl
from agent_tui.core.agent.conversation_state import ConversationState
from agent_tui.core.budget import CleanupReport
from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.journal import Journal
from agent_tui.core.checkpoints.records import Rewound, TurnStarted
from agent_tui.core.checkpoints.scan import MAX_ENTRIES
from agent_tui.core.checkpoints.shadow import Shadow
from agent_tui.core.checkpoints.shadow_index import NAME, load_shadow, save_shadow
from agent_tui.core.checkpoints.turn import TurnCheckpoint, TurnRecorder, WorkspaceWatch
from agent_tui.core.conversation.session import session_usage
from agent_tui.core.jobs import JobManager
from agent_tui.core.settings import Settings
from agent_tui.core.tools.file_state import FileStateCache

if TYPE_CHECKING:  # a rewind, or the list of turns, imports its plan and restore (issue 45)
    from agent_tui.core.conversation.rewind import (
        RewindPreview,
        RewindReport,
        RewindWhat,
        TurnSummary,
    )

log = logging.getLogger(__name__)
PROMPT_KEPT = 200
WARM_BYTES = 64 << 20
"""What the first snapshot reads at most when the session starts, before any command: a git
checkout's clean files are not read at all, and a big plain directory (a home) is not copied
for a session that never runs a command; the first command's refresh reads the rest."""
"""Characters of a prompt its ``TurnStarted`` record keeps (the transcript has it whole)."""


def _now() -> str:
    """The time of a record: UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class JobsOwner(Protocol):
    @property
    def jobs(self) -> JobManager: ...


class RewindHost(Protocol):
    """What the checkpoints and a rewind read of the agent."""

    @property
    def executor(self) -> JobsOwner: ...

    @property
    def cwd(self) -> Path: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def file_state(self) -> FileStateCache: ...

    async def collect_spills(self, grace: float | None = None) -> CleanupReport: ...


class Rewinder:
    """The turns' checkpoints of one agent, and its rewinds."""

    def __init__(
        self, host: RewindHost, conversation: ConversationState, control: RunControl
    ) -> None:
        self.host = host
        self.conversation = conversation
        self.control = control
        self.settling: asyncio.Future[None] | None = None
        """The last turn's checkpoint finishing (its last workspace scan) after the turn
        (``settle``)."""
        self.last: TurnCheckpoint | None = None
        """The checkpoint of the turn that ended last, until the next starts: a background
        job may go on changing files after it (``settle`` records them)."""
        self.shadow: Shadow | None = None
        """The workspace's shadow, for the session's blob store (``core.checkpoints.shadow``)."""
        self.warming: threading.Thread | None = None
        """The shadow's first refresh, started with the session (``warm``)."""
        self._first = False
        self.journal: Journal | None = None
        """The workspace's change journal: each scan but the first a drain of it."""

    def checkpoint(self, turn: str, prompt: str) -> TurnCheckpoint | None:
        """The checkpoint of a new turn (None without a session file), its start recorded."""
        session = self.conversation.session
        self.last = None
        if session is None:
            return None
        try:
            session.record(TurnStarted(turn=turn, at=_now(), prompt=prompt[:PROMPT_KEPT]))
        except OSError as exc:  # the recorder will fail too, and refuse to write files unkept;
            # the user hears of it by the session's error event (a traceback here would print)
            log.info("recording the start of a turn failed: %s", exc)
        if self.shadow is None or self.shadow.blobs.root != session.blobs.root:
            self._new_shadow(session.blobs)
        watch = WorkspaceWatch(
            self.host.cwd,
            turn,
            session.record,
            skip=self.unwatched(),
            shadow=self.shadow,
            outside=self.writable_outside(),
            journal=self._journal(),
        )
        if self._first:  # the first scan, while the model answers (a command waits for it,
            self._first = False  # and it for what ``warm`` has left to read)
            watch.prepare()
        files = TurnRecorder(turn, session.blobs, session.record, on_write=watch.wrote)
        return TurnCheckpoint(turn, files, watch)

    def warm(self) -> None:
        """The session started: the shadow's first refresh starts now, in a thread, so that
        it is done before the first command in the normal case (the first command waits for
        what is left: the refresh holds the shadow's lock). Nothing without a session file,
        or when the shadow is the session's already."""
        session = self.conversation.session
        if session is None:
            return
        if self.shadow is not None and self.shadow.blobs.root == session.blobs.root:
            return
        shadow = self._new_shadow(session.blobs)
        journal = self._journal()
        saved = session.files_dir / NAME  # a resumed session's: only what changed is read

        def first_refresh() -> None:
            try:
                load_shadow(shadow, saved)
                scan = journal.scan()
                shadow.refresh(scan, read_at_most=WARM_BYTES)
            except Exception:  # the first command's scan does it again
                log.exception("the workspace's first snapshot failed")

        self.warming = threading.Thread(target=first_refresh, name="shadow", daemon=True)
        self.warming.start()

    async def close(self) -> None:
        """The session is closing: a first refresh still running ends early, the last turn's
        checkpoint is completed (``settle``), and the shadow saved beside the session (a
        resumed session then reads only what changed since)."""
        shadow, session = self.shadow, self.conversation.session
        if shadow is not None:
            shadow.stop()
        await self.settle()
        if self.journal is not None:  # its watches end with the session
            journal, self.journal = self.journal, None
            await asyncio.to_thread(journal.close)
        if shadow is not None:  # its git process ends with the session
            await asyncio.to_thread(shadow.close)
        if shadow is None or session is None or shadow.blobs.root != session.blobs.root:
            return
        try:
            await asyncio.to_thread(save_shadow, shadow, session.files_dir / NAME)
        except OSError as exc:  # the next resume reads the workspace again
            log.info("saving the workspace's shadow failed: %s", exc)

    def _journal(self) -> Journal:
        """The journal of the scans ``WorkspaceWatch`` makes here (a new one where it moved)."""
        root, skip = str(self.host.cwd), self.unwatched()
        if self.journal is None or not self.journal.matches(root, skip, MAX_ENTRIES, True):
            if self.journal is not None:
                self.journal.close()
            self.journal = Journal(root, skip=skip, ignores=True)
        return self.journal

    def _new_shadow(self, blobs: BlobStore) -> Shadow:
        if self.shadow is not None:
            self.shadow.close()
        self.shadow = Shadow(str(self.host.cwd), blobs)
        self._first = True
        return self.shadow

    def close_later(self, checkpoint: TurnCheckpoint) -> None:
        """The turn of ``checkpoint`` ended: its last scan ends in the background (``settle``)."""
        self.last = checkpoint
        self.settling = asyncio.ensure_future(checkpoint.close())

    async def settle(self) -> None:
        """Wait until the last turn's checkpoint is complete (its last workspace scan, which
        ends after the turn, recorded)."""
        pending, self.settling = self.settling, None
        if pending is not None:
            try:
                await asyncio.shield(pending)
            except Exception:
                log.exception("finishing a checkpoint failed")
        await self._catch_up()

    async def _catch_up(self) -> None:
        """What a background job changed after the last turn's last scan, recorded as that
        turn's (``WorkspaceWatch.catch_up``: to be confirmed by name in a rewind). Only when a
        job ran since that scan, and the session is still the one of that turn."""
        last, session = self.last, self.conversation.session
        if last is None or last.watch.last_scan is None or session is None:
            return
        shadow = last.watch.shadow
        if shadow is None or shadow is not self.shadow or shadow.blobs.root != session.blobs.root:
            return
        since = last.watch.last_scan[0]
        infos = self.host.executor.jobs.infos()
        if not any(job.running or (job.ended or 0.0) >= since for job in infos):
            return
        try:
            await last.watch.catch_up("background job")
        except Exception:
            log.exception("recording what a background job changed failed")

    def writable_outside(self) -> list[str]:
        """The directories ``sandbox.allow_write`` names (resolved as the sandbox resolves
        them): what a command changes there is listed, not restored (``OutsideWatch``)."""
        cwd = self.host.cwd.resolve()
        found = []
        for item in self.host.settings.sandbox.allow_write:
            path = Path(item).expanduser()
            found.append(str((path if path.is_absolute() else cwd / path).resolve()))
        return found

    def unwatched(self) -> list[str]:
        """Directories a workspace scan skips: the spills and the sessions, when inside it."""
        spills = Path(self.host.settings.budget.spill_dir)
        found = [str(spills if spills.is_absolute() else self.host.cwd / spills)]
        if self.conversation.session is not None:
            found.append(str(self.conversation.session.path.parent))
        return found

    def turns(self) -> list[TurnSummary]:
        """The turns of the transcript, oldest first, with the files each changed."""
        from agent_tui.core.conversation.rewind import list_turns

        state = self.conversation
        entries = state.session.entries if state.session is not None else []
        return list_turns(state.messages, entries, self.host.cwd)

    def undoable_rewind(self) -> TurnSummary | None:
        """The latest code rewind, if it changed files: ``rewind(its id, "code")`` undoes it."""
        from agent_tui.core.conversation.rewind import last_rewind

        session = self.conversation.session
        return last_rewind(session.entries, self.host.cwd) if session is not None else None

    def find(self, turn: str) -> TurnSummary:
        """The turn ``turn`` names (``RewindError`` when there is none)."""
        from agent_tui.core.conversation.rewind import find_turn

        state = self.conversation
        entries = state.session.entries if state.session is not None else []
        return find_turn(turn, state.messages, entries, self.host.cwd)

    async def preview_rewind(self, turn: str) -> RewindPreview:
        """What ``rewind(turn, ...)`` would do, the files read as they are now (in a thread)."""
        from agent_tui.core.conversation.rewind import preview

        await self.settle()
        summary = self.find(turn)
        session = self.conversation.session
        entries = list(session.entries) if session is not None else []
        blobs = session.blobs if session is not None else None
        count = len(self.conversation.messages)
        return await asyncio.to_thread(preview, summary, count, entries, blobs, self.host.cwd)

    async def rewind(
        self, turn: str, what: RewindWhat = "both", *, overwrite: Collection[str] = ()
    ) -> RewindReport:
        """Go back to before ``turn`` (a ``TurnSummary.id``): its code, its conversation or
        both (see ``core.conversation.rewind``). ``overwrite``: files changed by someone else
        since that may be overwritten all the same (paths as previewed). The session file
        records it, so a resumed session shows the rewound state. ``RewindError`` when it
        cannot be done (its text says why), ``AgentBusy`` during a turn."""
        from agent_tui.core.checkpoints.plan import Outside, outside_changes, start_of
        from agent_tui.core.conversation.rewind import RewindError, RewindReport, restore_code

        self.control.idle("rewind")
        await self.settle()
        summary = self.find(turn)
        code = what in ("code", "both")
        conversation = what in ("conversation", "both")
        if summary.kind == "rewind" and conversation:
            raise RewindError("Undoing a rewind restores files only; the conversation stays.")
        state, cwd = self.conversation, self.host.cwd
        session = state.session
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
        self.control.rewinding = True
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
                    cwd,
                    rewind_id,
                    session.record,
                    overwrite,
                )
                for path in files.touched:  # what the model read there is not there now
                    self.host.file_state.forget(Path(path))
                # a background job's later changes are no longer told apart from the rewind's
                # own: the next turn's first scan starts afresh
                self.last = None
            dropped = 0
            if conversation:
                dropped = len(state.messages) - summary.message_index
                del state.messages[summary.message_index :]
                # as a resume counts it: what the compactions folded too (not only the
                # transcript, which after a compaction holds a fraction of the session)
                state.usage = session_usage([*state.folded, *state.messages])
                self.host.file_state.clear()  # the model no longer saw what it read after that
        finally:
            self.control.rewinding = False
        if conversation:
            await self.host.collect_spills()
        entries = session.entries if session is not None else []
        start = start_of(entries, summary.id)
        return RewindReport(
            summary,
            what,
            files=files,
            messages_dropped=dropped,
            prompt=summary.prompt if summary.kind == "turn" else "",
            outside=outside_changes(entries, start, cwd) if start is not None else Outside(),
        )


__all__ = ["PROMPT_KEPT", "RewindHost", "Rewinder"]
