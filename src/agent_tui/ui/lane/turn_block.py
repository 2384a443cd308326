"""One user turn in the lane: its header, and its calls as cards and group cards.

The block holds the turn's entries and which of them are mounted (``LaneEntries`` decides): a
folded turn mounts none (its header says it all); an open one at most the newest
``LIVE_CARDS`` calls — older finished ones are counted on an ``EarlierLine``. So the lane's
widget count stays bounded however many calls a session makes.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget

from agent_tui.ui.calls.state import CallState
from agent_tui.ui.lane.earlier_line import EarlierLine
from agent_tui.ui.lane.turn_header import TurnHeader


class TurnBlock(Vertical):
    DEFAULT_CSS = """
    TurnBlock {
        height: auto;
        & > TurnHeader { margin-bottom: 1; }
        &.-folded > TurnHeader { margin-bottom: 0; }
    }
    """

    def __init__(self, prompt: str) -> None:
        super().__init__()
        self.calls: list[CallState] = []
        """Every call of the turn, in order (the header counts them)."""
        self.entries: list[list[str]] = []
        """The turn's cards in order: each entry is one call id, or a group's ids."""
        self.hidden = 0
        """``entries[:hidden]`` are not mounted (folded away, or older than the bound)."""
        self.mounted_upto = 0
        """``entries[mounted_upto:]`` are not mounted yet (the lane settles them soon)."""
        self.folded = False
        self.live = 0
        """How many calls the mounted entries hold."""
        self.header = TurnHeader(prompt, self.calls)
        self.earlier = EarlierLine()
        self.earlier.display = False
        self.widgets: dict[str, Widget] = {}
        """Mounted entry widgets by entry key (the entry's first call id)."""

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.earlier

    def entry_index(self, call_id: str) -> int:
        """Where the entry holding ``call_id`` is (searched from the newest)."""
        for index in range(len(self.entries) - 1, -1, -1):
            if call_id in self.entries[index]:
                return index
        raise KeyError(call_id)

    def hidden_calls(self) -> int:
        """Calls of older entries that are not mounted (pending new ones not counted)."""
        return sum(len(entry) for entry in self.entries[: self.hidden])

    def update_header(self) -> None:
        self.set_class(self.folded, "-folded")
        self.header.folded = self.folded
        self.header.refresh()
        hidden = 0 if self.folded else self.hidden_calls()
        self.earlier.hidden_calls = hidden
        self.earlier.display = hidden > 0
        self.earlier.refresh()
