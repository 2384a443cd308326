"""One tool call in the lane: the title line, the widget of its current state, and (expanded)
the full input and output.

The card renders a shared ``CallState`` (attributes down: the lane calls ``update_view`` when
an event changed it). Its state part is one widget per render state (``states``), swapped when
the state changes. While the call runs a timer ticks the elapsed time and the spinner; it stops
when the call finishes. Keys: Enter/Space expand, j/k or arrows move, ``o`` opens a spilled
output, ``c`` copies the content.
"""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer

from agent_tui.ui.calls.state import CallState, CallStatus, Clock
from agent_tui.ui.common.clipboard import copy
from agent_tui.ui.lane.card_body import CardBody
from agent_tui.ui.lane.card_head import CardHead
from agent_tui.ui.lane.states import VIEWS, AnyView, view_for

TICK_SECONDS = 0.1


class ToolCard(Vertical, can_focus=True):
    DEFAULT_CSS = """
    ToolCard {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1 0 0;
        background: $surface;
        border-left: outer $foreground 25%;
        &:focus { background: $primary 14%; }
        &.-approval { border-left: outer $warning; }
        &.-running { border-left: outer $primary; }
        &.-ok { border-left: outer $success 60%; }
        &.-failed, &.-error { border-left: outer $error; }
        &.-rejected { border-left: outer $warning 60%; }
        &.-interrupted { border-left: outer $accent 70%; }
        &.-member { margin: 0; background: transparent; border-left: none; padding: 0; }
        &.-member:focus { background: $primary 14%; }
        &.-member.-ok > ResultView { display: none; }
        &.-member.-ok.-expanded > ResultView { display: block; }
    }
    """

    BINDINGS = [
        Binding("enter,space", "expand", "Expand", id="card.toggle"),
        Binding("up,k", "move(-1)", "Previous", show=False, id="card.previous"),
        Binding("down,j", "move(1)", "Next", show=False, id="card.next"),
        Binding("o", "open_spill", "Open spill", id="card.open_spill"),
        Binding("c", "copy", "Copy", id="card.copy"),
        Binding("pageup", "scroll_body(-1)", show=False, id="card.page_up"),
        Binding("pagedown", "scroll_body(1)", show=False, id="card.page_down"),
    ]

    class Move(Message):
        """Up/down on a lane item: the lane moves the focus to a neighbour."""

        def __init__(self, item: object, step: int) -> None:
            super().__init__()
            self.item = item
            self.step = step

    class OpenSpill(Message):
        """``o`` on a card whose output was spilled: open the full output."""

        def __init__(self, card: ToolCard) -> None:
            super().__init__()
            self.card = card

        @property
        def control(self) -> ToolCard:
            return self.card

    def __init__(self, call: CallState, clock: Clock = time.monotonic, *, member: bool = False):
        # The classes of its state from the start: set after the mount, each would restyle
        # the mounted card and its children again (a resumed turn's cards all paid it).
        classes = [f"-{call.status.value}"]
        classes += ["-member"] if member else []
        classes += ["-expanded"] if call.expanded else []
        classes += ["-spilled"] if call.spill is not None else []
        super().__init__(classes=" ".join(classes))
        self.call = call
        self.clock = clock
        self.view: AnyView = view_for(call, clock())
        self.body: CardBody | None = None
        self._shown_status: CallStatus | None = call.status
        self._timer: Timer | None = None

    @property
    def expanded(self) -> bool:
        return self.call.expanded

    def compose(self) -> ComposeResult:
        yield CardHead(self.call, self.clock)
        yield self.view

    def on_mount(self) -> None:
        self.update_view()

    def on_unmount(self) -> None:
        self._stop_timer()

    # -- rendering -------------------------------------------------------------------------

    def update_view(self) -> None:
        """Re-render from ``self.call`` (after an event changed it)."""
        call, now = self.call, self.clock()
        if call.status is not self._shown_status:
            if self._shown_status is not None:
                self.remove_class(f"-{self._shown_status.value}")
            self.add_class(f"-{call.status.value}")
            self._shown_status = call.status
        if call.expanded != self.has_class("-expanded"):
            self.set_class(call.expanded, "-expanded")
        if (call.spill is not None) != self.has_class("-spilled"):
            self.set_class(call.spill is not None, "-spilled")
            self.refresh_bindings()
        self.query_one(CardHead).refresh()
        if type(self.view) is not VIEWS[call.status]:
            old, self.view = self.view, view_for(call, now)
            self.mount(self.view, after=old)
            old.remove()
        else:
            self.view.show(call, now)
        self._update_body()
        if call.status is CallStatus.RUNNING and self._timer is None:
            self._timer = self.set_interval(TICK_SECONDS, self._tick)
        elif call.status is not CallStatus.RUNNING:
            self._stop_timer()

    def _update_body(self) -> None:
        if self.call.expanded and self.body is None:
            self.body = CardBody(self.call)
            self.mount(self.body)
        elif self.call.expanded and self.body is not None:
            self.body.show(self.call)
        elif self.body is not None:
            self.body.remove()
            self.body = None

    def _tick(self) -> None:
        self.query_one(CardHead).refresh()
        if self.call.status is CallStatus.RUNNING:
            self.view.show(self.call, self.clock())

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # -- actions ---------------------------------------------------------------------------

    def action_expand(self) -> None:
        self.call.expanded = not self.call.expanded
        self.update_view()
        self.call_after_refresh(self.scroll_visible)

    def action_move(self, step: int) -> None:
        self.post_message(self.Move(self, step))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_spill":  # the key shows only on cards with a spilled output
            return self.call.spill is not None
        return True

    def action_open_spill(self) -> None:
        if self.call.spill is not None:
            self.post_message(self.OpenSpill(self))

    def action_copy(self) -> None:
        text = self.call.content or self.call.raw_arguments or self.call.summary
        lines = len(text.splitlines())
        plural = "s" if lines != 1 else ""
        copy(self.app, text, f"Copied {lines:,} line{plural} of {self.call.name}")

    def action_scroll_body(self, direction: int) -> None:
        if self.body is not None:
            if direction < 0:
                self.body.scroll_page_up()
            else:
                self.body.scroll_page_down()
