"""How one core event shows in the TUI: the chat, the tool lane, the plan and the status.

``EventView.show`` is the one path every event takes, from a live turn (the app's
``on_agent_event``) and from a resumed transcript told again as events
(``core.conversation.replay``). It keeps the call model (``CallBook``) current, refreshes the
calls' lines and cards, moves the status bar's activity and token figures, and ends the turn
(``end_turn``: also when the agent's worker ends). Built by the app once the core is there; what it
uses of the app is ``EventHost``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.css.query import NoMatches

from agent_tui.ui.common.messages import TranscriptChanged
from agent_tui.ui.shell.activity import Activity

if TYPE_CHECKING:
    from textual.screen import Screen

    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.events import Event, ModelRetry
    from agent_tui.ui.calls.book import CallBook, CallState
    from agent_tui.ui.shell.main_screen import MainScreen
    from agent_tui.ui.shell.type_ahead import TypeAhead

ABANDONED = "the turn ended before this call finished"


class EventHost(Protocol):
    """What of the app (``AgentApp``) the view reads and renders into: the agent, the call
    model, the queued messages, the screens and the status figures."""

    agent: Agent
    calls: CallBook
    type_ahead: TypeAhead
    busy: bool
    activity: Activity
    retry_until: float
    input_tokens: int
    output_tokens: int
    context_tokens: int
    context_window: int
    context_estimated: bool

    @property
    def main(self) -> MainScreen: ...

    @property
    def screen(self) -> Screen[Any]: ...

    @property
    def tunes_gc(self) -> bool: ...

    @property
    def showing(self) -> bool: ...

    def call_after_refresh(
        self, callback: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> bool: ...


class EventView:
    """Renders the core's events into the app's screens (``app``: the ``AgentApp``)."""

    def __init__(self, app: EventHost) -> None:
        self.app = app
        self.plan_waiting = False
        """A plan proposed in plan mode waits for the user (``PlanDesk``): as an approval."""
        agent = app.agent
        self._transcript_seen = (id(agent.messages), len(agent.messages))
        """The transcript (which list, how long) the screen on top was last told of."""

    def note_transcript(self) -> None:
        """Tell the screen on top when the transcript changed (the spill browser lists which
        spills live messages point to)."""
        app = self.app
        key = (id(app.agent.messages), len(app.agent.messages))
        if key != self._transcript_seen:
            self._transcript_seen = key
            if app.screen is not app.main:
                app.screen.post_message(TranscriptChanged())

    async def receive(self, event: Event) -> None:
        """A live turn's event (the app's ``on_agent_event``): shown, unless the main screen
        is not up (an event of a turn still ending while the app shuts down)."""
        if not self.app.showing:
            return
        try:
            await self.show(event)
        except NoMatches:
            if self.app.showing:
                raise
        self.note_transcript()

    async def show(self, event: Event) -> None:
        """Render one core event: the same path for a live turn and a resumed transcript."""
        from agent_tui.core.events import (
            AssistantDelta,
            AssistantMessage,
            CompactionEvent,
            ErrorEvent,
            HookEvent,
            ModelRetry,
            PlanEvent,
            ToolGroup,
            ToolUse,
            TurnEnd,
            UsageEvent,
            UserInjected,
            UserMessage,
        )

        app = self.app
        chat, lane = app.main.chat, app.main.lane
        if app.retry_until and not isinstance(event, ModelRetry):
            app.retry_until = 0.0  # the request is under way again (or the turn ended)
        if isinstance(event, AssistantDelta):  # gathered: one write for a backlog of deltas
            chat.gather(event.text)
            if app.busy:
                self.set_activity(Activity.WRITING)
            return
        await chat.flush()
        if isinstance(event, ModelRetry):
            await self.show_retry(event)
            return
        changed = app.calls.apply(event)
        if getattr(event, "parent_call_id", None):  # a subagent's call: its task card shows it
            self.refresh_calls(changed)
            if changed and app.busy:
                self.set_activity(self.tool_activity())
            return
        await self.show_in_chat(event, changed)
        match event:
            case UserMessage():
                await lane.begin_turn(event.text)
            case UserInjected():  # typed during the turn, taken at a tool boundary
                app.type_ahead.injected(event.id)
            case ToolUse():
                for call in changed:
                    await lane.add_call(call)
            case ToolGroup():
                await lane.group_calls(changed)
            case UsageEvent():
                app.input_tokens = event.session.input_tokens
                app.output_tokens = event.session.output_tokens
                if event.context_window and event.context_tokens is not None:
                    app.context_tokens = event.context_tokens
                    app.context_window = event.context_window
                    app.context_estimated = bool(event.estimated)
                if app.tunes_gc:
                    # a model request ended: in a long turn (hundreds of calls) the replies,
                    # rows and cards that left the screen since are dead, but frozen with the
                    # heap; collected here once it grew, as at a turn's end
                    from agent_tui.ui.shell import heap

                    app.call_after_refresh(heap.settle)
            case CompactionEvent():
                if event.phase == "end":
                    await lane.add_compaction(event)
                if event.phase == "end" and event.tokens_after and app.context_window:
                    app.context_tokens = event.tokens_after  # until the next response counts
                    app.context_estimated = True
            case PlanEvent():
                app.main.plan.show(event)
            case TurnEnd():
                app.type_ahead.ended(event.reason)
                await self.end_turn()
            case UserMessage() | AssistantMessage() | ErrorEvent() | HookEvent():
                pass
            case _:
                self.refresh_calls(changed)
        if changed and app.busy:
            self.set_activity(self.tool_activity())

    async def show_in_chat(self, event: Event, changed: list[CallState]) -> None:
        """What ``event`` adds to the chat (``changed``: the call states it touched)."""
        from agent_tui.core.events import (
            AssistantMessage,
            CompactionEvent,
            ErrorEvent,
            HookEvent,
            JobsEnded,
            ToolGroup,
            ToolUse,
            TurnEnd,
            UserInjected,
            UserMessage,
        )
        from agent_tui.ui.jobs.job_text import jobs_ended_line

        chat = self.app.main.chat
        match event:
            case UserMessage():
                await chat.add_user(event.text, event.mentions, event.images)
                if event.command is not None:  # what a custom command grants this turn
                    await chat.add_notice(event.command.summary(), "info")
                    for note in event.command.notes:
                        await chat.add_notice(f"/{event.command.name}: {note}", "warning")
            case UserInjected():
                await chat.add_user(event.text)
            case JobsEnded():  # what the model was just told (typed: built here)
                for job in event.jobs:
                    await chat.add_notice(jobs_ended_line(job), "muted")
            case AssistantMessage():
                await chat.end_reply(event.text)
            case ToolUse():
                for call in changed:
                    await chat.add_call(call)
            case ToolGroup():
                await chat.group_calls(changed)
            case ErrorEvent():
                await chat.add_error(f"{event.where} error", event.message)
            case CompactionEvent():
                await chat.show_compaction(event)
            case HookEvent():  # a hook that blocked, failed or timed out is shown
                if event.outcome != "ok":
                    what = f"{event.event} hook {event.outcome}"
                    shown = f"{what}: {event.message or event.command}"
                    if event.outcome == "blocked":
                        await chat.add_notice(shown, "muted")
                    else:
                        await chat.add_notice(shown, "warning")
            case TurnEnd():
                if event.reason == "interrupted":
                    await chat.add_notice("Interrupted", "warning")

    async def show_retry(self, event: ModelRetry) -> None:
        """The request is sent again after a wait: say why in the chat, and count the wait down
        in the status bar (Esc stops it, as it stops the turn)."""
        app = self.app
        whose = "as the server asked" if event.retry_after else "backing off"
        await app.main.chat.add_notice(
            f"Retry {event.attempt} of {event.retries} in {event.wait:.0f} s ({whose}): "
            f"{event.reason}",
            "warning",
        )
        if app.busy:
            app.retry_until = time.monotonic() + event.wait
            self.set_activity(Activity.RETRYING)

    def calls_of(self, event: Event) -> list[CallState]:
        """The (final) states of the calls a replayed ``tool_use`` or ``tool_group`` names."""
        from agent_tui.core.events import ToolGroup, ToolUse

        if isinstance(event, ToolUse):
            ids = [event.id]
        elif isinstance(event, ToolGroup):
            ids = list(event.ids)
        else:
            return []
        return [call for i in ids if (call := self.app.calls.get(i)) is not None]

    def refresh_calls(self, calls: list[CallState]) -> None:
        """Redraw the lane's card and the chat's line of each of ``calls``."""
        main = self.app.main
        for call in calls:
            main.lane.refresh_call(call.id)
            main.chat.refresh_call(call.id)

    def tool_activity(self) -> Activity:
        """The activity the unfinished calls make: waiting for approval, running, or the
        model thinking (none left)."""
        from agent_tui.ui.calls.book import CallStatus

        pending = self.app.calls.unfinished()
        if self.plan_waiting or any(c.status is CallStatus.APPROVAL for c in pending):
            return Activity.APPROVAL
        return Activity.RUNNING if pending else Activity.THINKING

    def set_activity(self, activity: Activity) -> None:
        """Show ``activity`` in the status bar (an interrupt keeps showing until idle)."""
        app = self.app
        if app.activity is Activity.INTERRUPTING and activity is not Activity.IDLE:
            return
        app.activity = activity

    async def end_turn(self) -> None:
        """Back to idle (idempotent: the turn_end event and the worker's end both land here)."""
        app = self.app
        if not app.busy:
            return
        app.busy = False
        app.retry_until = 0.0
        await app.main.chat.end_reply()
        self.refresh_calls(app.calls.abandon(ABANDONED))
        await app.main.lane.settle()
        self.set_activity(Activity.IDLE)
        if app.tunes_gc:  # idle now: a moment to collect what the frozen heap let die
            from agent_tui.ui.shell import heap

            app.call_after_refresh(heap.settle)
