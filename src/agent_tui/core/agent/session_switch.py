"""The conversation's session file: taking another one, letting it go, its spill references.

``SessionSwitch`` puts a new, a resumed or a forked session file in the conversation state
(``conversation_state``), with the transcript, what was folded and the usage it holds; the file
the conversation leaves is released (another process may take it). While a session is the
agent's, its writes feed the spill store's reference record (``core.budget.refs_writer``:
which spills it points to, for the cleanups of every data dir), unless the store is shared
(a subagent's is its parent's). ``finish`` ends the session when the agent closes.

What the agent resets besides (read files, session allows, memory, the inbox) stays the
``Agent``'s.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from agent_tui.core.agent.conversation_state import ConversationState
from agent_tui.core.budget import SpillStore
from agent_tui.core.conversation.session import SessionLog, session_usage
from agent_tui.core.conversation.session_store import SessionStore, in_use_note
from agent_tui.core.hooks import Hooks, session_end
from agent_tui.core.transcript import Usage

log = logging.getLogger(__name__)


class SessionSwitch:
    """Which session file the conversation is saved to, and the change to another."""

    def __init__(
        self, conversation: ConversationState, spills: SpillStore, *, owns_spills: bool
    ) -> None:
        self.conversation = conversation
        self.spills = spills
        self.owns_spills = owns_spills
        """False when the store is shared (a subagent's), whose record is the parent's."""

    def refer(self, session: SessionLog | None) -> None:
        """Keep ``session``'s reference record beside the spills from now on. Blocking (reads
        a resumed session's file when the spill directory exists)."""
        if not self.owns_spills or session is None:
            return
        saved = session.unwritable is None
        self.spills.refs.attach(session.id, session.path if saved else None, scan=True)
        session.on_write = self.spills.refs.saw

    def _let_go(self) -> None:
        """The conversation's session is no longer the agent's: its writes are not watched
        any more, and it is released."""
        session = self.conversation.session
        if session is None:
            return
        if session.on_write == self.spills.refs.saw:
            session.on_write = None
        session.release()

    async def new(
        self, store: SessionStore, cwd: Path, model: str, hooks: Hooks | None = None
    ) -> SessionLog:
        """An empty conversation, saved to a new session file of ``store``; the old one's
        SessionEnd hooks run first (reason ``clear``, as after Claude Code's ``/clear``)."""
        await session_end(hooks, "clear")
        session = await asyncio.to_thread(store.new, cwd, model)
        self._let_go()
        await asyncio.to_thread(self.refer, session)
        state = self.conversation
        state.session, state.messages, state.usage = session, [], Usage()
        state.folded = []
        return session

    async def resume(
        self, store: SessionStore, path: Path, hooks: Hooks | None = None
    ) -> SessionLog:
        """The conversation saved in ``path`` (``OSError`` when it cannot be read;
        ``SessionDoubted`` when it is not as agent-tui last wrote it); in a fork of it when
        another process writes it. Once it is read, the old conversation's SessionEnd hooks
        run (reason ``resume``)."""
        state = self.conversation
        session = await asyncio.to_thread(store.load, path)
        if state.session is not None and session.path != state.session.path:
            await session_end(hooks, "resume")
        if state.session is None or session.path != state.session.path:
            holder = session.claim()
            if holder is not None:  # written by another process: go on in a fork of it
                fork = await asyncio.to_thread(store.fork, session)
                fork.notes.append(in_use_note(session, fork, holder))
                session = fork
            self._let_go()
        await asyncio.to_thread(self.refer, session)
        messages = list(session.messages)
        state.folded = list(session.folded)
        usage = session_usage([*state.folded, *messages])
        state.session, state.messages, state.usage = session, messages, usage
        return session

    async def fork(self, store: SessionStore) -> SessionLog:
        """A copy of the conversation's session file (new id, same transcript and
        checkpoints) goes on in its place; ``RewindError`` when there is no file to copy."""
        state = self.conversation
        if state.session is None:
            from agent_tui.core.conversation.rewind import RewindError

            raise RewindError("This conversation is not saved to a session file: nothing to fork.")
        fork = await asyncio.to_thread(store.fork, state.session)
        self._let_go()
        await asyncio.to_thread(self.refer, fork)
        state.session, state.messages, state.folded = fork, list(fork.messages), list(fork.folded)
        return fork

    async def finish(self, hooks: Hooks | None = None, reason: str = "other") -> str | None:
        """The agent closes: its ``SessionEnd`` hooks run (``reason``), the session
        file finished and released, the reference record detached. Returns what of the
        session could not be saved, and where it went (None when everything was saved)."""
        await session_end(hooks, reason)  # before the file is finished: they may read it
        unsaved = None
        if self.conversation.session is not None:
            unsaved = await asyncio.to_thread(self.conversation.session.finish)
            self._let_go()
        if self.owns_spills:
            try:  # the record keeps what the session file names; the process lock goes
                await asyncio.to_thread(self.spills.refs.detach)
            except Exception:
                log.exception("finishing the spill reference record failed")
        return unsaved


__all__ = ["SessionSwitch"]
