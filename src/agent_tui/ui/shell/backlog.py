"""A resumed session's earlier turns, kept out of the DOM: a resume renders its last turns as
a live turn is, and reads the ones before them (``core.conversation.replay``, split with
``turn_start``) after the first frame into the call model (``CallBook``: every call stays known,
navigable and searchable) and this backlog, to be rendered later — in the lane as one folded line a
turn (``HiddenTurn``), in the chat as their events, a page at a time when the user scrolls up."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from agent_tui.core.events import (
    AssistantMessage,
    CompactionEvent,
    ErrorEvent,
    Event,
    HookEvent,
    PlanEvent,
    ToolGroup,
    ToolUse,
    TurnEnd,
    UserInjected,
    UserMessage,
)
from agent_tui.ui.calls.book import CallBook
from agent_tui.ui.lane.lane_entries import HiddenTurn

RESUME_TURNS = 3
"""Turns a long resumed session renders at once (the last ones)."""
ALL_TURNS = 10
"""A session of at most this many turns is rendered whole (it is quick)."""
PAGE_TURNS = 5
"""Earlier turns the chat renders per page."""
SLICE_SECONDS = 0.008
"""How long the earlier events are read before the app's other work (keys, frames) runs."""

CHAT_EVENTS = (
    UserMessage,
    UserInjected,
    AssistantMessage,
    ToolUse,
    ToolGroup,
    ErrorEvent,
    CompactionEvent,
    HookEvent,
    TurnEnd,
)
"""The events that leave something in the chat (the others only change call states)."""


@dataclass
class Backlog:
    turns: int = 0
    """How many earlier turns there are (known before they are read)."""
    lane: list[HiddenTurn] = field(default_factory=list)
    """The earlier turns, for the lane."""
    chat: list[list[Event]] = field(default_factory=list)
    """Each earlier turn's events the chat renders, oldest turn first."""
    plan: PlanEvent | None = None
    """The last plan of the earlier turns."""
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when every earlier event is in (``fill``)."""

    def take_page(self, count: int = PAGE_TURNS) -> list[list[Event]]:
        """The newest ``count`` turns not rendered in the chat yet (oldest first), removed."""
        page = self.chat[-count:] if count > 0 else []
        del self.chat[len(self.chat) - len(page) :]
        return page

    async def fill(self, events: Iterable[Event], book: CallBook) -> None:
        """Take the earlier turns' events: into ``book`` (every call's final state) and this
        backlog, in slices of a few milliseconds so the app keeps answering keys meanwhile."""
        lane: HiddenTurn | None = None
        began = time.perf_counter()
        for count, event in enumerate(events, 1):
            if count % 20 == 0 and time.perf_counter() - began > SLICE_SECONDS:
                await asyncio.sleep(0)
                began = time.perf_counter()
            changed = book.apply(event)
            if isinstance(event, UserMessage) or lane is None:
                lane = HiddenTurn(event.text if isinstance(event, UserMessage) else "")
                self.lane.append(lane)
                self.chat.append([])
            if getattr(event, "parent_call_id", None):  # a subagent's call: its task has it
                continue
            if isinstance(event, ToolUse):
                for call in changed:
                    lane.add(call)
            elif isinstance(event, ToolGroup):
                known = {call.id for call in lane.calls}
                ids = [call.id for call in changed if call.id in known]
                if len(ids) > 1:
                    lane.group(ids)
            elif isinstance(event, PlanEvent):
                self.plan = event
            if isinstance(event, CHAT_EVENTS):
                self.chat[-1].append(event)
        self.ready.set()
