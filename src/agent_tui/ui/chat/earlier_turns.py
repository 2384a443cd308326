"""Stands for a resumed session's earlier turns that the chat has not rendered: a resume shows
the last few turns only (rendering hundreds of turns' replies took seconds). A click on it, or
scrolling the chat to its top, renders a page more above what is shown (``ChatView.Load``)."""

from __future__ import annotations

from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from agent_tui.ui.common.format import plural


class EarlierTurns(Widget):
    DEFAULT_CSS = """
    EarlierTurns {
        height: 1;
        margin: 1 0 0 0;
        padding-left: 2;
        color: $text-muted;
        &:hover { background: $primary 14%; }
    }
    """

    class Load(Message):
        """Show a page of the earlier turns above the ones shown."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def render(self) -> Content:
        return Content.assemble(
            "▲ ",
            plural(self.count, "earlier turn"),
            ("  click or scroll up to show more", "dim"),
        )

    def set_count(self, count: int) -> None:
        self.count = count
        self.refresh()

    def on_click(self) -> None:
        self.post_message(self.Load())
