"""A resumed session's earlier turns, kept out of the DOM: the replayed transcript split into
the last turns (rendered as a live turn is) and the ones before them, whose events go into the
call model only (``CallBook``: every call stays known, navigable and searchable) and are kept
to be rendered later — in the lane as one folded line a turn (``HiddenTurn``), in the chat as
their events, a page at a time when the user scrolls up."""

from __future__ import annotations

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
    UsageEvent,
    UserInjected,
    UserMessage,
)
from agent_tui.ui.calls.book import CallBook
from agent_tui.ui.lane.lane_entries import HiddenTurn

RESUME_TURNS = 3
"""Turns a resumed session renders at once (the last ones)."""
PAGE_TURNS = 5
"""Earlier turns the chat renders per page."""

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
    lane: list[HiddenTurn] = field(default_factory=list)
    """The earlier turns with calls, for the lane."""
    chat: list[list[Event]] = field(default_factory=list)
    """Each earlier turn's events the chat renders, oldest turn first."""
    carry: list[Event] = field(default_factory=list)
    """The last usage and plan events of the earlier turns (the status bar and plan panel show
    them unless a later turn has its own)."""

    def take_page(self, count: int = PAGE_TURNS) -> list[list[Event]]:
        """The newest ``count`` turns not rendered in the chat yet (oldest first), removed."""
        page = self.chat[-count:] if count > 0 else []
        del self.chat[len(self.chat) - len(page) :]
        return page


def split(
    events: Iterable[Event], book: CallBook, keep: int = RESUME_TURNS
) -> tuple[Backlog, list[Event]]:
    """Split a replayed transcript at the start of its last ``keep`` user turns: the events of
    the earlier turns go into ``book`` and the returned backlog, the rest is returned to be
    shown as usual."""
    events = list(events)
    starts = [i for i, event in enumerate(events) if isinstance(event, UserMessage)]
    cut = starts[-keep] if len(starts) > keep else 0
    backlog = Backlog()
    usage: Event | None = None
    plan: Event | None = None
    lane: HiddenTurn | None = None
    for event in events[:cut]:
        changed = book.apply(event)
        if isinstance(event, UserMessage) or not backlog.chat:
            lane = HiddenTurn(event.text if isinstance(event, UserMessage) else "")
            backlog.lane.append(lane)
            backlog.chat.append([])
        assert lane is not None
        if getattr(event, "parent_call_id", None):  # a subagent's call: its task call has it
            continue
        if isinstance(event, ToolUse):
            for call in changed:
                lane.add(call)
        elif isinstance(event, ToolGroup) and len(changed) > 1:
            lane.group([call.id for call in changed])
        elif isinstance(event, UsageEvent):
            usage = event
        elif isinstance(event, PlanEvent):
            plan = event
        if isinstance(event, CHAT_EVENTS):
            backlog.chat[-1].append(event)
    backlog.carry = [e for e in (usage, plan) if e is not None]
    return backlog, events[cut:]
