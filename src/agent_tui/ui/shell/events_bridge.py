"""The adapters between the core and Textual: each source of news posts messages, so the app
learns everything on its own message loop and nothing is called from the side.

``forward`` iterates the agent loop's typed events (``agent_tui.core.events``) on the agent
worker and posts each as an ``AgentEvent``, so every render state the TUI shows comes from
exactly one core event — except the reply's text: a run of ``AssistantDelta`` events arriving
within a frame (``FRAME_SECONDS``) travels as one ``AssistantDelta`` carrying their text
(``DeltaBatcher``), so a model streaming thousands of tokens a second costs the app a message a
frame, not one a token. A turn's ``user_message`` is painted before the turn goes on
(``PROMPT_PAINT_SECONDS`` at most): what its first request costs (a compaction of a long
session, a request carrying the whole transcript) comes after the prompt is on screen, so Enter
shows the prompt as soon in a session of 500 turns as in an empty one. ``watch_sources`` turns
the listener callbacks of tool sources (the MCP manager) into ``SourcesChanged`` messages, and
a server's log messages of error or worse (the manager's ``hub.add_log_listener``) into
``ServerLogged`` messages carrying the typed entry.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable

from textual.message import Message
from textual.message_pump import MessagePump

from agent_tui.core.events import AssistantDelta, Event, UserMessage
from agent_tui.core.mcp.client.server_log import LogEntry

FRAME_SECONDS = 1 / 60
"""Deltas arriving within this long of the last posted one wait and go together."""
PROMPT_PAINT_SECONDS = 0.5
"""The longest a turn waits for its prompt to be painted before it goes on."""


class AgentEvent(Message):
    """A core event, posted by the agent worker to the app. A posted ``AssistantDelta`` that
    the app has not taken yet takes the text of the deltas after it (``merge``)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self._event = event
        self._more: list[str] = []
        self.taken = False
        """The app has read ``event``: nothing more can be merged into it."""

    @property
    def event(self) -> Event:
        self.taken = True
        if self._more and isinstance(self._event, AssistantDelta):
            text = self._event.text + "".join(self._more)
            self._event = AssistantDelta.model_construct(text=text)  # each part was checked
            self._more.clear()
        return self._event

    def merge(self, text: str) -> bool:
        """Append ``text`` to this delta, unless the app has read it already."""
        if self.taken or not isinstance(self._event, AssistantDelta):
            return False
        self._more.append(text)
        return True

    def __repr__(self) -> str:
        return f"AgentEvent({self._event.type})"


class DeltaBatcher:
    """Posts the reply's deltas to ``target`` at most about once a frame: the first at once,
    the ones after it merged into the posted message while the app has not read it, or held
    until ``interval`` has passed since the last post (a timer posts them then). ``flush``
    posts what is held (before any other event, so the order never changes)."""

    def __init__(self, target: MessagePump, interval: float = FRAME_SECONDS) -> None:
        self.target = target
        self.interval = interval
        self.held: list[str] = []
        self.posted: AgentEvent | None = None
        """The last message posted, while nothing else was posted after it."""
        self.posted_at = float("-inf")
        self.timer: asyncio.TimerHandle | None = None
        self.messages = 0
        """How many delta messages were posted."""

    def add(self, text: str) -> None:
        if self.posted is not None and self.posted.merge(text):
            return
        self.held.append(text)
        if self.timer is None:
            loop = asyncio.get_running_loop()
            wait = self.posted_at + self.interval - loop.time()
            if wait <= 0:
                self.flush()
            else:
                self.timer = loop.call_later(wait, self.flush)

    def flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.held:
            message = AgentEvent(AssistantDelta.model_construct(text="".join(self.held)))
            self.held.clear()
            self.target.post_message(message)
            self.messages += 1
            self.posted = message
            self.posted_at = asyncio.get_running_loop().time()

    def post(self, event: Event) -> None:
        """Post a non-delta ``event`` after every delta before it."""
        self.flush()
        self.posted = None
        self.target.post_message(AgentEvent(event))


class SourcesChanged(Message):
    """A tool source (an MCP server) changed state: connected, failed, reloaded…"""


class ServerLogged(Message):
    """An MCP server logged a message of error or worse (``LogEntry.severe``)."""

    def __init__(self, entry: LogEntry) -> None:
        super().__init__()
        self.entry = entry


async def forward(events: AsyncIterator[Event], target: MessagePump) -> int:
    """Post every event of ``events`` to ``target`` (runs of deltas batched, ``DeltaBatcher``);
    return how many events there were. Deltas still held when ``events`` ends, fails or is
    cancelled (an interrupt) are posted then."""
    count = 0
    batcher = DeltaBatcher(target)
    try:
        async for event in events:
            count += 1
            if isinstance(event, AssistantDelta):
                batcher.add(event.text)
            else:
                batcher.post(event)
                if isinstance(event, UserMessage):
                    await painted(target)
    finally:
        batcher.flush()
        close = getattr(events, "aclose", None)
        if close is not None:  # cancelled while it waited for a paint: the turn ends too
            await close()
    return count


async def painted(target: MessagePump) -> None:
    """Until ``target`` has handled what was posted to it and the screen has been refreshed
    (``PROMPT_PAINT_SECONDS`` at most: a turn is never held up for long by a busy screen)."""
    done = asyncio.Event()
    if target.call_after_refresh(done.set):
        try:
            await asyncio.wait_for(done.wait(), PROMPT_PAINT_SECONDS)
        except TimeoutError:
            pass


def watch_sources(sources: Iterable[object], target: MessagePump) -> list[Callable[[], object]]:
    """Post ``SourcesChanged`` to ``target`` whenever a source with ``add_listener`` reports a
    change; returns the unsubscribe callables (call them when ``target`` goes away)."""
    unsubscribe: list[Callable[[], object]] = []
    for source in sources:
        listen = getattr(source, "add_listener", None)
        if listen is None:
            continue
        stop = listen(lambda *_: target.post_message(SourcesChanged()))
        if callable(stop):
            unsubscribe.append(stop)
        logs = getattr(getattr(source, "hub", None), "add_log_listener", None)
        if logs is not None:
            stop = logs(lambda entry: target.post_message(ServerLogged(entry)))
            if callable(stop):
                unsubscribe.append(stop)
    return unsubscribe
