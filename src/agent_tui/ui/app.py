"""``AgentApp``: wires the agent loop (on a worker) to the chat, the tool lane and the prompt.

The loop runs in the ``agent`` worker group; every core event arrives as one ``AgentEvent``
message and is routed here to the widgets (attributes down). Asks from the executor queue at
the ``ApprovalDesk``, which shows the permission prompt; a crash of the worker is shown in the
chat and the app keeps running. Palette entries live in ``commands``, session and model
switches in ``session_actions``, quitting and the permission mode in ``control_actions``,
opening the spill browser and the MCP panel in ``screen_actions``, and what mounting does in
``startup``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from agent_tui.core.agent import Agent
from agent_tui.core.events import (
    AssistantDelta,
    AssistantMessage,
    ErrorEvent,
    Event,
    ToolGroup,
    ToolUse,
    TurnEnd,
    UsageEvent,
    UserMessage,
)
from agent_tui.core.events import SessionStart as SessionInfo
from agent_tui.core.permissions import Approval, ApprovalRequest, Mode
from agent_tui.ui.approval.desk import ApprovalDesk, describe_request
from agent_tui.ui.calls.book import CallBook, CallState, CallStatus, Clock
from agent_tui.ui.chat.tool_line import ToolLine
from agent_tui.ui.common.format import model_label, shorten_home
from agent_tui.ui.lane.tool_card import ToolCard
from agent_tui.ui.shell import control_actions, screen_actions, startup
from agent_tui.ui.shell import palette as commands
from agent_tui.ui.shell.events_bridge import AgentEvent, forward
from agent_tui.ui.shell.main_screen import MainScreen
from agent_tui.ui.shell.prompt_input import PromptInput
from agent_tui.ui.shell.status_bar import Activity
from agent_tui.ui.shell.themes import ThemeKeeper

if TYPE_CHECKING:
    from agent_tui.ui.approval.screen import Ask

ABANDONED = "the turn ended before this call finished"


class AgentApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "agent-tui"
    CURSOR_BLINK: ClassVar[bool] = True
    """Blinking cursors in the prompt and dialogs (tests and snapshots turn it off)."""

    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", id="interrupt"),
        Binding("ctrl+c", "ctrl_c", "Quit", priority=True, id="quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit.alt"),
        Binding("ctrl+l", "clear", "Clear", id="clear"),
    ]

    def __init__(
        self,
        agent: Agent,
        demo: bool = False,
        initial_prompt: str | None = None,
        session: SessionInfo | None = None,
        *,
        cwd_label: str | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__()
        self.agent = agent
        self.demo = demo
        self.initial_prompt = initial_prompt
        self.session = session
        self.clock = clock
        self.cwd_label = cwd_label if cwd_label is not None else shorten_home(agent.cwd)
        self.model = model_label(agent.provider.name)
        self.calls = CallBook(clock, agent.settings.ui.auto_expand)
        self.desk = ApprovalDesk(
            self, self._describe_ask, self._answered, cursor_blink=self.CURSOR_BLINK
        )
        self._busy = False
        self._main: MainScreen | None = None
        self.quit_armed_at: float | None = None
        """When Ctrl+C was last pressed (``control_actions.ctrl_c``)."""
        self.theme_keeper: ThemeKeeper | None = None
        self.sub_title = f"{self.model} · offline demo" if demo else self.model
        agent.executor.asker = self.desk.ask

    # -- wiring ----------------------------------------------------------------------------

    @property
    def main(self) -> MainScreen:
        """The main screen (chat, lane, prompt, status), wherever the screen stack is."""
        assert self._main is not None, "the app is not mounted yet"
        return self._main

    async def on_mount(self) -> None:
        problems = startup.install_app_themes(self)
        self._main = MainScreen(self.clock, cursor_blink=self.CURSOR_BLINK)
        await self.push_screen(self._main)
        await startup.show_session(self, problems)
        if not self.is_headless:  # a process of its own (tests share theirs)
            self.call_after_refresh(startup.quiet_gc)
        self.main.status.follow_mcp(self.agent.tool_sources)
        self._start_tool_sources()
        if self.initial_prompt:
            self.send(self.initial_prompt)

    @work(group="tool-sources", exit_on_error=False, name="start-tool-sources")
    async def _start_tool_sources(self) -> None:
        """Start connecting MCP servers at launch, in the background (``startup``)."""
        await startup.start_tool_sources(self.agent)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from commands.system_commands(self)

    # -- sending ---------------------------------------------------------------------------

    def send(self, text: str) -> bool:
        """Start a turn with ``text``; refused (with a notice) while a turn runs."""
        if self.busy:
            self.notify("A turn is running. Press Esc to interrupt it first.", severity="warning")
            return False
        self.busy = True
        self.main.prompt.busy = True
        self._set_activity(Activity.THINKING)
        self._run_turn(text)
        return True

    @on(PromptInput.Submitted)
    def _submitted(self, event: PromptInput.Submitted) -> None:
        if self.send(event.text):
            event.input.commit()

    @work(exclusive=True, group="agent", exit_on_error=False, name="agent-turn")
    async def _run_turn(self, prompt: str) -> None:
        await forward(self.agent.run(prompt), self)

    # -- events ----------------------------------------------------------------------------

    async def on_agent_event(self, message: AgentEvent) -> None:
        event: Event = message.event
        chat, lane = self.main.chat, self.main.lane
        if isinstance(event, AssistantDelta):  # gathered: one write for a backlog of deltas
            chat.gather(event.text)
            return
        await chat.flush()
        changed = self.calls.apply(event)
        match event:
            case UserMessage():
                await lane.begin_turn(event.text)
                await chat.add_user(event.text)
            case AssistantMessage():
                await chat.end_reply(event.text)
            case ToolUse():
                for call in changed:
                    await chat.add_call(call)
                    await lane.add_call(call)
            case ToolGroup():
                await chat.group_calls(changed)
                await lane.group_calls(changed)
            case UsageEvent():
                self.main.status.input_tokens = event.session.input_tokens
                self.main.status.output_tokens = event.session.output_tokens
            case ErrorEvent():
                await chat.add_error(f"{event.where} error", event.message)
            case TurnEnd():
                await self._end_turn()
                if event.reason == "interrupted":
                    await chat.add_notice("Interrupted", "warning")
            case _:
                self._refresh_calls(changed)
        if changed and self.busy:
            self._set_activity(self._tool_activity())

    def _refresh_calls(self, calls: list[CallState]) -> None:
        for call in calls:
            self.main.lane.refresh_call(call.id)
            self.main.chat.refresh_call(call.id)

    def _tool_activity(self) -> Activity:
        pending = self.calls.unfinished()
        if any(c.status is CallStatus.APPROVAL for c in pending):
            return Activity.APPROVAL
        return Activity.RUNNING if pending else Activity.THINKING

    def _set_activity(self, activity: Activity) -> None:
        status = self.main.status
        if status.activity is Activity.INTERRUPTING and activity is not Activity.IDLE:
            return
        status.activity = activity

    async def _end_turn(self) -> None:
        """Back to idle (idempotent: the turn_end event and the worker's end both land here)."""
        if not self.busy:
            return
        self.busy = False
        await self.main.chat.end_reply()
        self._refresh_calls(self.calls.abandon(ABANDONED))
        await self.main.lane.settle()
        self.main.prompt.busy = False
        self._set_activity(Activity.IDLE)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "agent" or not event.worker.is_finished:
            return
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            await self.main.chat.add_error(
                "internal error", f"{type(error).__name__}: {error}" if error else "unknown"
            )
        elif event.state is WorkerState.CANCELLED and self.busy:
            await self.main.chat.add_notice("Cancelled", "warning")
        await self._end_turn()

    @on(ToolLine.Selected)
    async def _show_card(self, event: ToolLine.Selected) -> None:
        if not await self.main.lane.reveal(event.call_id):
            self.notify("That call has no card in the lane (it is from a resumed session).")

    @on(ToolCard.OpenSpill)
    def _open_card_spill(self, event: ToolCard.OpenSpill) -> None:
        spill = event.card.call.spill
        self.action_open_spill(spill.path if spill is not None else "")

    # -- approvals -------------------------------------------------------------------------

    def _describe_ask(self, request: ApprovalRequest) -> Ask:
        self._set_activity(Activity.APPROVAL)
        return describe_request(request, self.agent.policy, self.agent.cwd)

    def _answered(self, request: ApprovalRequest, approval: Approval) -> None:
        if approval.allowed and (state := self.calls.start(request.call.id)) is not None:
            self._refresh_calls([state])
        self._set_activity(Activity.RUNNING if approval.allowed else self._tool_activity())

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt":
            return True if self.busy else None
        if action == "clear":
            return None if self.busy else True
        return True

    async def action_quit(self) -> None:
        """Stop the turn, close the agent (spill cleanup, provider), then exit."""
        await control_actions.quit_app(self)

    async def action_ctrl_c(self) -> None:
        """First press: interrupt the running turn and arm; a second press soon after quits."""
        await control_actions.ctrl_c(self)

    def action_cycle_mode(self) -> None:
        """Next permission mode (default → accept-edits → plan → bypass)."""
        control_actions.cycle_mode(self)

    def set_mode(self, mode: Mode) -> None:
        control_actions.set_mode(self, mode)

    def action_interrupt(self) -> None:
        if self.busy:
            self.agent.interrupt()
            self._set_activity(Activity.INTERRUPTING)

    async def action_clear(self) -> None:
        if self.busy:
            return
        self.calls.clear()
        await self.main.chat.clear()
        await self.main.lane.clear()

    def action_open_spill(self, path: str = "") -> None:
        """Open the spill browser: on ``path`` (a card's spill pointer) at line 1, or on the
        newest spill (``screen_actions.open_spill``)."""
        screen_actions.open_spill(self, path)

    def action_mcp_panel(self) -> None:
        """Open the MCP panel: servers, their status and their tools (closes it when open)."""
        screen_actions.mcp_panel(self)

    @work(group="sessions", exclusive=True, exit_on_error=False, name="list-sessions")
    async def pick_session(self) -> None:
        from agent_tui.ui.shell.session_list import sessions_of

        found = await asyncio.to_thread(sessions_of, self.agent.sessions, self.agent.cwd)
        commands.pick_session(self, found)

    @property
    def busy(self) -> bool:
        """A turn is running."""
        return self._busy

    @busy.setter
    def busy(self, value: bool) -> None:
        self._busy = value
        self.refresh_bindings()
