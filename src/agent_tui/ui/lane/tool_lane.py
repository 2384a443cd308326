"""The tool-call lane: one card per call, one group card per parallel batch, one block per turn.

The app hands it ``CallState``s (attributes down) and tells it which call changed. Changes are
applied together a moment later (``SETTLE_SECONDS``), so a burst — ten parallel calls announced,
grouped and finished within milliseconds — mounts one group card with its final states once;
an update touches that call's card (and its group's title) only. The lane stays light however
long the session: when a turn starts, the finished turns before it fold into one line each, and
an open turn mounts at most ``LIVE_CARDS`` calls (older finished ones are counted on one line,
Enter brings them back a page at a time). A call waiting for approval is always shown. A
resumed session's earlier turns (``add_earlier``) are not even blocks: one ``FoldedTurns``
widget lists them a line each; a turn becomes a block when the user opens it or a call of it
is revealed. Home and End go to the lane's first and last line.
"""

from __future__ import annotations

import asyncio
import time

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.core.events import CompactionEvent
from agent_tui.ui.calls.state import CallState, CallStatus, Clock
from agent_tui.ui.lane.earlier_line import EarlierLine
from agent_tui.ui.lane.folded_turns import FoldedTurns
from agent_tui.ui.lane.group_card import GroupCard
from agent_tui.ui.lane.lane_entries import LIVE_CARDS, HiddenTurn, LaneEntries
from agent_tui.ui.lane.tool_card import ToolCard
from agent_tui.ui.lane.turn_block import TurnBlock
from agent_tui.ui.lane.turn_header import TurnHeader

SETTLE_SECONDS = 0.03
"""How long changes gather before the lane applies them (one layout for a burst)."""
PAGE = 30
"""Entries the earlier-calls line brings back per Enter."""
ITEMS = "FoldedTurns, TurnHeader, EarlierLine, GroupCard, ToolCard"

__all__ = ["LIVE_CARDS", "PAGE", "SETTLE_SECONDS", "ToolLane"]


class ToolLane(VerticalScroll, can_focus=False):
    DEFAULT_CSS = """
    ToolLane {
        height: 1fr;
        padding: 0 1 0 1;
        background: $background;
        border: round $foreground 20%;
        border-title-color: $text-muted;
        border-subtitle-color: $text-muted;
        scrollbar-size-vertical: 1;
        &.-focus-within { border: round $primary 60%; border-title-color: $primary; }
        & > .empty { color: $text-muted; padding: 1 1; display: none; }
        &.-empty > .empty { display: block; }
    }
    """

    BINDINGS = [
        Binding("home", "edge(0)", "First", show=False, id="lane.first"),
        Binding("end", "edge(-1)", "Last", show=False, id="lane.last"),
    ]

    empty: var[bool] = var(True)
    """No call shown yet (the main screen collapses the lane below a narrow chat then)."""

    def __init__(self, clock: Clock = time.monotonic, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-empty")
        self.clock = clock
        self.entries = LaneEntries(clock)
        self.blocks: list[TurnBlock] = []
        self.last_focused: Widget | None = None
        self._prompt = ""
        self._current: TurnBlock | None = None
        self._dirty: set[str] = set()
        self._timer: Timer | None = None
        self._lock = asyncio.Lock()
        self._held = False
        self.hidden: dict[str, HiddenTurn] = {}
        """The calls of earlier turns that have no block yet (``add_earlier``), by id."""
        self.border_title = "tools"

    @property
    def cards(self) -> dict[str, ToolCard]:
        """Mounted cards by call id (group members included)."""
        return self.entries.cards

    @property
    def groups(self) -> dict[str, GroupCard]:
        return self.entries.groups

    def compose(self) -> ComposeResult:
        yield Static("No tool calls yet.", classes="empty")

    def on_resize(self, event: events.Resize) -> None:
        """The lane or its content changed size (cards added, expanded, folded)."""
        self.call_after_refresh(self._follow)

    def _follow(self) -> None:
        """Keep the scroll position true to the content after it changed size: follow new
        cards while they overflow (unless the user scrolled away), top-aligned while they fit,
        and never scrolled past either end.

        Textual's anchor writes ``scroll_y`` without clamping it: anchored while the cards fit,
        it bottom-aligns them (a negative offset); released by a scroll and then shrunk (a
        tall turn folding), it leaves the lane scrolled past its content — blank. Both are
        undone here (``force``: Textual ignores a scroll of content that fits)."""
        if self.max_scroll_y > 0:
            if not self.is_anchored:
                self.anchor()
        elif self.is_anchored:
            self.anchor(False)
        inside = min(max(self.scroll_y, 0), self.max_scroll_y)
        if inside != self.scroll_y:
            self.scroll_to(
                y=inside, animate=False, immediate=True, release_anchor=False, force=True
            )

    def _update_counts(self) -> None:
        n = len(self.entries.calls) + len(self.hidden)
        self.set_class(not n, "-empty")
        self.empty = not n
        self.border_subtitle = f"{n:,} call{'s' if n != 1 else ''}" if n else ""

    # -- attributes down -------------------------------------------------------------------

    async def begin_turn(self, prompt: str) -> None:
        """A user turn starts: fold the turns before it; its calls go to a new block."""
        async with self._lock:
            for block in self.blocks:
                if not block.folded:
                    await self.entries.fold(block)
                    block.update_header()
            self._current = None
            self._prompt = prompt
            # a new turn: its cards start from the top of what is left, followed once they
            # overflow (``_follow``); the old scroll offset means nothing after the fold
            self.anchor(False)
            self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self.call_after_refresh(self._follow)

    async def add_earlier(self, turns: list[HiddenTurn]) -> None:
        """A resumed session's earlier turns: one line each, above what the lane holds, no
        block mounted for any of them until it is opened."""
        turns = [t for t in turns if t.calls]
        if not turns:
            return
        async with self._lock:
            for turn in turns:
                for call in turn.calls:
                    self.hidden[call.id] = turn
            first = next((c for c in self.children if not c.has_class("empty")), None)
            await self.mount(FoldedTurns(turns), before=first)
            self._update_counts()
        self.call_after_refresh(self._follow)

    async def _open(self, lines: FoldedTurns, index: int) -> TurnBlock:
        """Mount turn ``index`` of ``lines`` as a block (unfolded) in its place: the lines
        before it stay, the ones after it go to a new ``FoldedTurns`` below the block."""
        turn = lines.turns[index]
        after = lines.turns[index + 1 :]
        lines.turns = lines.turns[:index]
        for call in turn.calls:
            self.hidden.pop(call.id, None)
        block = self.entries.materialize(turn)
        self.blocks.insert(0, block)
        await self.mount(block, after=lines)
        if after:
            rest = FoldedTurns(after)
            await self.mount(rest, after=block)
        if lines.turns:
            lines.cursor = min(lines.cursor, len(lines.turns) - 1)
            lines.refresh(layout=True)
        else:
            await lines.remove()
        await self.entries.unfold(block)
        block.update_header()
        return block

    async def _open_hidden(self, call_id: str) -> TurnBlock | None:
        turn = self.hidden.get(call_id)
        if turn is None:
            return None
        for lines in self.query_children(FoldedTurns):
            if turn in lines.turns:
                return await self._open(lines, lines.turns.index(turn))
        return None

    async def add_compaction(self, event: CompactionEvent) -> None:
        """A compaction ended: the blocks so far fold, a mark follows them; the turn's next
        calls go to a block below it."""
        from agent_tui.ui.lane.compaction_mark import CompactionMark

        async with self._lock:
            self._current = None
            # their calls have all ended: fold them as the next prompt does, so a long turn
            # that compacts again and again keeps one block's cards mounted, not one each
            for block in self.blocks:
                if not block.folded:
                    await self.entries.fold(block)
                    block.update_header()
            await self.mount(CompactionMark(event))
        self.call_after_refresh(self._follow)

    async def add_call(self, call: CallState) -> None:
        """A new call: its card is mounted at the next settle."""
        async with self._lock:
            if self._current is None:
                self._current = TurnBlock(self._prompt)
                self.blocks.append(self._current)
                await self.mount(self._current)
            self.entries.add(self._current, call)
        self._schedule()

    async def group_calls(self, calls: list[CallState]) -> None:
        """Turn the entries of a parallel batch into one group card, in place."""
        ids = [c.id for c in calls if c.id in self.entries.calls]
        if len(ids) < 2:
            return
        async with self._lock:
            focused = next((i for i in ids if (c := self.cards.get(i)) and c.has_focus), None)
            await self.entries.group(ids)
            if focused is not None and focused in self.cards:
                self.cards[focused].focus()
        self._schedule()

    def refresh_call(self, call_id: str) -> None:
        """``call_id`` changed: its card (and group title) re-render at the next settle."""
        if call_id in self.entries.calls:
            self._dirty.add(call_id)
            self._schedule()

    def hold(self, held: bool) -> None:
        """Gather changes without settling until ``hold(False)`` (a resumed transcript: its
        earlier turns fold as the next begins, so their cards are never mounted at all)."""
        self._held = held
        if not held and (self._dirty or any(b.mounted_upto < len(b.entries) for b in self.blocks)):
            self._schedule()

    def _schedule(self) -> None:
        if self._held:
            return
        if self._timer is None:
            self._timer = self.set_timer(SETTLE_SECONDS, self.settle)

    async def settle(self) -> None:
        """Apply the gathered changes now: mount new entries, re-render changed calls, show
        calls that wait for approval, keep the open turn bounded."""
        async with self._lock:
            await self._settle()

    async def _settle(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        dirty, self._dirty = self._dirty, set()
        # before the new cards mount: the lane's -empty going would restyle them with it
        self._update_counts()
        for block in self.blocks:
            if block.mounted_upto < len(block.entries):
                await self.entries.mount_new(block)
                await self.entries.trim(block)
                block.update_header()
        groups = set()
        for call_id in dirty:
            if (card := self.cards.get(call_id)) is not None:
                card.update_view()
            groups.add(self.entries.group_of.get(call_id))
            self.entries.block_of[call_id].header.refresh()
        for group_id in groups:
            if group_id is not None and (group := self.groups.get(group_id)) is not None:
                group.update_view()
        for call_id in dirty:
            if self.entries.calls[call_id].status is CallStatus.APPROVAL:
                await self._reveal(call_id, focus=False)
        self.call_after_refresh(self._follow)

    async def reveal(self, call_id: str, focus: bool = True) -> bool:
        """Make the card of ``call_id`` visible (unfolding what hides it); focus it."""
        async with self._lock:
            await self._settle()
            return await self._reveal(call_id, focus)

    async def _reveal(self, call_id: str, focus: bool) -> bool:
        if call_id in self.hidden:
            await self._open_hidden(call_id)
        block = self.entries.block_of.get(call_id)
        if block is None:
            return False
        await self.entries.unfold(block, upto=block.entry_index(call_id))
        block.update_header()
        group = self.groups.get(self.entries.group_of.get(call_id, ""))
        if group is not None and group.user_folded:
            group.action_fold()
        card = self.cards.get(call_id)
        if card is None and group is not None:  # a member beyond the cards of a big group
            card = await group.show_member(call_id)
            if card is not None:
                self.cards[call_id] = card
        if card is None:
            return False
        if focus:
            card.focus()
        self.call_after_refresh(card.scroll_visible)
        return True

    async def clear(self) -> None:
        async with self._lock:
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            self._dirty.clear()
            self.hidden.clear()
            self.entries.clear()
            self.blocks.clear()
            self._current = None
            self.last_focused = None
            self.anchor(False)
            await self.remove_children([c for c in self.children if not c.has_class("empty")])
            self._update_counts()

    # -- focus -----------------------------------------------------------------------------

    def items(self) -> list[Widget]:
        """The focusable lines of the lane in screen order (hidden ones left out)."""
        return [w for w in self.query(ITEMS) if _shown(w, self)]

    def ordered_cards(self) -> list[ToolCard]:
        return [w for w in self.items() if isinstance(w, ToolCard)]

    def focus_lane(self) -> bool:
        """Focus the last focused item, else the newest; False when there is none."""
        items = self.items()
        target = self.last_focused if self.last_focused in items else None
        target = target or (items[-1] if items else None)
        if target is None:
            return False
        target.focus()
        return True

    @on(ToolCard.Move)
    def _move(self, event: ToolCard.Move) -> None:
        event.stop()
        items = self.items()
        if event.item not in items:
            return
        index = items.index(event.item)
        target = items[max(0, min(len(items) - 1, index + event.step))]
        if isinstance(target, FoldedTurns) and target is not event.item:
            target.cursor = 0 if event.step > 0 else len(target.turns) - 1
        # at once, not scheduled: a key typed right after (Enter) goes to the new card
        self.screen.set_focus(target)

    def action_edge(self, which: int) -> None:
        """Home / End: focus the lane's first / last line."""
        items = self.items()
        if not items:
            return
        target = items[which]
        if isinstance(target, FoldedTurns):
            target.cursor = 0 if which == 0 else len(target.turns) - 1
        if target.has_focus and isinstance(target, FoldedTurns):
            target.show_cursor()
        self.screen.set_focus(target)

    @on(FoldedTurns.Open)
    async def _open_turn(self, event: FoldedTurns.Open) -> None:
        event.stop()
        if event.turns.parent is not self or not 0 <= event.index < len(event.turns.turns):
            return
        async with self._lock:
            block = await self._open(event.turns, event.index)
        block.header.focus()

    @on(TurnHeader.Toggle)
    async def _toggle_turn(self, event: TurnHeader.Toggle) -> None:
        event.stop()
        block = event.header.parent
        if not isinstance(block, TurnBlock):
            return
        async with self._lock:
            if block.folded:
                await self.entries.unfold(block)
            else:
                await self.entries.fold(block)
            block.update_header()
        event.header.focus()

    @on(EarlierLine.ShowMore)
    async def _show_more(self, event: EarlierLine.ShowMore) -> None:
        event.stop()
        block = event.line.parent
        if isinstance(block, TurnBlock):
            async with self._lock:
                await self.entries.unfold(block, upto=max(0, block.hidden - PAGE))
                block.update_header()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.call_later(self._mark_focus)

    def _mark_focus(self) -> None:
        self.set_class(self.has_focus_within, "-focus-within")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # a class, not ``:focus-within``: Textual restyles every node under the outermost
        # widget with a ``:focus-within`` rule on each focus change (all the lane's cards)
        self.add_class("-focus-within")
        focused = event.widget
        if isinstance(focused, FoldedTurns):
            self.last_focused = focused
            focused.show_cursor()
        elif isinstance(focused, (ToolCard, GroupCard, TurnHeader, EarlierLine)):
            self.last_focused = focused
            focused.scroll_visible()


def _shown(widget: Widget, root: Widget) -> bool:
    node: Widget | None = widget
    while node is not None and node is not root:
        if not node.display:
            return False
        node = node.parent if isinstance(node.parent, Widget) else None
    return True
