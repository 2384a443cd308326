"""One tool call in the lane: name, input summary, state, elapsed time, live output, result.

The card renders a shared ``CallState`` (attributes down: the lane calls ``update_view`` when
an event changed it). While the call runs, a timer on the card ticks its elapsed time; the
timer stops when the call finishes. Enter expands the card to the full input and output.
"""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from agent_tui.ui.call_details import describe_call
from agent_tui.ui.format import format_elapsed
from agent_tui.ui.tool_calls import STATUS_GLYPH, CallState, CallStatus, Clock

TAIL_SHOWN = 3
MAX_BODY_LINES = 2000
TICK_SECONDS = 0.2


def body_content(call: CallState) -> Content:
    """What an expanded card shows: the input as a person reads it, then the full output."""
    if call.input is not None:
        shown_input = describe_call(call.name, call.input)
    else:
        shown_input = Content(call.raw_arguments or "(no arguments)")
    parts = [shown_input]
    if call.content:
        lines = call.content.splitlines()
        if len(lines) > MAX_BODY_LINES:
            more = len(lines) - MAX_BODY_LINES
            lines = [*lines[:MAX_BODY_LINES], f"… {more:,} more lines"]
        label = "output so far" if call.status is CallStatus.RUNNING else "output"
        parts += [
            Content(""),
            Content.styled(label, "bold $foreground-muted"),
            Content("\n".join(lines)),
        ]
    return Content("\n").join(parts)


class ToolCard(Vertical, can_focus=True):
    DEFAULT_CSS = """
    ToolCard {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1 0 0;
        background: $surface;
        border-left: outer $foreground 25%;
        &:focus { background: $primary 14%; }
        & > .head { height: 1; }
        & .glyph { width: 2; color: $text-muted; }
        & .title { width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
        & .elapsed { width: auto; color: $text-muted; padding-left: 1; }
        & > .status {
            padding-left: 2; color: $text-muted;
            text-wrap: nowrap; text-overflow: ellipsis;
        }
        & > .spill {
            display: none; padding-left: 2; color: $text-secondary;
            text-wrap: nowrap; text-overflow: ellipsis;
        }
        &.-spilled > .spill { display: block; }
        & > .tail {
            display: none; padding-left: 2; color: $text-muted; text-style: dim;
            text-wrap: nowrap; text-overflow: ellipsis;
        }
        & > .body {
            display: none; height: auto; max-height: 20; margin: 1 0 0 2; padding: 0 1;
            background: $background; scrollbar-size-vertical: 1;
        }
        &.-running.-has-tail > .tail { display: block; }
        &.-expanded > .body { display: block; }
        &.-expanded > .tail { display: none; }

        &.-approval { border-left: outer $warning; }
        &.-approval .glyph, &.-approval > .status { color: $warning; }
        &.-running { border-left: outer $primary; }
        &.-running .glyph, &.-running > .status { color: $primary; }
        &.-ok { border-left: outer $success 60%; }
        &.-ok .glyph { color: $success; }
        &.-failed, &.-error { border-left: outer $error; }
        &.-failed .glyph, &.-failed > .status,
        &.-error .glyph, &.-error > .status { color: $error; }
        &.-rejected { border-left: outer $warning 60%; }
        &.-rejected .glyph, &.-rejected > .status { color: $warning; }
    }
    """

    BINDINGS = [
        Binding("enter", "toggle", "Expand", id="card.toggle"),
        Binding("up", "move(-1)", "Previous", show=False, id="card.previous"),
        Binding("down", "move(1)", "Next", show=False, id="card.next"),
        Binding("pageup", "scroll_body(-1)", show=False, id="card.page_up"),
        Binding("pagedown", "scroll_body(1)", show=False, id="card.page_down"),
    ]

    class Move(Message):
        """Up/down on a card: the lane moves the focus to a neighbour."""

        def __init__(self, card: ToolCard, step: int) -> None:
            super().__init__()
            self.card = card
            self.step = step

        @property
        def control(self) -> ToolCard:
            return self.card

    def __init__(self, call: CallState, clock: Clock = time.monotonic) -> None:
        super().__init__()
        self.call = call
        self.clock = clock
        self.expanded = False
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="head"):
            yield Static(classes="glyph")
            yield Static(classes="title")
            yield Static(classes="elapsed")
        yield Static(classes="status")
        yield Static(classes="spill")
        yield Static(classes="tail")
        with VerticalScroll(classes="body", can_focus=False):
            yield Static(classes="output")

    def on_mount(self) -> None:
        self.update_view()

    def on_unmount(self) -> None:
        self._stop_timer()

    # -- rendering -------------------------------------------------------------------------

    def update_view(self) -> None:
        """Re-render from ``self.call`` (after an event changed it)."""
        call = self.call
        for status in CallStatus:
            self.set_class(call.status is status, f"-{status.value}")
        self.set_class(bool(call.tail), "-has-tail")
        self.set_class(call.spill is not None, "-spilled")
        self.query_one(".glyph", Static).update(STATUS_GLYPH[call.status])
        title = Content.assemble((call.name, "bold"), "  ", (call.summary, "$foreground-muted"))
        self.query_one(".title", Static).update(title)
        self.query_one(".status", Static).update(Content(call.status_line()))
        self.query_one(".spill", Static).update(Content(call.spill_line()))
        self.query_one(".tail", Static).update(Content("\n".join(call.tail[-TAIL_SHOWN:])))
        if self.expanded:
            self.query_one(".output", Static).update(body_content(call))
        self._update_elapsed()
        if call.status is CallStatus.RUNNING and self._timer is None:
            self._timer = self.set_interval(TICK_SECONDS, self._update_elapsed)
        elif call.status is not CallStatus.RUNNING:
            self._stop_timer()

    def _update_elapsed(self) -> None:
        call = self.call
        shown = call.status is CallStatus.RUNNING or (call.status.finished and call.elapsed > 0)
        live = call.status is CallStatus.RUNNING
        text = format_elapsed(call.live_elapsed(self.clock()), live=live) if shown else ""
        self.query_one(".elapsed", Static).update(text)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # -- actions ---------------------------------------------------------------------------

    def action_toggle(self) -> None:
        self.expanded = not self.expanded
        self.set_class(self.expanded, "-expanded")
        if self.expanded:
            self.query_one(".output", Static).update(body_content(self.call))
        self.call_after_refresh(self.scroll_visible)

    def action_move(self, step: int) -> None:
        self.post_message(self.Move(self, step))

    def action_scroll_body(self, direction: int) -> None:
        if self.expanded:
            body = self.query_one(".body", VerticalScroll)
            if direction < 0:
                body.scroll_page_up()
            else:
                body.scroll_page_down()
