"""Stands in for a run of chat items far from the viewport: a blank of their height that keeps
what each was, so they can be mounted again when the viewport comes near (see ``freezer``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from textual.widget import Widget


@dataclass(frozen=True)
class Frozen:
    """One item out of the DOM: where it was in its gap, and how to mount it again."""

    y: int
    """The top of its box, in cells below the top of the gap's box."""
    height: int
    """Its box's height (padding and border included, margins not)."""
    margin_top: int
    margin_bottom: int
    revive: Callable[[], Widget]
    """A new widget looking as the frozen one did."""
    text: str = ""
    """A reply's Markdown (what the chat said); empty for other items."""

    @property
    def bottom(self) -> int:
        return self.y + self.height


class FrozenGap(Widget):
    DEFAULT_CSS = """
    FrozenGap { background: transparent; }
    """

    def __init__(self, entries: Sequence[Frozen]) -> None:
        super().__init__()
        self.entries: list[Frozen] = []
        """The items it stands for, top to bottom (the first at 0)."""
        self.set_entries(entries)

    def set_entries(self, entries: Sequence[Frozen]) -> None:
        """Stand for ``entries`` now (in place: a gap that grows is not a new widget)."""
        first = entries[0].y
        self.entries = (
            [replace(entry, y=entry.y - first) for entry in entries] if first else list(entries)
        )
        self.styles.height = self.entries[-1].bottom
        self.styles.margin = (self.entries[0].margin_top, 0, self.entries[-1].margin_bottom, 0)

    @property
    def text(self) -> str:
        """The Markdown of the replies it stands for, in order."""
        return "".join(entry.text for entry in self.entries)
