"""``AgentApp``: wires the agent loop (on a worker) to the chat, the tool lane and the prompt.

The loop runs in the ``agent`` worker group; every core event arrives as one ``AgentEvent``
message and is routed here to the widgets (attributes down). Approvals asked by the executor
open ``ApprovalScreen``; a crash of the worker is shown in the chat and the app keeps running.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import App
from textual.binding import Binding
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
from agent_tui.core.permissions import Approval, ApprovalRequest, PermissionPipeline
from agent_tui.core.permissions.policy import describe_input
from agent_tui.ui.events_bridge import AgentEvent, forward
from agent_tui.ui.format import model_label, shorten_home
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.main import MainScreen
from agent_tui.ui.themes import install_themes
from agent_tui.ui.tool_calls import CallBook, CallState, CallStatus, Clock, states_from_history
from agent_tui.ui.widgets.prompt_input import PromptInput
from agent_tui.ui.widgets.status_bar import Activity

ABANDONED = "the turn ended before this call finished"
CLOSE_TIMEOUT = 5.0
"""Seconds quitting waits for the agent to clean up before exiting anyway."""


class AgentApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "agent-tui"
    CURSOR_BLINK: ClassVar[bool] = True
    """Blinking cursors in the prompt and dialogs (tests and snapshots turn it off)."""

    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", id="interrupt"),
        Binding("ctrl+c", "quit", "Quit", priority=True, id="quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit.alt"),
        Binding("ctrl+l", "clear", "Clear", id="clear"),
        Binding("ctrl+o", "cycle_mode", "Mode", id="mode"),
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
        self.calls = CallBook(clock)
        self._busy = False
        self._main: MainScreen | None = None
        self.sub_title = f"{self.model} · offline demo" if demo else self.model
        agent.executor.asker = self._ask

    # -- wiring ----------------------------------------------------------------------------

    @property
    def main(self) -> MainScreen:
        """The main screen (chat, lane, prompt, status), wherever the screen stack is."""
        assert self._main is not None, "the app is not mounted yet"
        return self._main

    async def on_mount(self) -> None:
        install_themes(self)
        self._main = MainScreen(self.clock, cursor_blink=self.CURSOR_BLINK)
        await self.push_screen(self._main)
        status = self.main.status
        status.model, status.demo, status.cwd = self.model, self.demo, self.cwd_label
        status.mode = self._mode_label()
        status.input_tokens = self.agent.usage.input_tokens
        status.output_tokens = self.agent.usage.output_tokens
        await self._greet()
        if self.initial_prompt:
            self.send(self.initial_prompt)

    async def _greet(self) -> None:
        chat = self.main.chat
        for warning in self.session.warnings if self.session else []:
            await chat.add_notice(warning, "warning")
        if self.agent.messages:
            await chat.replay(self.agent.messages, states_from_history(self.agent.messages))
            session = f"session {self.session.session_id}" if self.session else "the session"
            count = len(self.agent.messages)
            await chat.add_notice(f"Resumed {session} · {count} messages", "info")
        elif self.demo:
            await chat.add_notice(
                "This is the offline demo model: canned answers, no key, no network. "
                "Type “tour” for a guided walk through tool cards and approvals.",
                "info",
            )

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
        changed = self.calls.apply(event)
        match event:
            case UserMessage():
                await chat.add_user(event.text)
            case AssistantDelta():
                await chat.stream(event.text)
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

    # -- approvals -------------------------------------------------------------------------

    async def _ask(self, request: ApprovalRequest) -> Approval:
        """The executor's asker: open the permission prompt and wait for the answer."""
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        call_id = request.call.id

        def answered(approval: Approval | None) -> None:
            approval = approval or Approval(allowed=False)
            if approval.allowed and (state := self.calls.start(call_id)) is not None:
                self._refresh_calls([state])
            self._set_activity(Activity.RUNNING if approval.allowed else self._tool_activity())
            if not future.done():
                future.set_result(approval)

        self._set_activity(Activity.APPROVAL)
        suggest = getattr(self.agent.policy, "suggest", None)
        always = ", ".join(map(str, suggest(request))) if suggest else None
        screen = ApprovalScreen(
            request.call.name,
            describe_input(request.input),
            request.reason,
            always=always,
            cursor_blink=self.CURSOR_BLINK,
        )
        await self.push_screen(screen, callback=answered)
        try:
            return await future
        except asyncio.CancelledError:  # the turn was interrupted while the prompt was open
            if screen.is_attached and self.screen is screen:
                self.pop_screen()
            raise

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt":
            return True if self.busy else None
        if action == "clear":
            return None if self.busy else True
        return True

    async def action_quit(self) -> None:
        """Stop the turn, close the agent (spill cleanup, provider), then exit."""
        if self.busy:
            self.agent.interrupt()
        try:
            await asyncio.wait_for(self.agent.close(), CLOSE_TIMEOUT)
        except TimeoutError:
            pass
        self.exit()

    def _mode_label(self) -> str:
        mode = getattr(self.agent.policy, "mode", None)
        return str(mode) if mode is not None else ""

    def action_cycle_mode(self) -> None:
        """Next permission mode (default → accept-edits → plan → bypass); takes effect at
        the next decision, also in the running turn."""
        policy = self.agent.policy
        if not isinstance(policy, PermissionPipeline):
            self.notify("Permission modes are not available with this policy.")
            return
        policy.mode = policy.mode.next()
        self.main.status.mode = policy.mode.value
        self.notify(f"Permission mode: {policy.mode.value} — {policy.mode.describe}")

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

    @property
    def busy(self) -> bool:
        """A turn is running."""
        return self._busy

    @busy.setter
    def busy(self, value: bool) -> None:
        self._busy = value
        self.refresh_bindings()
