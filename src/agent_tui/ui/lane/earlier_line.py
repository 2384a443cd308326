"""Stands for the older calls of a turn that are not mounted (the lane keeps a bounded number
of cards); Enter brings back a page of them."""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from agent_tui.ui.common.format import plural
from agent_tui.ui.lane.tool_card import ToolCard


class EarlierLine(Widget, can_focus=True):
    DEFAULT_CSS = """
    EarlierLine {
        height: 1;
        margin-bottom: 1;
        padding-left: 2;
        color: $text-muted;
        &:focus { background: $primary 14%; }
    }
    """

    BINDINGS = [
        Binding("enter,space", "show_more", "Show more", id="earlier.show"),
        Binding("up,k", "move(-1)", "Previous", show=False, id="earlier.previous"),
        Binding("down,j", "move(1)", "Next", show=False, id="earlier.next"),
    ]

    class ShowMore(Message):
        """Enter on the line: mount a page of the hidden calls."""

        def __init__(self, line: EarlierLine) -> None:
            super().__init__()
            self.line = line

    def __init__(self) -> None:
        super().__init__()
        self.hidden_calls = 0

    def render(self) -> Content:
        return Content.assemble(
            "… ", plural(self.hidden_calls, "earlier call"), ("  Enter shows more", "dim")
        )

    def action_show_more(self) -> None:
        self.post_message(self.ShowMore(self))

    def action_move(self, step: int) -> None:
        self.post_message(ToolCard.Move(self, step))
