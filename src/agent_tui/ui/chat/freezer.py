"""Keeps a long chat light: finished replies far from the viewport leave the DOM.

Textual lays out every displayed widget on each refresh and keeps render caches for each; a
reply part is one widget (``markdown_lines``) but holds its laid-out lines and Textual's
caches of them, so a transcript of many long replies (or one very long streamed reply, which
the chat splits into parts) would hold more memory, and lay out more, as it grows.
``Freezer.run`` replaces each finished reply more than ``SCREENS`` screens away from the
viewport with a ``FrozenGap`` of its height (which keeps the text), and mounts the reply again
as the viewport comes near. A change of width brings them all back (their heights change);
the next run freezes them again.
"""

from __future__ import annotations

from textual.containers import ScrollableContainer
from textual.widget import Widget

from agent_tui.ui.chat.assistant_reply import AssistantReply
from agent_tui.ui.chat.frozen_gap import FrozenGap

SCREENS = 1
"""Replies within this many screen heights of the viewport stay mounted."""


class Freezer:
    def __init__(self, view: ScrollableContainer) -> None:
        self.view = view
        self.gaps: list[FrozenGap] = []
        self.leaving: set[Widget] = set()
        """Widgets this freezer removed that may still be children for a moment."""
        self.width = 0

    @property
    def frozen(self) -> int:
        return len(self.gaps)

    def clear(self) -> None:
        self.gaps.clear()

    def thaw_all(self) -> None:
        for gap in list(self.gaps):
            self._thaw(gap)

    def run(self) -> None:
        """Freeze the finished replies far from the viewport; revive the ones near it."""
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
        for child in list(view.children):
            if child in self.leaving:  # removed by an earlier run, not gone yet
                continue
            near = child.virtual_region.bottom >= top and child.virtual_region.y <= bottom
            if isinstance(child, FrozenGap) and near:
                self._thaw(child)
            elif isinstance(child, AssistantReply) and not near and _finished(child):
                self._freeze(child)

    def _leave(self, widget: Widget) -> None:
        self.leaving.add(widget)
        widget.remove()

    def _freeze(self, reply: AssistantReply) -> None:
        gap = FrozenGap(reply)
        self.gaps.append(gap)
        self.view.mount(gap, before=reply)
        self._leave(reply)

    def _thaw(self, gap: FrozenGap) -> None:
        if gap in self.gaps:
            self.gaps.remove(gap)
        if gap.is_attached:
            self.view.mount(gap.revive(), before=gap)
            self._leave(gap)


def _finished(reply: AssistantReply) -> bool:
    """Done streaming and laid out (its height is known)."""
    return not reply.streaming and reply.is_mounted and reply.outer_size.height > 0
