"""What the main screen shows of the session: cleared for another one, and a resumed
session's transcript rendered as a live turn is.

``SessionViews.show_transcript`` tells the transcript again as the events that made it
(``core.conversation.replay``): the last turns at once, the earlier ones read after the first frame
into the call model and the ``Backlog``, rendered a page at a time when the chat scrolls up
(``load_earlier``). ``reset`` clears the chat, the lane and the plan (a new session, a rewind,
the palette's clear screen); ``take`` shows a session's model, mode and token figures in the
status bar. What it uses of the app is ``ViewsHost``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from agent_tui.ui.common.format import model_label
from agent_tui.ui.shell import backlog

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.events import Event, SessionStart
    from agent_tui.ui.calls.book import CallBook
    from agent_tui.ui.shell.event_view import EventView
    from agent_tui.ui.shell.main_screen import MainScreen

REFREEZE_AFTER = 1.0
"""Seconds after a session's views are replaced before the heap is collected and frozen
again (``heap.refreeze``)."""


class ViewsHost(Protocol):
    """What of the app (``AgentApp``) the views use: the agent's transcript, the session it
    describes and its figures, the call model, the event view and the main screen."""

    agent: Agent
    session: SessionStart
    calls: CallBook
    event_view: EventView
    model: str
    demo: bool
    busy: bool
    mode: str
    input_tokens: int
    output_tokens: int
    context_tokens: int
    context_window: int
    context_estimated: bool

    @property
    def main(self) -> MainScreen: ...

    @property
    def tunes_gc(self) -> bool: ...


class SessionViews:
    """The session as the main screen shows it (``app`` runs the workers; ``host`` is what
    the views read)."""

    def __init__(self, app: App[Any], host: ViewsHost) -> None:
        self.app = app
        self.host = host
        self.backlog = backlog.Backlog()
        """A resumed session's earlier turns not rendered in the chat yet."""

    def take(self, start: SessionStart) -> None:
        """Show the session ``start`` describes: model, demo, mode, tokens."""
        host = self.host
        agent = host.agent
        host.session = start
        host.model = model_label(start.model)
        host.demo = start.demo
        host.mode = start.permission_mode if agent.policy.mode is not None else ""
        host.input_tokens = agent.usage.input_tokens
        host.output_tokens = agent.usage.output_tokens
        context = agent.context() if agent.messages else None  # a resumed transcript
        host.context_tokens = context.tokens if context is not None else 0
        host.context_window = context.window if context is not None else 0
        host.context_estimated = context.estimated if context is not None else False

    async def reset(self) -> None:
        """Clear the chat, the lane and the plan, and forget the calls and the backlog."""
        app, host = self.app, self.host
        host.event_view.note_transcript()
        app.workers.cancel_group(app, "backlog")
        self.backlog.ready.set()  # nothing waits for a backlog no longer shown
        self.backlog = backlog.Backlog()
        host.calls.clear()
        await host.main.chat.clear()
        await host.main.lane.clear()
        host.main.plan.clear()
        if host.tunes_gc:  # the old session's views were frozen with the heap: free them
            from agent_tui.ui.shell import heap

            heap.thaw()
            # once nothing holds the removed widgets any more (the screen lets them go over
            # the next frames, as their removal is processed)
            app.set_timer(REFREEZE_AFTER, heap.refreeze, name="refreeze")

    async def clear_screen(self) -> None:
        """Clear the chat and the lane; the model keeps its context (the palette's entry)."""
        if self.host.busy:
            return
        await self.reset()
        await self.host.main.chat.add_notice(
            "Screen cleared · the model still has the whole conversation (ctrl+l starts a new one)",
            "muted",
        )

    async def show_transcript(self, notice: str | None = None) -> None:
        """The transcript of a resumed session, told again as the events that made it and
        rendered exactly as a live turn is (``core.conversation.replay``), then a notice
        (``notice``, or which session was resumed)."""
        from agent_tui.core.conversation.replay import transcript_events, turn_starts

        app, host = self.app, self.host
        messages = host.agent.messages
        lane = host.main.lane
        history = host.agent.history()
        # the last turns are rendered now; the earlier ones are read after the first frame
        starts = turn_starts(history)
        hidden = len(starts) - backlog.RESUME_TURNS if len(starts) > backlog.ALL_TURNS else 0
        cut = starts[hidden] if hidden else 0
        self.backlog = backlog.Backlog(turns=hidden)
        await host.main.chat.set_earlier(self.backlog.turns)
        lane.hold(True)  # earlier turns fold as the next begins: never mount their cards
        collecting = gc.isenabled()
        gc.disable()  # what the replay makes lives on: full collections would only walk it
        try:
            for event in transcript_events(history, start=cut):
                await host.event_view.show(event)
        finally:
            if host.tunes_gc:  # and collections after it too: it leaves them nothing to find
                from agent_tui.ui.shell import heap

                heap.freeze()
            if collecting:
                gc.enable()
            lane.hold(False)
        if cut:  # after the frame that shows the last turns
            earlier = transcript_events(history, stop=cut)
            app.call_after_refresh(
                app.run_worker,
                self._fill_backlog(self.backlog, earlier),
                group="backlog",
                exit_on_error=False,
            )
        await lane.settle()
        if notice is None:
            session = host.session
            which = f"session {session.session_id}" if session.session_id else "session"
            notice = f"Resumed {which} · {len(messages)} messages"
            if session.forked_from:
                notice = (
                    f"Forked session {session.forked_from} into {which} · "
                    f"{len(messages)} messages (the original stays as it was)"
                )
        await host.main.chat.add_notice(notice, "info")

    async def _fill_backlog(self, earlier: backlog.Backlog, events: Iterator[Event]) -> None:
        """Read a resumed session's earlier turns into the call model and the backlog, then
        list them in the lane (after the first frame: the app answers keys meanwhile)."""
        host = self.host
        plan_shown = host.main.plan.plan is not None
        await earlier.fill(events, host.calls)
        if earlier is not self.backlog:  # another session was shown meanwhile
            return
        await host.main.lane.add_earlier(earlier.lane)
        if earlier.plan is not None and not plan_shown and host.main.plan.plan is None:
            host.main.plan.show(earlier.plan)
        if host.tunes_gc:  # the earlier turns live as long as the session is shown
            from agent_tui.ui.shell import heap

            heap.freeze()

    async def load_earlier(self) -> None:
        """Render a page of a resumed session's earlier turns above the ones shown, keeping
        what the user looks at in place."""
        host = self.host
        chat, earlier = host.main.chat, self.backlog
        if not earlier.ready.is_set():  # still being read: load once it is (never wait here)
            self.app.run_worker(
                self._load_when_ready(earlier), group="backlog", exit_on_error=False
            )
            return
        page = earlier.take_page()
        if chat.earlier is None or not page or earlier is not self.backlog:
            return
        height = chat.virtual_size.height
        chat.insert_before = chat.after_earlier()
        try:
            for events in page:
                for replayed in events:
                    calls = host.event_view.calls_of(replayed)
                    await host.event_view.show_in_chat(replayed, calls)
        finally:
            chat.insert_before = None
        await chat.set_earlier(len(earlier.chat))

        def keep_place() -> None:
            chat.scroll_to(
                y=chat.scroll_y + chat.virtual_size.height - height,
                animate=False,
                immediate=True,
            )

        chat.call_after_refresh(keep_place)

    async def _load_when_ready(self, earlier: backlog.Backlog) -> None:
        from agent_tui.ui.chat.earlier_turns import EarlierTurns

        await earlier.ready.wait()
        if earlier is self.backlog:
            self.app.post_message(EarlierTurns.Load())
