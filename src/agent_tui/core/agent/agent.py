"""The agent loop: model -> tool calls -> executor -> model, until the model stops.

``Agent.run(prompt)`` is an async generator of typed events (see ``events``); the TUI and
headless mode both consume it. ``interrupt()`` stops the turn at the next await point: the
streamed text so far is kept, every tool call the model made gets a result message, and the
loop ends with ``turn_end(reason="interrupted")`` — the transcript stays valid for the next
request in both wire formats.

Tool results go through the output budget (``settings.budget``; see ``core.budget``) before
the model sees them. Front ends call ``await agent.close()`` when the session ends: it deletes
the spill files nothing refers to any more and closes the provider. Whatever shrinks
``messages`` (compaction) calls ``await agent.collect_spills()`` afterwards.

With a session file, each turn gets a checkpoint (``core.checkpoints``): what the file tools
change is kept before they change it, what other tools change is found by scanning. ``turns``,
``preview_rewind`` and ``rewind`` go back to before a turn (``core.rewind``); ``fork``
continues in a copy of the session.

The system prompt holds the project memory (``core.memory``), read at start and again when the
session changes (``new_session``, ``resume``); ``context()`` says how full the model's window is
(``core.context``, the window from ``core.model_limits``), and every ``usage`` event carries it.

``inject(text)`` puts a message the user typed during the turn into the agent's inbox
(``core.inbox``): the loop adds it after the results of the current batch of tool calls, before
the next model request, and emits ``user_injected``.

This module owns the ``Agent``: its state, the session changes, memory and context, and
control. The turn loop itself (``run`` calls it) is ``agent_turn``; running a compaction is
``agent_compaction``; the turns' checkpoints and rewind are ``agent_rewind`` (the ``Agent``
methods of the same names call them).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from agent_tui.core.agent import compacting as agent_compaction
from agent_tui.core.agent import rewinding as agent_rewind
from agent_tui.core.agent import turn as agent_turn
from agent_tui.core.agent.compacting import nested_memory
from agent_tui.core.agent.inbox import Inbox
from agent_tui.core.agent.prompt import system_prompt
from agent_tui.core.agent.turn import Interrupted
from agent_tui.core.budget import CleanupReport, SpillStore, collect_spills
from agent_tui.core.conversation.context import (
    ContextBreakdown,
    ContextUsage,
    breakdown,
    context_usage,
    reported_usage,
)
from agent_tui.core.conversation.model_limits import ModelLimits, model_limits
from agent_tui.core.conversation.rewind import (
    RewindError,
    RewindPreview,
    RewindReport,
    RewindWhat,
    TurnSummary,
)
from agent_tui.core.conversation.session import SessionLog, session_usage
from agent_tui.core.conversation.session_store import SessionStore, in_use_note
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.disclosure.marks import request_filters
from agent_tui.core.events import (
    CompactionEvent,
    ErrorEvent,
    Event,
    MemoryInfo,
    SessionStart,
    ToolsCost,
    TurnEnd,
)
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.hooks import Hooks
from agent_tui.core.mentions import MentionResources
from agent_tui.core.permissions import Asker, PermissionPolicy, SimplePolicy
from agent_tui.core.plan import Plan, latest_plan
from agent_tui.core.providers.base import Provider
from agent_tui.core.sandbox import SessionSandbox
from agent_tui.core.settings import Settings
from agent_tui.core.state.trust import ProjectTrust, TrustItem
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import Message, Usage
from agent_tui.core.workspace.memory import ProjectMemory

T = TypeVar("T")
log = logging.getLogger(__name__)
DEFAULT_MAX_TURNS = 50


class AgentBusy(RuntimeError):
    """A session change was asked for while a turn runs (the turn owns the transcript)."""


class ToolSource(Protocol):
    """Something that adds tools to the registry in the background (the MCP manager).

    ``ready()`` starts it if needed and returns once the tools still being loaded are in (or
    their loading timed out); it is awaited before each prompt's first model request.
    ``aclose()`` is awaited by ``Agent.close()``; ``trusted()`` by ``Agent.trust_project``."""

    async def ready(self) -> None: ...

    async def aclose(self) -> None: ...

    async def trusted(self, items: Sequence[TrustItem]) -> None:
        """The user trusted these project items (``core.trust``): start what they name."""
        ...


class Agent:
    def __init__(
        self,
        provider: Provider,
        registry: ToolRegistry,
        cwd: Path,
        *,
        policy: PermissionPolicy | None = None,
        asker: Asker | None = None,
        session: SessionLog | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        system: str | None = None,
        settings: Settings | None = None,
        sessions: SessionStore | None = None,
        tool_sources: Sequence[ToolSource] = (),
        disclosure: Disclosure | None = None,
        trust: ProjectTrust | None = None,
        memory: ProjectMemory | None = None,
        spills: SpillStore | None = None,
        sandbox: SessionSandbox | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        self.provider = provider
        self.hooks = hooks
        """The session's hooks (``core.hooks``; None: none)."""
        self._start_source: str | None = "resume" if session and session.messages else "startup"
        """The SessionStart hooks still to run, before the session's first turn (their
        context goes with its prompt): startup, resume, clear; None once they ran."""
        self.tool_sources = list(tool_sources)
        self.registry = registry
        self.cwd = cwd
        self.policy = policy or SimplePolicy()
        self.session = session
        self.max_turns = max_turns
        self.memory = memory if memory is not None else ProjectMemory.load(cwd)
        """The memory files (``core.memory``); a given ``system`` prompt leaves them out."""
        self._own_system = system is None
        self.system = system if system is not None else self._system_prompt()
        self.messages: list[Message] = list(session.messages) if session else []
        self.folded: list[Message] = list(session.folded) if session else []
        """What compactions took out of ``messages``, oldest first (``history``)."""
        self.memory.seen(nested_memory(self.messages))
        self.usage = session_usage([*self.folded, *self.messages])
        self.file_state = FileStateCache()
        self.settings = settings or Settings()
        self.limits: ModelLimits = model_limits(provider.name, self.settings.model)
        """The model's context window and output limit (table, or the settings' override)."""
        self.sessions = sessions or SessionStore()
        self.spills = spills or SpillStore(Path(self.settings.budget.spill_dir), cwd)
        """Where spilled outputs go (a subagent shares its parent's)."""
        own_sandbox = sandbox is None
        self.executor = ToolExecutor(
            registry,
            cwd,
            self.policy,
            asker,
            self.file_state,
            budget=self.settings.budget,
            store=self.spills,
            max_parallel=self.settings.executor.max_parallel,
            sandbox=sandbox or SessionSandbox(self.settings.sandbox, cwd),
            shell=self.settings.shell,
            memory=self.memory,
            hooks=hooks,
        )
        if own_sandbox:  # a shared one (a subagent's) is the policy's already
            self.policy.use_sandbox(self.executor.sandbox)
        if hooks is not None:
            hooks.sandbox = self.executor.sandbox
            hooks.env_names = tuple(self.settings.shell.env)
            hooks.reads = self.policy.reads
            hooks.session_id = session.id if session is not None else ""
        self.trust = trust
        """What of the project's files the user trusts (None: not gated here, e.g. tests)."""
        self.disclosure = disclosure
        self._tools_cost: ToolsCost | None = None
        self._interrupt = asyncio.Event()
        self.inbox = Inbox()
        """Messages typed during the turn, added at its next tool boundary (``inject``)."""
        self.running = False
        self.rewinding = False
        """A rewind is restoring files or cutting the transcript."""
        self._settling: asyncio.Future[None] | None = None
        """The last turn's checkpoint finishing (its last workspace scan) after the turn
        (``settle``)."""
        self.closed = False
        self.unsaved: str | None = None
        """Set by ``close``: what of the session could not be saved, and where it went (None
        when everything was saved). Front ends say it once and exit non-zero."""
        self.mention_resources: MentionResources | None = None
        """What ``@server:uri`` attaches (MCP resources: ``core.mcp.resource_mentions``)."""
        self._owns_spills = spills is None
        """A subagent shares its parent's store, whose record is the parent session's."""
        self._refer(session)

    def _refer(self, session: SessionLog | None) -> None:
        """Keep ``session``'s reference record beside the spills from now on
        (``core.budget.refs_writer``): which spills it points to, for the cleanups of every
        data dir. Blocking (reads a resumed session's file when the spill directory exists)."""
        if not self._owns_spills or session is None:
            return
        saved = session.unwritable is None
        self.spills.refs.attach(session.id, session.path if saved else None, scan=True)
        session.on_write = self.spills.refs.saw

    def _leave(self, session: SessionLog | None) -> None:
        """``session`` is no longer this agent's: its writes are not watched any more."""
        if session is not None and session.on_write == self.spills.refs.saw:
            session.on_write = None

    def _request_tools(self) -> tuple[ToolRegistry, ToolsCost | None]:
        """The tools of the next request: through progressive disclosure when it is on (with
        a ``tools_cost`` event when the cost changed), else the whole registry."""
        if self.disclosure is None:
            return self.registry, None
        self.disclosure.protocol = "strict" if self.provider.kind == "anthropic" else "free-text"
        filters = request_filters(self.policy, self.registry)
        cost = ToolsCost.model_validate(self.disclosure.estimate(**filters))
        changed = cost != self._tools_cost
        self._tools_cost = cost
        return self.disclosure.view(**filters), (cost if changed else None)

    # -- the session ------------------------------------------------------------------------

    def describe(self, warnings: Sequence[str] = ()) -> SessionStart:
        """The ``session_start`` event of the session as it is now (every front end shows it)."""
        mode = self.policy.mode
        return SessionStart(
            session_id=self.session.id if self.session is not None else "",
            model=self.provider.name,
            cwd=str(self.cwd),
            demo=self.provider.kind == "demo",
            resumed=bool(self.messages),
            permission_mode=mode.value if mode is not None else "default",
            warnings=list(warnings),
            forked_from=self.session.forked_from if self.session is not None else None,
            memory=self.memory_info(),
            context_window=self.limits.context_window,
        )

    # -- memory and context -----------------------------------------------------------------

    def _system_prompt(self) -> str:
        return system_prompt(self.cwd, self.memory.system_text())

    def memory_info(self) -> list[MemoryInfo]:
        """The memory files loaded (start ones in prompt order, then nested), for events."""
        return [
            MemoryInfo(
                path=f.shown,
                abs_path=str(f.path),
                bytes=f.size,
                truncated=f.truncated,
                scope=f.scope,
            )
            for f in self.memory.all_files
        ]

    def reload_memory(self) -> None:
        """Read the memory files again and rebuild the system prompt from them (a new or
        resumed session: the old prefix is not cached for it anyway). A prompt given to the
        constructor stays as it was."""
        self.memory.reload()
        self.memory.seen(nested_memory(self.messages))
        if self._own_system:
            self.system = self._system_prompt()

    def context(self) -> ContextUsage:
        """How full the window is now: the last response's count plus an estimate of what was
        appended since (``core.context``)."""
        tools = self._tools_view()
        return context_usage(
            self.messages, self.limits, system=self.system, tools_json=tools.openai_tools_json()
        )

    def _context_after(self, usage: Usage) -> ContextUsage:
        """The context right after a response: the provider's count, or (a server that
        reports no usage) the estimate; the demo's count is an estimate."""
        reported = reported_usage(usage, self.limits)
        if reported.tokens == 0:
            return self.context()
        if self.provider.kind == "demo":  # the offline demo counts nothing: it estimates
            return replace(reported, estimated=True)
        return reported

    def _tools_view(self) -> ToolRegistry:
        """The tools of the next request, without touching the ``tools_cost`` bookkeeping."""
        if self.disclosure is None:
            return self.registry
        return self.disclosure.view(**request_filters(self.policy, self.registry))

    def context_breakdown(self) -> ContextBreakdown:
        """The next request part by part (estimates), for a ``/context`` view."""
        tools = self._tools_view()
        return breakdown(
            system=self.system,
            memory=self.memory.files if self._own_system else [],
            memory_section=self.memory.system_text() if self._own_system else "",
            tools_json=tools.openai_tools_json(),
            tools_count=len(tools.names()),
            all_tools_json=self.registry.openai_tools_json(),
            messages=self.messages,
            usage=self.context(),
        )

    async def trust_project(self, items: Sequence[TrustItem]) -> str:
        """Trust ``items`` (the project's servers, allow rules, mode the user just saw): save
        it, then let the policy and the tool sources use them. Returns what happened, for the
        user."""
        if self.trust is None or not items:
            return ""
        said = f"trusted {len(items)} item{'s' if len(items) != 1 else ''} of this project"
        try:
            await asyncio.to_thread(self.trust.trust, items)
        except OSError as exc:
            said += f" for this session only (the trust store cannot be written: {exc})"
        self.policy.trusted(items)
        if self.hooks is not None:
            self.hooks.trusted(items)
        for source in self.tool_sources:
            await source.trusted(items)
        return said

    def _idle(self, what: str) -> None:
        if self.running:
            raise AgentBusy(f"A turn is running: {what} after it ends (Esc interrupts it).")
        if self.rewinding:
            raise AgentBusy(f"A rewind is in progress: {what} after it ends.")

    async def new_session(self) -> SessionStart:
        """Start over: an empty transcript (the model sees nothing of the old one), saved to a
        new session file; the old session stays on disk and can be resumed."""
        self._idle("start a new conversation")
        await self.settle()
        session = await asyncio.to_thread(self.sessions.new, self.cwd, self.provider.name)
        if self.session is not None:
            self._leave(self.session)
            self.session.release()
        await asyncio.to_thread(self._refer, session)
        self.session, self.messages, self.usage = session, [], Usage()
        self.folded = []
        self.file_state.clear()  # what was read is no longer in the model's context
        self.policy.forget_session()  # "allow for this session" meant the one that ended
        self.reload_memory()
        self.inbox.drain()  # typed for the old conversation
        self._start_source = "clear"
        return self.describe()

    async def resume(self, path: Path) -> SessionStart:
        """Continue the session saved in ``path`` (``OSError`` when it cannot be read;
        ``SessionDoubted`` when it is not as agent-tui last wrote it)."""
        self._idle("resume a session")
        await self.settle()
        session = await asyncio.to_thread(self.sessions.load, path)
        if self.session is None or session.path != self.session.path:
            holder = session.claim()
            if holder is not None:  # written by another process: go on in a fork of it
                fork = await asyncio.to_thread(self.sessions.fork, session)
                fork.notes.append(in_use_note(session, fork, holder))
                session = fork
            if self.session is not None:
                self._leave(self.session)
                self.session.release()
        await asyncio.to_thread(self._refer, session)
        messages = list(session.messages)
        self.folded = list(session.folded)
        usage = session_usage([*self.folded, *messages])
        self.session, self.messages, self.usage = session, messages, usage
        self.file_state.clear()
        self.policy.forget_session()
        self.reload_memory()
        self.inbox.drain()
        self._start_source = "resume"
        return self.describe(session.problems())

    async def fork(self) -> SessionStart:
        """Continue in a new session (new id, new file) that starts as a copy of this one:
        the same transcript and checkpoints; the original stays as it is, and can be resumed.
        ``RewindError`` when there is no session file to copy."""
        self._idle("fork the session")
        await self.settle()
        if self.session is None:
            raise RewindError("This conversation is not saved to a session file: nothing to fork.")
        fork = await asyncio.to_thread(self.sessions.fork, self.session)
        self._leave(self.session)
        self.session.release()
        await asyncio.to_thread(self._refer, fork)
        self.session, self.messages, self.folded = fork, list(fork.messages), list(fork.folded)
        return self.describe()

    # -- compaction ---------------------------------------------------------------------------

    def history(self) -> list[Message]:
        """Every message of the conversation as it happened: what compactions folded, then
        the transcript (whose summaries stand where they folded). What a resumed session
        shows."""
        return [*self.folded, *self.messages]

    @property
    def plan(self) -> Plan | None:
        """The model's current plan: the one its last ``update_plan`` call set, read from the
        transcript's typed records (so a resume, a rewind or a new session agree with it)."""
        return latest_plan(self.history())

    def context_window(self) -> int:
        """The model's context window in tokens (the table, or the settings' override)."""
        return self.limits.context_window

    def _over_threshold(self) -> bool:
        """The context fills more of the window than the compaction threshold allows."""
        return agent_compaction.over_threshold(self)

    async def compact(self, focus: str = "") -> AsyncIterator[Event]:
        """Fold the conversation so far into a summary the model writes (``/compact``):
        ``compaction`` events, start then end or failed. The transcript changes only once the
        summary is written and saved; a failure leaves it as it was. ``AgentBusy`` during a
        turn."""
        self._idle("compact the conversation")
        await self.settle()
        self._interrupt.clear()
        self.running = True
        try:
            async for event in self._compact(focus, "manual"):
                yield event
        except Interrupted:
            yield CompactionEvent(
                phase="failed",
                message="Interrupted before the summary was written: the conversation is "
                "unchanged.",
            )
        finally:
            self.running = False

    def _compact(
        self, focus: str, reason: Literal["manual", "threshold", "overflow"]
    ) -> AsyncGenerator[CompactionEvent, None]:
        """Inside a turn (threshold, overflow) or for ``compact``; raises ``Interrupted``
        (``agent_compaction.fold``)."""
        return agent_compaction.fold(self, focus, reason)

    # -- checkpoints and rewind ---------------------------------------------------------------

    def turns(self) -> list[TurnSummary]:
        """The turns of the transcript, oldest first, with the files each changed."""
        return agent_rewind.turns(self)

    def undoable_rewind(self) -> TurnSummary | None:
        """The latest code rewind, if it changed files: ``rewind(its id, "code")`` undoes it."""
        return agent_rewind.undoable_rewind(self)

    async def preview_rewind(self, turn: str) -> RewindPreview:
        """What ``rewind(turn, ...)`` would do, the files read as they are now (in a thread)."""
        return await agent_rewind.preview_rewind(self, turn)

    async def rewind(
        self, turn: str, what: RewindWhat = "both", *, overwrite: Collection[str] = ()
    ) -> RewindReport:
        """Go back to before ``turn`` (a ``TurnSummary.id``): its code, its conversation or
        both (``agent_rewind.rewind``, ``core.rewind``). ``RewindError`` when it cannot be
        done (its text says why), ``AgentBusy`` during a turn."""
        return await agent_rewind.rewind(self, turn, what, overwrite=overwrite)

    async def settle(self) -> None:
        """Wait until the last turn's checkpoint is complete (its last workspace scan, which
        ends after the turn, recorded): before reading ``turns()`` right after a turn."""
        pending, self._settling = self._settling, None
        if pending is not None:
            try:
                await asyncio.shield(pending)
            except Exception:
                log.exception("finishing a checkpoint failed")

    async def switch_model(self, spec: str) -> SessionStart:
        """Use the model ``spec`` from the next request on; the transcript is kept
        (``ProviderError`` when the spec is not valid)."""
        self._idle("switch the model")
        from agent_tui.core.providers.spec import make_provider

        provider = make_provider(spec, cwd=self.cwd)
        old, self.provider = self.provider, provider
        self.limits = model_limits(provider.name, self.settings.model)
        try:
            await old.aclose()
        except Exception:  # closing the old one is housekeeping
            log.exception("closing the previous provider failed")
        return self.describe()

    # -- control ----------------------------------------------------------------------------

    def inject(self, text: str, id: str | None = None) -> str:
        """Add ``text`` to the running turn at its next tool boundary (after the results of the
        calls in flight, before the next model request); returns its inbox id, for
        ``inbox.withdraw``. With no boundary left in the turn it stays in the inbox for the
        next one: a front end that wants it sent as a turn of its own withdraws it."""
        return self.inbox.put(text, id)

    def interrupt(self) -> None:
        """Stop the current turn as soon as possible (Esc in the TUI, SIGINT headless)."""
        self._interrupt.set()

    def collect_spills_now(self, grace: float | None = None) -> CleanupReport:
        """Delete spill files that no live message, no saved session and no live session of
        another data dir refers to (blocking; ``core.budget.cleanup``).

        Saved sessions are the files of ``sessions`` (by default the user's session store);
        the other data dirs' are known by their reference records. ``grace``: the settings'
        ``budget.spill_grace_seconds`` unless given.
        """
        budget = self.settings.budget
        return collect_spills(
            self.spills,
            list(self.messages),
            self.sessions.all(),
            grace=budget.spill_grace_seconds if grace is None else grace,
            unclaimed=budget.spill_unclaimed_days * 86_400,
        )

    async def collect_spills(self, grace: float | None = None) -> CleanupReport:
        """``collect_spills_now`` in a thread: call it after the transcript shrinks."""
        return await asyncio.to_thread(self.collect_spills_now, grace)

    async def close(self) -> CleanupReport | None:
        """End the session: clean up unreferenced spills, close the provider. Idempotent."""
        if self.closed:
            return None
        self.closed = True
        await self.settle()
        if self.session is not None:
            self.unsaved = await asyncio.to_thread(self.session.finish)
            self._leave(self.session)
            self.session.release()
        if self._owns_spills:
            try:  # the record keeps what the session file names; the process lock goes
                await asyncio.to_thread(self.spills.refs.detach)
            except Exception:
                log.exception("finishing the spill reference record failed")
        for source in self.tool_sources:
            try:
                await source.aclose()
            except Exception:  # a source that fails to stop must not break the exit
                log.exception("closing a tool source failed")
        try:
            return await self.collect_spills()
        except Exception:  # cleanup is housekeeping: it must never break the exit
            log.exception("spill cleanup failed")
            return None
        finally:
            await self.provider.aclose()

    def _append(self, message: Message) -> None:
        self.messages.append(message)
        if self.session is not None:
            self.session.append(message)

    async def _guard(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable`` unless the turn is interrupted first."""
        task = asyncio.ensure_future(awaitable)
        waiter = asyncio.ensure_future(self._interrupt.wait())
        try:
            done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if task in done:
            return task.result()
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception):
            pass
        raise Interrupted

    # -- the loop ---------------------------------------------------------------------------

    async def run(self, prompt: str, *, asker: Asker | None = None) -> AsyncIterator[Event]:
        """Run one user turn to completion, yielding every event. ``asker`` answers the asks
        of this turn (the front end's prompt); without it, the one given at construction.

        The session file is ``fsync``-ed before ``turn_end``; a failure to save it (disk
        full) is an ``error`` event (``where="session"``), once, and the turn goes on. A spill
        directory refused for a link on its way is an ``error`` event (``where="spill"``),
        once, saying where the outputs go instead."""
        if self.rewinding:
            raise AgentBusy("A rewind is in progress: send the message after it ends.")
        turn = agent_turn.run_turn(self, prompt, asker)
        try:
            async for event in turn:
                if isinstance(event, TurnEnd) and self.session is not None:
                    await asyncio.to_thread(self.session.sync)
                notice = self._session_notice()
                if notice is not None and isinstance(event, TurnEnd):
                    yield notice
                    notice = None
                yield event
                if notice is not None:
                    yield notice
                refused = self.spills.take_problem()
                if refused is not None:  # a link where the spill directory should be
                    yield ErrorEvent(message=refused, where="spill")
        finally:
            await turn.aclose()

    def _session_notice(self) -> ErrorEvent | None:
        problem = self.session.take_problem() if self.session is not None else None
        return ErrorEvent(message=problem, where="session") if problem else None


__all__ = ["DEFAULT_MAX_TURNS", "Agent", "AgentBusy", "Interrupted", "ToolSource"]
