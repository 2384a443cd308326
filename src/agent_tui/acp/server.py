"""``agent-tui acp``'s agent: ACP v1 requests answered by the same core the TUI runs.

``AcpServer`` implements the SDK's ``Agent`` protocol. Each ACP session is one of our
sessions (its id is ours, so ``session/load`` finds it in the session store): an ``Agent``
built for the session's cwd by ``open_session`` (the command line's ``assemble``, handed in,
so this package never imports ``cli``). ``session/prompt`` runs one turn and streams its
events as ``session/update`` notifications (``updates.TurnUpdates``); its asks go to the client
(``permission.ClientAsker``); ``session/cancel`` interrupts the turn as Esc does in the TUI:
every call in flight is cancelled, each ends as interrupted in the transcript, and the prompt
answers ``cancelled``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    AuthenticateResponse,
    AuthMethodAgent,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CloseSessionResponse,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionModeResponse,
    StopReason,
    TextContentBlock,
)

from agent_tui import __version__
from agent_tui.acp.commands import Answer, available, resolve
from agent_tui.acp.editor_files import EditorFiles, after_edit, before_edit, wanted
from agent_tui.acp.history import listing, replayed
from agent_tui.acp.mcp_servers import entries
from agent_tui.acp.modes import SessionModes
from agent_tui.acp.permission import ClientAsker
from agent_tui.acp.prompt import PromptProblem, to_prompt
from agent_tui.acp.terminals import ShellTerminals
from agent_tui.acp.updates import FileEdit, TurnUpdates, edit_path, title_of
from agent_tui.core.commands.grants import CommandRun
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import SessionStart, ToolResult, ToolUse, TurnEnd

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.permissions import ApprovalRequest

log = logging.getLogger(__name__)

STOP_REASONS: dict[str, StopReason] = {
    "completed": "end_turn",
    "interrupted": "cancelled",
    "max_turns": "max_turn_requests",
}
"""How our turn ends map onto ACP's stop reasons (an ``error`` end is a JSON-RPC error)."""

MODEL_METHOD = "agent-tui-model"
"""The one auth method: the model agent-tui is configured with (nothing to sign in to)."""


class StartFailed(Exception):
    """A session cannot be opened: ``kind`` says how to answer (``auth``: no usable model is
    configured; ``not_found``: no such session; ``in_use``: another process has it open;
    ``invalid``: anything else), ``message`` why."""

    def __init__(
        self, message: str, kind: Literal["auth", "not_found", "in_use", "invalid"]
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


@dataclass
class Opened:
    """A session's core: its agent and how it starts."""

    agent: Agent
    start: SessionStart
    files: list[Path] = field(default_factory=list)
    """Files of the session's own, removed once it is closed (the client's MCP servers)."""


OpenSession = Callable[[Path, str | None, dict[str, Any], bool], Awaitable[Opened]]
"""Builds the core for a cwd, for a new session (None) or the saved session of that id (with
``True``: a new session forked from it), with the client's MCP servers (``.mcp.json``
entries); raises ``StartFailed``."""


@dataclass(eq=False)
class Live:
    """An open ACP session."""

    id: str
    agent: Agent
    start: SessionStart
    asker: ClientAsker
    modes: SessionModes
    files: list[Path] = field(default_factory=list)
    turn: asyncio.Task[Any] | None = field(default=None, repr=False)
    warnings: list[str] = field(default_factory=list)
    """What its start found wrong (settings, MCP configuration, rules), not told yet."""


def _error(failed: StartFailed) -> RequestError:
    data = {"message": failed.message}
    if failed.kind == "auth":
        return RequestError.auth_required(data)
    if failed.kind == "not_found":
        return RequestError(-32002, "Resource not found", data)
    if failed.kind == "in_use":
        return RequestError.invalid_request(data)
    return RequestError.invalid_params(data)


class AcpServer:
    """The ACP agent (the SDK calls these methods; ``on_connect`` hands it the client)."""

    def __init__(self, open_session: OpenSession, check_model: Callable[[], str | None]) -> None:
        self.open_session = open_session
        self.check_model = check_model
        """What is wrong with the configured model (None: it can be used)."""
        self.client: Client | None = None
        self.capabilities = ClientCapabilities()
        self.sessions: dict[str, Live] = {}
        self.editor_files: dict[str, EditorFiles] = {}
        """The sessions whose file tools use the client's files (``editor_files``)."""
        self.terminals: dict[str, ShellTerminals] = {}
        """The sessions whose shell calls the client shows as terminals (``terminals``)."""
        self._telling: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    def _conn(self) -> Client:
        if self.client is None:
            raise RequestError.internal_error({"message": "no client connected"})
        return self.client

    # -- set-up ------------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.capabilities = client_capabilities or ClientCapabilities()
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    close=SessionCloseCapabilities(),
                    resume=SessionResumeCapabilities(),
                    fork=SessionForkCapabilities(),
                ),
            ),
            auth_methods=[
                AuthMethodAgent(
                    id=MODEL_METHOD,
                    name="agent-tui's model configuration",
                    description="agent-tui uses the model it is configured with "
                    "(AGENT_API_KEY / ANTHROPIC_API_KEY, or --model in the agent's command); "
                    "with none it runs its offline demo model. There is nothing to sign in to.",
                )
            ],
            agent_info=Implementation(name="agent-tui", title="agent-tui", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        problem = self.check_model()
        if method_id != MODEL_METHOD:
            raise RequestError.invalid_params({"message": f"unknown auth method {method_id!r}"})
        if problem is not None:
            raise RequestError.auth_required({"message": problem})
        return AuthenticateResponse()

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        live = await self._open(cwd, None, mcp_servers or [])
        self._tell_commands(live)
        return NewSessionResponse(session_id=live.id, modes=live.modes.state())

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        """A saved session, told again as updates before the answer (its id stays)."""
        live = await self._reattach(cwd, session_id, mcp_servers or [])
        conn = self._conn()
        for update in await replayed(live.agent):
            await conn.session_update(session_id=live.id, update=update)
        self._tell_commands(live)
        return LoadSessionResponse(modes=live.modes.state())

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        """``session/load`` without the replay (the client still shows the conversation);
        a session open here already stays as it is."""
        live = self.sessions.get(session_id)
        if live is None:
            live = await self._reattach(cwd, session_id, mcp_servers or [])
        self._tell_commands(live)
        return ResumeSessionResponse(modes=live.modes.state())

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        """A new session starting as a copy of the saved one (``--fork-session``); the
        original stays as it was, and may be open anywhere."""
        live = await self._open(cwd, session_id, mcp_servers or [], fork=True)
        self._tell_commands(live)
        return ForkSessionResponse(session_id=live.id, modes=live.modes.state())

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """The session ends as at exit: its turn stopped, its file saved and its lock
        released, its MCP servers stopped."""
        live = self.sessions.pop(session_id, None)
        if live is None:
            raise RequestError.invalid_params({"message": f"no open session {session_id!r}"})
        await self._close(live)
        return CloseSessionResponse()

    async def _reattach(self, cwd: str, session_id: str, servers: list[Any]) -> Live:
        """The saved session ``session_id`` opened (one open here is closed first, so its
        lock is free); refused when another process has it."""
        old = self.sessions.pop(session_id, None)
        if old is not None:
            await self._close(old)
        live = await self._open(cwd, session_id, servers)
        if live.id != session_id:  # another process has it: we got a fork, which is not it
            self.sessions.pop(live.id, None)
            await self._close(live)
            raise RequestError.invalid_request(
                {"message": f"session {session_id} is open in another agent-tui; close it there"}
            )
        return live

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """Our saved sessions, newest first (of ``cwd`` when given)."""
        found, following = await asyncio.to_thread(listing, SessionStore(), cwd, cursor)
        return ListSessionsResponse(sessions=found, next_cursor=following)

    async def set_session_mode(
        self, mode_id: str, session_id: str, **kwargs: Any
    ) -> SetSessionModeResponse | None:
        """The client's mode menu: as Shift+Tab, the calls waiting are judged again."""
        live = self._live(session_id)
        try:
            live.modes.set(mode_id)
        except ValueError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        return SetSessionModeResponse()

    async def _open(
        self, cwd: str, session_id: str | None, servers: list[Any], *, fork: bool = False
    ) -> Live:
        where = await asyncio.to_thread(_directory, cwd)
        if where is None:
            raise RequestError.invalid_params(
                {"message": f"cwd must be an absolute path to a directory: {cwd!r}"}
            )
        passed, notes = entries(servers)
        try:
            opened = await self.open_session(where, session_id, passed, fork)
        except StartFailed as failed:
            raise _error(failed) from None
        sid = opened.start.session_id
        conn = self._conn()
        asker = ClientAsker(conn.request_permission, sid, lambda r: _title(r))

        async def notify(update: Any) -> None:
            await conn.session_update(session_id=sid, update=update)

        modes = SessionModes(opened.agent, asker, notify)
        modes.attach(conn.request_permission, sid)
        live = Live(sid, opened.agent, opened.start, asker, modes, opened.files)
        old = self.sessions.pop(sid, None)
        if old is not None:  # loaded again: the new core replaces the old one
            await self._close(old)
        self.sessions[sid] = live
        if wanted(self.capabilities):
            files = EditorFiles(conn, sid, asyncio.get_running_loop())
            opened.agent.executor.files = self.editor_files[sid] = files
        if self.capabilities.terminal:
            shells = self.terminals[sid] = ShellTerminals(conn, sid)
            opened.agent.executor.on_output = shells.output
        live.warnings = [*opened.start.warnings, *notes]
        for warning in live.warnings:
            log.warning("session %s: %s", sid, warning)
        return live

    # -- a turn ------------------------------------------------------------------------------

    def _live(self, session_id: str) -> Live:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params({"message": f"no open session {session_id!r}"})
        return live

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        live = self._live(session_id)
        if live.turn is not None and not live.turn.done():
            raise RequestError.invalid_request(
                {"message": "a prompt is already running in this session"}
            )
        try:
            request = await asyncio.to_thread(to_prompt, prompt)
        except PromptProblem as problem:
            raise RequestError.invalid_params({"message": str(problem)}) from None
        live.turn = asyncio.current_task()
        try:
            command: CommandRun | None = None
            if isinstance(request, str) and request.startswith("/"):
                resolved = await resolve(live.agent, request, live.asker)
                if isinstance(resolved, Answer):
                    await self._say(live, resolved.text)
                    return PromptResponse(stop_reason="end_turn")
                for note in resolved.notes:
                    await self._say(live, f"[agent-tui] {note}\n")
                request, command = resolved.prompt, resolved.run
            reason = await self._run(live, request, command)
        finally:
            live.turn = None
        return PromptResponse(stop_reason=reason)

    async def _say(self, live: Live, text: str) -> None:
        update = AgentMessageChunk(
            session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
        )
        await self._conn().session_update(session_id=live.id, update=update)

    def _tell_commands(self, live: Live) -> None:
        """The session's start-up warnings (as an agent message: every client shows one) and
        its slash commands, sent once the client has the session's id (after the answer to
        ``session/new`` or ``session/load``)."""

        async def tell() -> None:
            try:
                warnings, live.warnings = live.warnings, []
                if warnings:
                    await self._say(live, "".join(f"[agent-tui] {w}\n" for w in warnings))
                commands = await asyncio.to_thread(available, live.agent)
                update = AvailableCommandsUpdate(
                    session_update="available_commands_update", available_commands=commands
                )
                await self._conn().session_update(session_id=live.id, update=update)
            except Exception:
                log.exception("listing the slash commands failed")

        task = asyncio.get_running_loop().create_task(tell())
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def _run(self, live: Live, request: Any, command: CommandRun | None = None) -> StopReason:
        conn = self._conn()
        agent = live.agent
        turn = TurnUpdates(Path(agent.cwd))
        end: TurnEnd | None = None
        files, shells = self.editor_files.get(live.id), self.terminals.get(live.id)
        async for event in agent.run(request, asker=live.asker, command=command):
            after: str | None = None
            if isinstance(event, ToolUse):
                if shells is not None:
                    shells.expect(event)
                path = edit_path(event, turn.cwd)
                if path is not None:
                    turn.edits[event.id] = FileEdit(path, await before_edit(files, path))
            elif isinstance(event, ToolResult) and event.id in turn.edits:
                after = await after_edit(files, turn.edits[event.id])
            elif isinstance(event, TurnEnd):
                end = event
            for update in turn.updates(event, after):
                if shells is not None:
                    update = await shells.dress(event, update)
                await conn.session_update(session_id=live.id, update=update)
            if turn.errors and end is None and event.type == "error":
                await conn.session_update(
                    session_id=live.id,
                    update=AgentMessageChunk(
                        session_update="agent_message_chunk",
                        content=TextContentBlock(
                            type="text", text=f"\n[error] {turn.errors[-1]}\n"
                        ),
                    ),
                )
        if end is None or end.reason == "error":
            why = turn.errors[-1] if turn.errors else "the turn ended without a result"
            raise RequestError.internal_error({"message": why})
        return STOP_REASONS[end.reason]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """Esc: the turn stops, every call in flight is cancelled (its ask too)."""
        live = self.sessions.get(session_id)
        if live is not None and live.turn is not None:
            live.agent.interrupt()
            if session_id in self.editor_files:  # a tool waiting on the editor stops waiting
                self.editor_files[session_id].cancel()

    # -- the end -----------------------------------------------------------------------------

    async def _close(self, live: Live) -> None:
        self.editor_files.pop(live.id, None)
        self.terminals.pop(live.id, None)
        if live.turn is not None and not live.turn.done():
            live.agent.interrupt()
            await asyncio.wait({live.turn})
        try:
            await live.agent.close()
        except Exception:
            log.exception("closing session %s failed", live.id)
        for path in live.files:
            await asyncio.to_thread(path.unlink, missing_ok=True)

    async def aclose(self) -> None:
        """Close every session (the client went away): turns stopped, sessions saved."""
        sessions, self.sessions = list(self.sessions.values()), {}
        for live in sessions:
            await self._close(live)


def _directory(cwd: str) -> Path | None:
    """``cwd`` resolved, when it is an absolute path to a directory (blocking)."""
    where = Path(cwd)
    return where.resolve() if where.is_absolute() and where.is_dir() else None


def _title(request: ApprovalRequest) -> str:
    from agent_tui.core.permissions.policy import describe_input

    return title_of(request.call.name, describe_input(request.input), agent=request.agent)
