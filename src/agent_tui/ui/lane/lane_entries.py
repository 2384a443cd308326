"""Which of the lane's entries are mounted, and mounting them: the bookkeeping behind
``ToolLane`` (a helper object, not a widget).

An entry is one call's card, or one group card for a parallel batch. Every turn's entries live
in its ``TurnBlock``; ``entries[hidden:mounted_upto]`` are mounted, the ones before ``hidden``
are folded away or older than the bound, the ones from ``mounted_upto`` wait for the next
settle. Every method updates the bookkeeping before it awaits the DOM, and the lane runs them
one at a time (its lock), so a settle and an event never see each other half-done.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.widget import Widget

from agent_tui.ui.calls.state import CallState, Clock
from agent_tui.ui.lane.group_card import GroupCard
from agent_tui.ui.lane.tool_card import ToolCard
from agent_tui.ui.lane.turn_block import TurnBlock

LIVE_CARDS = 40
"""Most calls an open turn keeps mounted."""


@dataclass
class HiddenTurn:
    """A turn of a resumed session that has no widgets: its prompt, its calls and their entries
    (as ``TurnBlock`` holds them), until the user opens it (``LaneEntries.materialize``)."""

    prompt: str
    calls: list[CallState] = field(default_factory=list)
    entries: list[list[str]] = field(default_factory=list)

    def add(self, call: CallState) -> None:
        self.calls.append(call)
        self.entries.append([call.id])

    def group(self, ids: list[str]) -> None:
        merge_entries(self.entries, ids)


def merge_entries(entries: list[list[str]], ids: list[str]) -> list[int]:
    """Merge the entries holding ``ids`` into one group entry where the first of them was;
    the positions they had, in order."""
    wanted = set(ids)
    positions = [i for i, entry in enumerate(entries) if wanted.intersection(entry)]
    for p in reversed(positions):
        del entries[p]
    entries.insert(positions[0], ids)
    return positions


class LaneEntries:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.cards: dict[str, ToolCard] = {}
        """Mounted cards by call id (group members included)."""
        self.groups: dict[str, GroupCard] = {}
        """Mounted group cards by group id (the id of the batch's first call)."""
        self.calls: dict[str, CallState] = {}
        self.block_of: dict[str, TurnBlock] = {}
        self.group_of: dict[str, str] = {}
        self.folded_groups: set[str] = set()

    def clear(self) -> None:
        for table in (self.cards, self.groups, self.calls, self.block_of, self.group_of):
            table.clear()
        self.folded_groups.clear()

    def add(self, block: TurnBlock, call: CallState) -> None:
        self.calls[call.id] = call
        self.block_of[call.id] = block
        block.calls.append(call)
        block.entries.append([call.id])

    # -- widgets of entries ----------------------------------------------------------------

    def _widget(self, block: TurnBlock, entry: list[str]) -> Widget:
        calls = [self.calls[i] for i in entry]
        widget: Widget
        if len(entry) == 1:
            widget = self.cards[entry[0]] = ToolCard(calls[0], self.clock)
        else:
            group = GroupCard(calls, self.clock, folded=entry[0] in self.folded_groups)
            self.groups[entry[0]] = group
            for card in group.cards:
                self.cards[card.call.id] = card
            widget = group
        block.widgets[entry[0]] = widget
        block.live += len(entry)
        return widget

    def _drop(self, block: TurnBlock, entry: list[str]) -> Widget | None:
        widget = block.widgets.pop(entry[0], None)
        if widget is None:
            return None
        block.live -= len(entry)
        if isinstance(widget, GroupCard):
            self.groups.pop(entry[0], None)
            if widget.user_folded:
                self.folded_groups.add(entry[0])
            else:
                self.folded_groups.discard(entry[0])
        for call_id in entry:
            self.cards.pop(call_id, None)
        return widget

    async def mount_range(self, block: TurnBlock, start: int, stop: int) -> None:
        """Mount ``block.entries[start:stop]`` in order, before the entry at ``stop``."""
        anchor = block.widgets.get(block.entries[stop][0]) if stop < len(block.entries) else None
        widgets = [self._widget(block, block.entries[i]) for i in range(start, stop)]
        if widgets:
            await block.mount_all(widgets, before=anchor)

    async def unmount_range(self, block: TurnBlock, start: int, stop: int) -> None:
        widgets = [self._drop(block, block.entries[i]) for i in range(start, stop)]
        await block.remove_children([w for w in widgets if w is not None])

    # -- the operations --------------------------------------------------------------------

    async def mount_new(self, block: TurnBlock) -> None:
        """Mount the entries added since the last settle (all of the newest if folded)."""
        if block.folded:
            await self.unfold(block)
        elif block.mounted_upto < len(block.entries):
            start, block.mounted_upto = block.mounted_upto, len(block.entries)
            await self.mount_range(block, start, block.mounted_upto)

    async def trim(self, block: TurnBlock) -> None:
        """Unmount the oldest finished entries while the block holds too many calls."""
        gone: list[Widget] = []
        while block.live > LIVE_CARDS and block.hidden < block.mounted_upto - 1:
            entry = block.entries[block.hidden]
            widget = block.widgets.get(entry[0])
            busy = not all(self.calls[i].status.finished for i in entry)
            if busy or (widget is not None and widget.has_focus_within):
                break
            if (dropped := self._drop(block, entry)) is not None:
                gone.append(dropped)
            block.hidden += 1
        if gone:
            await block.remove_children(gone)

    def materialize(self, turn: HiddenTurn) -> TurnBlock:
        """A folded block for ``turn`` (not mounted), its calls known to the lane."""
        block = TurnBlock(turn.prompt)
        block.calls.extend(turn.calls)
        block.entries = turn.entries
        for call in turn.calls:
            self.calls[call.id] = call
            self.block_of[call.id] = block
        for entry in turn.entries:
            if len(entry) > 1:
                for call_id in entry:
                    self.group_of[call_id] = entry[0]
        block.folded = True
        block.hidden = block.mounted_upto = len(block.entries)
        return block

    async def fold(self, block: TurnBlock) -> None:
        start, stop = block.hidden, block.mounted_upto
        block.hidden = block.mounted_upto = len(block.entries)
        block.folded = True
        await self.unmount_range(block, start, stop)

    async def unfold(self, block: TurnBlock, upto: int | None = None) -> None:
        """Show the newest entries of ``block`` (from ``upto`` if given, else a bounded few)."""
        if block.folded:
            start, calls = len(block.entries), 0
            while start > 0 and calls + len(block.entries[start - 1]) <= LIVE_CARDS:
                start -= 1
                calls += len(block.entries[start])
            start = max(0, min(start, len(block.entries) - 1))
            block.folded, block.hidden, block.mounted_upto = False, start, len(block.entries)
            await self.mount_range(block, start, block.mounted_upto)
        if upto is not None and upto < block.hidden:
            stop, block.hidden = block.hidden, upto
            await self.mount_range(block, upto, stop)

    async def group(self, ids: list[str]) -> GroupCard | None:
        """Merge the entries of ``ids`` into one group entry; if some were mounted, the group
        card replaces them now (returned)."""
        block = self.block_of[ids[0]]
        positions = sorted(block.entry_index(i) for i in ids)
        mounted = [p for p in positions if block.hidden <= p < block.mounted_upto]
        old = [w for p in mounted if (w := self._drop(block, block.entries[p])) is not None]
        merge_entries(block.entries, ids)
        for call_id in ids:
            self.group_of[call_id] = ids[0]
        if not mounted:
            return None
        block.mounted_upto -= len(mounted) - 1
        group = self._widget(block, ids)
        assert isinstance(group, GroupCard)
        await block.mount(group, before=old[0] if old else None)
        await block.remove_children(old)
        return group
