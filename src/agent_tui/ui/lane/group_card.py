"""A parallel batch as one card: titled by what it does ("Read 4 files", "3 searches"), each
member listed by name and input with its own state (a member card, expandable by itself).

Enter folds the members into one wrapped line of their inputs under the title (a group never
hides its file names); a member that waits for approval unfolds the group, so an ask is never
hidden inside it.

A group of more than ``MEMBER_CARDS`` calls (one message's sixty reads, a thousand) keeps the
lane light: cards for its first ``MEMBER_CARDS`` members, a line counting and naming the others
(a member of those that asks for approval gets its card then, ``show_member``).
"""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from agent_tui.ui.calls.state import CallState, CallStatus, Clock
from agent_tui.ui.common.format import member_names
from agent_tui.ui.lane.group_head import GroupHead
from agent_tui.ui.lane.tool_card import TICK_SECONDS, ToolCard

MEMBER_CARDS = 30
"""Most member cards a group card mounts at first."""


class GroupCard(Vertical, can_focus=True):
    DEFAULT_CSS = """
    GroupCard {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1 0 0;
        background: $surface;
        border-left: outer $secondary 70%;
        &:focus { background: $primary 14%; }
        & > ToolCard { margin-left: 2; }
        &.-folded > ToolCard { display: none; }
        & > .names { display: none; padding-left: 2; color: $text-muted; }
        &.-folded > .names { display: block; }
        & > .more {
            padding-left: 2;
            color: $text-muted;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        &.-folded > .more { display: none; }
    }
    """

    BINDINGS = [
        Binding("enter,space", "fold", "Fold", id="group.toggle"),
        Binding("up,k", "move(-1)", "Previous", show=False, id="group.previous"),
        Binding("down,j", "move(1)", "Next", show=False, id="group.next"),
    ]

    def __init__(
        self, calls: list[CallState], clock: Clock = time.monotonic, *, folded: bool = False
    ) -> None:
        super().__init__()
        self.calls = calls
        self.clock = clock
        self.group_id = calls[0].id
        self.user_folded = folded
        self.cards = [ToolCard(call, clock, member=True) for call in calls[:MEMBER_CARDS]]
        self.more = Static(classes="more")
        self.more.display = len(calls) > MEMBER_CARDS
        self.head = GroupHead(calls, clock)
        self._timer: Timer | None = None

    @property
    def folded(self) -> bool:
        """Folded by the user, unless a member waits for approval."""
        return self.user_folded and not any(c.status is CallStatus.APPROVAL for c in self.calls)

    def compose(self) -> ComposeResult:
        yield self.head
        yield Static(classes="names")
        yield from self.cards
        yield self.more

    def on_mount(self) -> None:
        self.update_view()

    def update_view(self) -> None:
        """Re-render the title line (a member changed; the lane updates the member itself)."""
        folded = self.folded
        self.set_class(folded, "-folded")
        self.head.folded = folded
        self.head.refresh()
        if folded:
            self.query_one(".names", Static).update(
                Content(member_names(c.summary or c.name for c in self.calls))
            )
        if self.more.display:
            carded = {card.call.id for card in self.cards}
            rest = [c for c in self.calls if c.id not in carded]
            self.more.update(
                Content(f"+{len(rest)} more: {member_names(c.summary or c.name for c in rest)}")
            )
        running = any(c.status is CallStatus.RUNNING for c in self.calls)
        if running and self._timer is None:
            self._timer = self.set_interval(TICK_SECONDS, self.head.refresh)
        elif not running and self._timer is not None:
            self._timer.stop()
            self._timer = None

    async def show_member(self, call_id: str) -> ToolCard | None:
        """The card of member ``call_id``, mounted now if it had none (it asks for approval)."""
        for card in self.cards:
            if card.call.id == call_id:
                return card
        call = next((c for c in self.calls if c.id == call_id), None)
        if call is None:
            return None
        card = ToolCard(call, self.clock, member=True)
        self.cards.append(card)
        await self.mount(card, before=self.more)
        self.update_view()
        return card

    def action_fold(self) -> None:
        self.user_folded = not self.user_folded
        self.update_view()
        self.call_after_refresh(self.scroll_visible)

    def action_move(self, step: int) -> None:
        self.post_message(ToolCard.Move(self, step))
