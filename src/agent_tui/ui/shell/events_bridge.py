"""The adapters between the core and Textual: each source of news posts messages, so the app
learns everything on its own message loop and nothing is called from the side.

``forward`` iterates the agent loop's typed events (``agent_tui.core.events``) on the agent
worker and posts each as an ``AgentEvent``, so every render state the TUI shows comes from
exactly one core event. ``watch_sources`` turns the listener callbacks of tool sources (the MCP
manager) into ``SourcesChanged`` messages, and a server's log messages of error or worse (the
manager's ``hub.add_log_listener``) into ``ServerLogged`` messages carrying the typed entry.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable

from textual.message import Message
from textual.message_pump import MessagePump

from agent_tui.core.events import Event
from agent_tui.core.mcp.server_log import LogEntry


class AgentEvent(Message):
    """A core event, posted by the agent worker to the app."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event

    def __repr__(self) -> str:
        return f"AgentEvent({self.event.type})"


class SourcesChanged(Message):
    """A tool source (an MCP server) changed state: connected, failed, reloaded…"""


class ServerLogged(Message):
    """An MCP server logged a message of error or worse (``LogEntry.severe``)."""

    def __init__(self, entry: LogEntry) -> None:
        super().__init__()
        self.entry = entry


async def forward(events: AsyncIterator[Event], target: MessagePump) -> int:
    """Post every event of ``events`` to ``target``; return how many were posted."""
    count = 0
    async for event in events:
        target.post_message(AgentEvent(event))
        count += 1
    return count


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
