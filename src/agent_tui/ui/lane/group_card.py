"""A parallel batch as one card: titled by what it does ("Read 4 files", "3 searches"), each
member listed by name and input with its own state (a member card, expandable by itself).

Enter folds the members into one wrapped line of their inputs under the title (a group never
hides its file names); a member that waits for approval unfolds the group, so an ask is never
hidden inside it.
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
from agent_tui.ui.lane.group_head import GroupHead
from agent_tui.ui.lane.tool_card import TICK_SECONDS, ToolCard


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
        self.cards = [ToolCard(call, clock, member=True) for call in calls]
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

    def on_mount(self) -> None:
        self.update_view()

    def update_view(self) -> None:
        """Re-render the title line (a member changed; the lane updates the member itself)."""
        folded = self.folded
        self.set_class(folded, "-folded")
        self.head.folded = folded
        self.head.refresh()
        if folded:
            names = Content(", ".join(c.summary or c.name for c in self.calls))
            self.query_one(".names", Static).update(names)
        running = any(c.status is CallStatus.RUNNING for c in self.calls)
        if running and self._timer is None:
            self._timer = self.set_interval(TICK_SECONDS, self.head.refresh)
        elif not running and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def action_fold(self) -> None:
        self.user_folded = not self.user_folded
        self.update_view()
        self.call_after_refresh(self.scroll_visible)

    def action_move(self, step: int) -> None:
        self.post_message(ToolCard.Move(self, step))
