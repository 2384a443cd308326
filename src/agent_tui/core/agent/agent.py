"""The agent: model -> tool calls -> executor -> model, until the model stops.

``Agent.run(prompt)`` is an async generator of typed events (``core.events``); the TUI, headless
mode and subagents consume it. ``interrupt()`` stops the turn at the next await point: the streamed
text so far is kept, every tool call the model made gets a result message, and the turn ends with
``turn_end(reason="interrupted")``. ``inject(text)`` puts a message typed during the turn into the
inbox (``inbox``), for the turn's next tool boundary. Tool results go through the output budget
(``core.budget``); ``close()`` deletes the spill files nothing refers to any more and closes the
provider. The system prompt holds the project memory (``core.workspace.memory``), read again when
the session changes; ``context()`` says how full the model's window is
(``core.conversation.context``). With a session file each turn gets a checkpoint, and ``turns``,
``preview_rewind`` and ``rewind`` go back to before one; ``fork`` goes on in a copy of the session.

The ``Agent`` is the facade composing its collaborators (``docs/architecture.md``), each handed
what it shares and reading the agent through a protocol of public members.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.agent.compacting import Compactor, nested_memory
from agent_tui.core.agent.control import AgentBusy, Interrupted, RunControl
from agent_tui.core.agent.conversation_state import ConversationState, StartSource
from agent_tui.core.agent.hook_binding import bind_hooks
from agent_tui.core.agent.inbox import Inbox
from agent_tui.core.agent.prompt import system_prompt
from agent_tui.core.agent.rewinding import Rewinder
from agent_tui.core.agent.session_switch import SessionSwitch
from agent_tui.core.agent.tool_source import ToolSource
from agent_tui.core.agent.turn import TurnRunner
from agent_tui.core.budget import CleanupReport, SpillStore, collect_spills
from agent_tui.core.commands.grants import CommandRun
from agent_tui.core.conversation.context import (
    ContextBreakdown,
    ContextUsage,
    breakdown,
    context_usage,
)
from agent_tui.core.conversation.model_limits import ModelLimits, model_limits
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.disclosure.marks import request_filters
from agent_tui.core.events import CompactionEvent, Event, MemoryInfo, SessionStart
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.hooks import Hooks
from agent_tui.core.mentions import MentionResources
from agent_tui.core.permissions import Asker, PermissionPolicy, SimplePolicy
from agent_tui.core.plan import Plan, latest_plan
from agent_tui.core.providers.base import Provider
from agent_tui.core.sandbox import SessionSandbox
from agent_tui.core.settings import Settings
from agent_tui.core.skills import SkillSet, prompt_section
from agent_tui.core.state.trust import ProjectTrust, TrustItem
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import Message, Prompt, Usage
from agent_tui.core.workspace.memory import ProjectMemory

if TYPE_CHECKING:  # imported by a rewind (``Rewinder``), not by every start
    from agent_tui.core.conversation import rewind as rewinds

log = logging.getLogger(__name__)
DEFAULT_MAX_TURNS = 50


class Agent:
    """One conversation with a model, its tools and its session file (see the module)."""

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
        skills: SkillSet | None = None,
    ) -> None:
        self.provider = provider
        self.hooks = hooks
        """The session's hooks (``core.hooks``; None: none)."""
        self._conversation = ConversationState(session)
        """The session, the transcript, what was folded, the usage (the collaborators')."""
        self._control = RunControl()
        self.tool_sources = list(tool_sources)
        self.registry = registry
        self.cwd = cwd
        self.policy = policy or SimplePolicy()
        self.max_turns = max_turns
        self.memory = memory or ProjectMemory.load(cwd, withheld=self.policy.reads.withheld)
        """The memory files (``core.workspace.memory``; not in a given ``system`` prompt)."""
        self.settings = settings or Settings()
        self.limits: ModelLimits = model_limits(provider.name, self.settings.model)
        """The model's context window and output limit (table, or the settings' override)."""
        self.skills = skills  # core.skills: their catalog is in the system prompt
        self._own_system = system is None
        self.system = system if system is not None else self._system_prompt()
        self.memory.seen(nested_memory(self.messages))
        self.file_state = FileStateCache()
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
        if hooks is not None:  # its sandbox, the session, the model of prompt hooks
            bind_hooks(hooks, self)
        self.trust = trust
        """What of the project's files the user trusts (None: not gated here, e.g. tests)."""
        self.disclosure = disclosure
        self.inbox = Inbox()
        """Messages typed during the turn, added at its next tool boundary (``inject``)."""
        self.closed = False
        self.unsaved: str | None = None
        """Set by ``close``: what of the session was not saved, and where it went (None: all
        saved). Front ends say it once and exit non-zero."""
        self.mention_resources: MentionResources | None = None
        """What ``@server:uri`` attaches (MCP resources: ``core.mcp.client.resource_mentions``)."""
        self._switch = SessionSwitch(self._conversation, self.spills, owns_spills=spills is None)
        self._compactor = Compactor(self, self._conversation, self._control)
        self._rewinder = Rewinder(self, self._conversation, self._control)
        self._turns = TurnRunner(
            self, self._conversation, self._control, self._compactor, self._rewinder
        )
        self._switch.refer(session)
        self._rewinder.warm()  # the workspace's first snapshot, while the user types

    # -- the state the collaborators share ------------------------------------------------------

    @property
    def session(self) -> SessionLog | None:
        """The session file the conversation is saved to (None: not saved)."""
        return self._conversation.session

    @session.setter
    def session(self, session: SessionLog | None) -> None:
        self._conversation.session = session

    @property
    def messages(self) -> list[Message]:
        """The transcript the model sees (compaction summaries stand where they folded)."""
        return self._conversation.messages

    @messages.setter
    def messages(self, messages: list[Message]) -> None:
        self._conversation.messages = messages

    @property
    def folded(self) -> list[Message]:
        """What compactions took out of ``messages``, oldest first (``history``)."""
        return self._conversation.folded

    @folded.setter
    def folded(self, folded: list[Message]) -> None:
        self._conversation.folded = folded

    @property
    def usage(self) -> Usage:
        """The tokens the session used so far (a subagent's included)."""
        return self._conversation.usage

    @usage.setter
    def usage(self, usage: Usage) -> None:
        self._conversation.usage = usage

    @property
    def running(self) -> bool:
        """A turn (or a ``/compact``) is running."""
        return self._control.running

    @running.setter
    def running(self, running: bool) -> None:
        self._control.running = running

    @property
    def rewinding(self) -> bool:
        """A rewind is restoring files or cutting the transcript."""
        return self._control.rewinding

    @rewinding.setter
    def rewinding(self, rewinding: bool) -> None:
        self._control.rewinding = rewinding

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
        found = self.skills.skills if self.skills is not None else []
        skills = prompt_section(found, self.limits.context_window)
        return system_prompt(self.cwd, self.memory.system_text(), skills)

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
        """Read the memory files again and rebuild the system prompt (a new or resumed
        session: its old prefix is not cached anyway); a prompt given to the constructor stays."""
        self.memory.reload()
        self.memory.seen(nested_memory(self.messages))
        if self._own_system:
            self.system = self._system_prompt()

    def context(self) -> ContextUsage:
        """How full the window is: the last response's count + an estimate of what came since."""
        tools = self._tools_view()
        return context_usage(
            self.messages, self.limits, system=self.system, tools_json=tools.openai_tools_json()
        )

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
        self.executor.sandbox.env.trusted(item.key for item in items)  # .claude/ "env"
        if self.skills is not None and await asyncio.to_thread(self.skills.trusted, items):
            self.system = self._system_prompt() if self._own_system else self.system
        if self.hooks is not None:
            self.hooks.trusted(items)
        for source in self.tool_sources:
            await source.trusted(items)
        return said

    async def new_session(self) -> SessionStart:
        """Start over: an empty transcript (the model sees nothing of the old one), saved to a
        new session file; the old session stays on disk and can be resumed."""
        self._control.idle("start a new conversation")
        await self.settle()
        await self._switch.new(self.sessions, self.cwd, self.provider.name, self.hooks)
        self._fresh_context("clear")
        return self.describe()

    async def resume(self, path: Path) -> SessionStart:
        """Continue the session saved in ``path`` (``OSError`` when it cannot be read;
        ``SessionDoubted`` when it is not as agent-tui last wrote it)."""
        self._control.idle("resume a session")
        await self.settle()
        session = await self._switch.resume(self.sessions, path, self.hooks)
        self._fresh_context("resume")
        return self.describe(session.problems())

    def _fresh_context(self, source: StartSource) -> None:
        """Another conversation is the model's: what it read, what was allowed for the
        session, the memory it saw and what was typed for the old one do not carry over; the
        SessionStart hooks run before its first turn (``source``)."""
        self.file_state.clear()  # what was read is no longer in the model's context
        self.policy.forget_session()  # "allow for this session" meant the one that ended
        self.reload_memory()
        self.inbox.drain()  # typed for the old conversation
        self._conversation.start_source = source
        self._rewinder.warm()  # its shadow: the new session's blob store

    async def fork(self) -> SessionStart:
        """Continue in a new session (new id, new file), a copy of this one (transcript,
        checkpoints); the original stays, resumable. ``RewindError`` without a session file."""
        self._control.idle("fork the session")
        await self.settle()
        await self._switch.fork(self.sessions)
        self._rewinder.warm()
        return self.describe()

    # -- compaction ---------------------------------------------------------------------------

    def history(self) -> list[Message]:
        """Every message of the conversation as it happened: what compactions folded, then the
        transcript (whose summaries stand where they folded). What a resumed session shows."""
        return self._conversation.history()

    @property
    def plan(self) -> Plan | None:
        """The model's current plan: the one its last ``update_plan`` call set, read from the
        transcript's typed records (so a resume, a rewind or a new session agree with it)."""
        return latest_plan(self.history())

    def context_window(self) -> int:
        """The model's context window in tokens (the table, or the settings' override)."""
        return self.limits.context_window

    async def compact(self, focus: str = "") -> AsyncIterator[Event]:
        """Fold the conversation so far into a summary the model writes (``/compact``):
        ``compaction`` events, start then end or failed. The transcript changes only once the
        summary is written and saved; a failure leaves it as it was. ``AgentBusy`` in a turn."""
        self._control.idle("compact the conversation")
        await self.settle()
        self._control.start()
        try:
            async for event in self._compactor.fold(focus, "manual"):
                yield event
        except Interrupted:
            yield CompactionEvent(
                phase="failed",
                message="Interrupted before the summary was written: the conversation is "
                "unchanged.",
            )
        finally:
            self._control.running = False

    # -- checkpoints and rewind ---------------------------------------------------------------

    def turns(self) -> list[rewinds.TurnSummary]:
        """The turns of the transcript, oldest first, with the files each changed."""
        return self._rewinder.turns()

    def undoable_rewind(self) -> rewinds.TurnSummary | None:
        """The latest code rewind, if it changed files: ``rewind(its id, "code")`` undoes it."""
        return self._rewinder.undoable_rewind()

    async def preview_rewind(self, turn: str) -> rewinds.RewindPreview:
        """What ``rewind(turn, ...)`` would do, the files read as they are now (in a thread)."""
        return await self._rewinder.preview_rewind(turn)

    async def rewind(
        self, turn: str, what: rewinds.RewindWhat = "both", *, overwrite: Collection[str] = ()
    ) -> rewinds.RewindReport:
        """Go back to before ``turn`` (a ``TurnSummary.id``): its code, its conversation or
        both (``Rewinder.rewind``, ``core.conversation.rewind``). ``RewindError`` when it cannot be
        done (its text says why), ``AgentBusy`` during a turn."""
        return await self._rewinder.rewind(turn, what, overwrite=overwrite)

    async def settle(self) -> None:
        """Wait for the last turn's checkpoint (its last scan): before reading ``turns()``."""
        await self._rewinder.settle()

    async def switch_model(self, spec: str) -> SessionStart:
        """Use the model ``spec`` from the next request on; the transcript is kept
        (``ProviderError`` when the spec is not valid)."""
        self._control.idle("switch the model")
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
        self._control.interrupt.set()

    def collect_spills_now(self, grace: float | None = None) -> CleanupReport:
        """Delete spill files that no live message, no saved session and no live session of
        another data dir refers to (blocking; ``core.budget.cleanup``). Saved sessions are the
        files of ``sessions``; the other data dirs' are known by their reference records.
        ``grace``: ``budget.spill_grace_seconds`` unless given."""
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

    async def close(self, reason: str = "other") -> CleanupReport | None:
        """End the session (SessionEnd hooks see ``reason``), clean up spills. Idempotent."""
        if self.closed:
            return None
        self.closed = True
        await self._rewinder.close()  # the last checkpoint completed, the shadow saved
        self.unsaved = await self._switch.finish(self.hooks, reason)
        for close in [*(s.aclose for s in self.tool_sources), self.executor.jobs.aclose]:
            try:  # the tool sources stopped, the background jobs killed
                await close()
            except Exception:  # a source that fails to stop must not break the exit
                log.exception("closing a tool source failed")
        try:
            return await self.collect_spills()
        except Exception:  # cleanup is housekeeping: it must never break the exit
            log.exception("spill cleanup failed")
            return None
        finally:
            await self.provider.aclose()

    # -- the loop ---------------------------------------------------------------------------

    async def run(
        self, prompt: str | Prompt, *, asker: Asker | None = None, command: CommandRun | None = None
    ) -> AsyncIterator[Event]:
        """Run one user turn (text, or a ``Prompt`` with images) to completion, yielding every
        event. ``asker`` answers the asks of this turn (the front end's); else the agent's.
        ``command``: the custom command starting it (``core.commands.grants``): its
        ``allowed-tools`` and ``model`` hold for this turn only. The session file is
        ``fsync``-ed before ``turn_end``; a failure to save it (disk full) is an ``error``
        event (``where="session"``), once, and the turn goes on. A spill directory refused for
        a link on its way is an ``error`` event (``where="spill"``), once, saying where the
        outputs go instead."""
        if self.rewinding:
            raise AgentBusy("A rewind is in progress: send the message after it ends.")
        turn = self._turns.run(prompt, asker, command)
        try:
            async for event in turn:
                yield event
        finally:
            await turn.aclose()


__all__ = ["DEFAULT_MAX_TURNS", "Agent", "AgentBusy", "Interrupted", "ToolSource"]
