"""Keeps a long chat light: finished items far from the viewport leave the DOM.

Textual lays out every displayed widget on each refresh and keeps render caches for each, so a
chat that only grows — a long reply in many parts, or a long turn adding a reply and a row of
tool calls per model request (300 calls: 600 widgets) — would lay out more, and hold more
memory, with every item it adds: the 300th call of a turn cost ten times the first.
``Freezer.run`` replaces each run of consecutive finished replies and tool rows more than
``SCREENS`` screens away from the viewport with one ``FrozenGap`` of their height (which keeps
what each was), merging it with the gaps beside it, once the run is a screen high (so a long
turn freezes a screen of items at a time, not one item per call); however long the chat, it
holds the items within a few screens of the viewport and a few gaps. As the viewport comes
near a gap, the items within reach are mounted again and the rest stay frozen, in a gap above
and one below them. A change of width brings them all back (their heights change); the next
run freezes them again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.widget import Widget

from agent_tui.ui.chat.assistant_reply import AssistantReply
from agent_tui.ui.chat.frozen_gap import Frozen, FrozenGap
from agent_tui.ui.chat.tool_line import ToolLine

SCREENS = 1
"""Items within this many screen heights of the viewport stay mounted."""

Revived = Callable[[Widget], None]
"""Told of each item mounted again (the chat keeps track of its tool rows)."""


class Freezer:
    def __init__(self, view: ScrollableContainer, revived: Revived | None = None) -> None:
        self.view = view
        self.revived = revived
        self.gaps: set[FrozenGap] = set()
        self.leaving: set[Widget] = set()
        """Widgets this freezer removed that may still be children for a moment."""
        self.width = 0

    @property
    def frozen(self) -> int:
        """How many items are out of the DOM."""
        return sum(len(gap.entries) for gap in self.gaps)

    def clear(self) -> None:
        self.gaps.clear()

    def thaw_all(self) -> None:
        for gap in list(self.gaps):
            if gap.is_attached:
                self._replace(gap, [], gap.entries, [])
        self.gaps.clear()

    def run(self) -> None:
        """Freeze the finished items far from the viewport; revive the ones near it."""
        view = self.view
        if not view.is_mounted or view.size.height <= 0:
            return
        if view.size.width != self.width:
            self.width = view.size.width
            self.thaw_all()
            return
        self.leaving = {widget for widget in self.leaving if widget.is_attached}
        reach = view.size.height * SCREENS
        top, bottom = view.scroll_y - reach, view.scroll_y + view.size.height + reach
        far: list[tuple[Widget, Region]] = []
        """The run of consecutive far items (and gaps) being gathered."""
        for child in list(view.children):
            if child in self.leaving:  # removed by an earlier run, not gone yet
                continue
            region = child.virtual_region
            near = region.bottom >= top and region.y <= bottom
            if isinstance(child, FrozenGap) and _laid_out(child, region, child.entries[-1].bottom):
                if not near:
                    far.append((child, region))
                    continue
                self._freeze(far)
                far = []
                self._thaw(child, region, top, bottom)
            elif not near and _finished(child, region):
                far.append((child, region))
            else:
                self._freeze(far)
                far = []
        self._freeze(far)

    def _leave(self, widget: Widget) -> None:
        self.leaving.add(widget)
        if isinstance(widget, FrozenGap):
            self.gaps.discard(widget)
        widget.remove()

    def _freeze(self, items: list[tuple[Widget, Region]]) -> None:
        """One gap in place of ``items`` (consecutive, far): the first gap among them grows
        to stand for them all (no new widget), or a new one is mounted."""
        fresh = sum(region.height for widget, region in items if not isinstance(widget, FrozenGap))
        if fresh < self.view.size.height:
            return  # gather a screen of them first: one freeze (one layout) for many items
        base = items[0][1].y
        entries: list[Frozen] = []
        keep: FrozenGap | None = None
        for widget, region in items:
            at = region.y - base
            if isinstance(widget, FrozenGap):
                if at:
                    entries.extend(replace(entry, y=at + entry.y) for entry in widget.entries)
                else:  # the first: its entries stay where they are
                    entries.extend(widget.entries)
                keep = keep or widget
            else:
                entries.append(_entry(widget, at))
        if keep is None:
            keep = FrozenGap(entries)
            self.gaps.add(keep)
            self.view.mount(keep, before=items[0][0])
        else:
            keep.set_entries(entries)
        for widget, _ in items:
            if widget is not keep:
                self._leave(widget)

    def _thaw(self, gap: FrozenGap, region: Region, top: float, bottom: float) -> None:
        """Mount again the items of ``gap`` within reach (``top``..``bottom``); the others
        stay frozen, in a gap above them and one below."""
        entries = gap.entries
        above = [e for e in entries if region.y + e.bottom < top]
        below = [e for e in entries[len(above) :] if region.y + e.y > bottom]
        near = entries[len(above) : len(entries) - len(below)]
        if near:
            self._replace(gap, above, near, below)

    def _replace(
        self, gap: FrozenGap, above: list[Frozen], near: list[Frozen], below: list[Frozen]
    ) -> None:
        widgets = [entry.revive() for entry in near]
        parts: list[Widget] = []
        for entries in (above, None, below):
            if entries is None:
                parts.extend(widgets)
            elif entries:
                rest = FrozenGap(entries)
                self.gaps.add(rest)
                parts.append(rest)
        self.view.mount(*parts, before=gap)
        self._leave(gap)
        if self.revived is not None:
            for widget in widgets:
                self.revived(widget)


def _laid_out(widget: Widget, region: Region, height: int) -> bool:
    """The widget has been laid out at ``height`` (a new one has no region yet)."""
    return widget.is_mounted and height > 0 and region.height == height


def _finished(widget: Widget, region: Region) -> bool:
    """A reply done streaming, or tool rows whose calls have all ended, laid out."""
    if isinstance(widget, AssistantReply):
        done = not widget.streaming
    elif isinstance(widget, ToolLine):
        done = widget.finished
    else:
        return False
    return done and _laid_out(widget, region, widget.outer_size.height)


def _entry(widget: Widget, y: int) -> Frozen:
    margin = widget.styles.margin
    height = widget.outer_size.height
    if isinstance(widget, AssistantReply):
        text, continued, last, serial = (
            widget.text,
            widget.has_class("-continued"),
            widget.last,
            widget.serial,
        )

        def reply() -> Widget:
            revived = AssistantReply(text, continued=continued, last=last)
            revived.serial = serial
            return revived

        return Frozen(y, height, margin.top, margin.bottom, reply, text)
    assert isinstance(widget, ToolLine)
    rows, classes = [list(row) for row in widget.rows], widget.classes

    def line() -> Widget:
        return ToolLine.of(rows, classes)

    return Frozen(y, height, margin.top, margin.bottom, line)
