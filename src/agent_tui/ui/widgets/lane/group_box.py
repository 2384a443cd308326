"""A parallel batch in the lane: its cards bracketed together under "parallel ×N"."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical

from agent_tui.ui.widgets.lane.tool_card import ToolCard


class ToolGroupBox(Vertical):
    DEFAULT_CSS = """
    ToolGroupBox {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 0 0 1;
        border: round $secondary 70%;
        border-title-color: $secondary;
        border-title-style: bold;
        & > ToolCard:last-child { margin-bottom: 0; }
    }
    """

    def __init__(self, cards: list[ToolCard]) -> None:
        super().__init__()
        self.cards = cards
        self.border_title = f"parallel ×{len(cards)}"

    def compose(self) -> ComposeResult:
        yield from self.cards
