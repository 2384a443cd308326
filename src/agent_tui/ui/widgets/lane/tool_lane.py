"""The tool-call lane: one card per call, keyed by call id, parallel batches bracketed.

The app hands it ``CallState``s (attributes down) and tells it which call changed; the lane
only lays the cards out and moves the keyboard focus between them.
"""

from __future__ import annotations

import time

from textual import events, on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent_tui.ui.tool_calls import CallState, Clock
from agent_tui.ui.widgets.lane.group_box import ToolGroupBox
from agent_tui.ui.widgets.lane.tool_card import ToolCard


class ToolLane(VerticalScroll, can_focus=False):
    DEFAULT_CSS = """
    ToolLane {
        height: 1fr;
        padding: 0 1 0 1;
        background: $background;
        border: round $foreground 20%;
        border-title-color: $text-muted;
        border-subtitle-color: $text-muted;
        scrollbar-size-vertical: 1;
        &:focus-within { border: round $primary 60%; border-title-color: $primary; }
        & > .empty { color: $text-muted; padding: 1 1; display: none; }
        &.-empty > .empty { display: block; }
    }
    """

    def __init__(self, clock: Clock = time.monotonic, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-empty")
        self.clock = clock
        self.cards: dict[str, ToolCard] = {}
        self.last_focused: ToolCard | None = None
        self.border_title = "tools"

    def compose(self) -> ComposeResult:
        yield Static("No tool calls yet.", classes="empty")

    def _follow(self) -> None:
        """Once the cards overflow, follow new ones while the user stays at the bottom.

        (Anchored before overflowing, Textual would bottom-align the few cards there are.)
        Scrolling up or focusing an older card releases the anchor; scrolling down restores it.
        """
        if not self.is_anchored and self.max_scroll_y > 0:
            self.anchor()

    def _update_counts(self) -> None:
        self.set_class(not self.cards, "-empty")
        n = len(self.cards)
        self.border_subtitle = f"{n} call{'s' if n != 1 else ''}" if n else ""

    # -- attributes down -------------------------------------------------------------------

    async def add_call(self, call: CallState) -> ToolCard:
        card = ToolCard(call, self.clock)
        self.cards[call.id] = card
        await self.mount(card)
        self._update_counts()
        self.call_after_refresh(self._follow)
        return card

    async def group_calls(self, calls: list[CallState]) -> None:
        """Re-seat the cards of a parallel batch inside one bracketing group box."""
        old = [self.cards[c.id] for c in calls if c.id in self.cards]
        if len(old) < 2:
            return
        focused = next((c.call.id for c in old if c.has_focus), None)
        fresh = [ToolCard(card.call, self.clock) for card in old]
        for card in fresh:
            self.cards[card.call.id] = card
        await self.mount(ToolGroupBox(fresh), before=old[0])
        for card in old:
            await card.remove()
        if focused is not None:
            self.cards[focused].focus()

    def refresh_call(self, call_id: str) -> None:
        if (card := self.cards.get(call_id)) is not None:
            card.update_view()
            self.call_after_refresh(self._follow)

    async def clear(self) -> None:
        self.cards.clear()
        self.last_focused = None
        self.anchor(False)
        await self.remove_children([c for c in self.children if not c.has_class("empty")])
        self._update_counts()

    # -- focus -----------------------------------------------------------------------------

    def ordered_cards(self) -> list[ToolCard]:
        """Cards in screen order (group members in place)."""
        return list(self.query(ToolCard))

    def focus_lane(self) -> bool:
        """Focus the last focused card, else the newest; False when there is none."""
        target = self.last_focused if self.last_focused in self.ordered_cards() else None
        cards = self.ordered_cards()
        target = target or (cards[-1] if cards else None)
        if target is None:
            return False
        target.focus()
        return True

    @on(ToolCard.Move)
    def _move(self, event: ToolCard.Move) -> None:
        event.stop()
        cards = self.ordered_cards()
        if event.card not in cards:
            return
        index = max(0, min(len(cards) - 1, cards.index(event.card) + event.step))
        cards[index].focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        focused = event.widget
        if isinstance(focused, ToolCard):
            self.last_focused = focused
            focused.scroll_visible()
