"""One assistant reply streamed into the chat, in parts.

Fragments go to the current part, an ``AssistantReply`` (Markdown, appended incrementally). At
the first block boundary past ``PART_CHARS`` (a blank line outside every open block: fences,
indented code, lists, quotes, tables, HTML blocks — ``PartSplitter`` asks the Markdown parser)
the part ends and the reply continues in a new one, so a long reply is a column of bounded
Markdown widgets: a refresh re-arranges only the growing part, and the finished ones can leave
the DOM when far from the viewport (``Freezer``). Every part carries the reply's ``serial``;
the stream keeps the finished parts' text, not their widgets.
"""

from __future__ import annotations

from textual.containers import ScrollableContainer

from agent_tui.ui.chat.assistant_reply import AssistantReply
from agent_tui.ui.chat.part_splitter import PartSplitter


class ReplyStream:
    def __init__(self, view: ScrollableContainer, serial: int) -> None:
        self.view = view
        self.serial = serial
        self.texts: list[str] = []
        """The text of each finished part."""
        self.current: AssistantReply | None = None
        self.splitter = PartSplitter()
        """Where the current part may end."""
        self.last_part: AssistantReply | None = None
        self.width = 0
        """The width the parts were last laid out at (a new part is drawn at it first)."""

    @property
    def text(self) -> str:
        return "".join(self.texts) + (self.current.text if self.current else "")

    def _new_part(self) -> AssistantReply:
        part = AssistantReply(continued=bool(self.texts))
        part.serial = self.serial
        return part

    async def write(self, fragment: str) -> None:
        while fragment:
            if self.current is None:
                self.current = self.last_part = self._new_part()
                self.splitter = PartSplitter()
                await self.view.mount(self.current)
            cut = self.splitter.feed(fragment)
            self._append(self.current, fragment if cut is None else fragment[:cut])
            if cut is None:
                return
            await self._close_part(last=False)
            fragment = fragment[cut:]

    def _append(self, part: AssistantReply, fragment: str) -> None:
        """``fragment`` into ``part``, rendered before the frame that shows it is due."""
        part.append(fragment)
        self.width = part.content_region.width or self.width
        part.prepare(self.width)

    async def _close_part(self, *, last: bool) -> None:
        part, self.current = self.current, None
        if part is not None:
            await part.finish(last=last)
            self.texts.append(part.text)

    async def close(self, final: str | None) -> None:
        """The reply is complete; ``final`` is the text the model sent (shown instead when it
        differs from what was streamed)."""
        await self._close_part(last=True)
        text = "".join(self.texts)
        parts = [c for c in self.view.children if getattr(c, "serial", None) == self.serial]
        if final is not None and final.strip() and final.strip() != text.strip():
            await self.view.remove_children(parts)
            await self.view.mount(AssistantReply(final))
        elif not text.strip():
            await self.view.remove_children(parts)
        elif self.last_part is not None and self.last_part.is_attached:
            await self.last_part.finish(last=True)
