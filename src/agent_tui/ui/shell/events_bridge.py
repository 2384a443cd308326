"""The one adapter between the core's event stream and Textual: one message per event.

The agent loop yields typed pydantic events (``agent_tui.core.events``); ``forward`` iterates
them on the agent worker and posts each as an ``AgentEvent`` message, so every render state
the TUI shows comes from exactly one core event, handled on the app's message loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from textual.message import Message
from textual.message_pump import MessagePump

from agent_tui.core.events import Event


class AgentEvent(Message):
    """A core event, posted by the agent worker to the app."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event

    def __repr__(self) -> str:
        return f"AgentEvent({self.event.type})"


async def forward(events: AsyncIterator[Event], target: MessagePump) -> int:
    """Post every event of ``events`` to ``target``; return how many were posted."""
    count = 0
    async for event in events:
        target.post_message(AgentEvent(event))
        count += 1
    return count
