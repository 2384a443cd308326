"""The chat pane: user prompts, streamed replies, tool references, errors and notices.

It keeps itself scrolled to the bottom while content arrives (unless the user scrolled up)
and only ever appends: a token appends to the current reply's Markdown stream (a long reply
continues in a new part, see ``ReplyStream``), a tool event updates one widget of reference
rows. Finished replies and tool rows far from the viewport leave the DOM, a run of them for
one gap (``Freezer``), so a long transcript or a long turn does not slow every refresh. A
resumed session shows its last turns only; an ``EarlierTurns`` line above them stands for the
rest, rendered a page at a time above what is shown (``insert_before``) when the user scrolls
to the top or clicks it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widget import Widget

from agent_tui.ui.calls.state import CallState
from agent_tui.ui.chat.earlier_turns import EarlierTurns
from agent_tui.ui.chat.error_block import ErrorBlock
from agent_tui.ui.chat.notice import Notice, NoticeKind
from agent_tui.ui.chat.tool_line import ToolLine
from agent_tui.ui.chat.user_prompt import UserPrompt

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.timer import Timer

    from agent_tui.core.attachments import ImageRef
    from agent_tui.core.events import Mention
if TYPE_CHECKING:  # imported with the first reply (the Markdown parser is not small)
    from agent_tui.core.events import CompactionEvent
    from agent_tui.ui.chat.assistant_reply import AssistantReply
    from agent_tui.ui.chat.compaction_block import CompactionBlock
    from agent_tui.ui.chat.freezer import Freezer
    from agent_tui.ui.chat.reply_stream import ReplyStream

FREEZE_SECONDS = 0.25
"""How often the chat checks which finished replies are far from the viewport."""

WRITE_SECONDS = 1 / 30
"""The reply's text gathered since the last write is written at most this often."""

WRITE_MAX_SECONDS = 0.5
"""…and at least this often while text waits, however slow the last write was to paint."""

WRITE_CHARS = 3000
"""At most this much of the gathered text goes in one write (then a frame is painted before
the next): a reply that arrived far faster than it renders (a fast model, a slow machine)
comes out a part or so per frame, not as many parts rendered in one long pause. The cost of a
write is about the Markdown rendering of the parts it touches (~5 µs a character here), done
in the write's own turn of the event loop (``AssistantReply.prepare``), so this bounds that
turn; the frame after it lays out and paints. At one write per ``2 × its cost`` that is still
~12,000 tokens/s (``benchmarks/bench_ui.py``); 1,500 measured 0.81× the tokens/s of 3,000 for
no shorter pause (12-07, loaded)."""


class ChatView(VerticalScroll):
    DEFAULT_CSS = """
    ChatView {
        height: 1fr;
        padding: 0 1 1 1;
        background: $background;
        scrollbar-size-vertical: 1;
        &:focus { background-tint: $foreground 3%; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._stream: ReplyStream | None = None
        self._serial = 0
        self._lines: dict[str, ToolLine] = {}
        self._gathered: list[str] = []
        self._written_at = float("-inf")
        self._write_cost = 0.0
        """How long the last write took to be painted (the write, the layout, the paint)."""
        self._write_timer: Timer | None = None
        self._write_due = False
        """A write of the gathered text is scheduled (a timer, or the app's next callback)."""
        self._compaction: CompactionBlock | None = None
        """The block of a compaction still running."""
        self.freezer: Freezer | None = None
        """Made with the first reply."""
        self.earlier: EarlierTurns | None = None
        """The line standing for a resumed session's turns not rendered yet."""
        self.insert_before: Widget | None = None
        """Where new items go while set (earlier turns rendered above the shown ones)."""

    def on_mount(self) -> None:
        self.anchor()
        self.set_interval(FREEZE_SECONDS, self._freeze)

    def _freeze(self) -> None:
        if self.freezer is not None:
            self.freezer.run()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """The user scrolls: Textual's own watcher first (scrollbar, re-anchoring at the
        bottom, refresh), then show the replies coming into reach right away."""
        super().watch_scroll_y(old_value, new_value)
        if self.freezer is not None and self.freezer.frozen:
            self.call_after_refresh(self.freezer.run)
        if self.earlier is not None and new_value < old_value and new_value <= 0:
            self.post_message(EarlierTurns.Load())

    def _replies(self) -> type[AssistantReply]:
        """The reply widget class (imported on first use), and the freezer for far items."""
        from agent_tui.ui.chat.assistant_reply import AssistantReply
        from agent_tui.ui.chat.freezer import Freezer

        if self.freezer is None:
            self.freezer = Freezer(self, self._revived)
        return AssistantReply

    def _revived(self, widget: Widget) -> None:
        """A frozen item is back: the updates of its calls go to it."""
        if isinstance(widget, ToolLine):
            for row in widget.rows:
                for call in row:
                    self._lines[call.id] = widget

    @property
    def reply(self) -> AssistantReply | None:
        """The (latest part of the) reply being streamed, if any."""
        return self._stream.last_part if self._stream is not None else None

    @property
    def reply_text(self) -> str:
        """Everything the reply being streamed has said so far (all its parts)."""
        return self._stream.text if self._stream is not None else ""

    async def _append(self, widget: Widget) -> None:
        await self.mount(widget, before=self.insert_before)

    def _last(self) -> Widget | None:
        """The item new items follow."""
        children = self.children
        if self.insert_before is None:
            return children[-1] if children else None
        index = children.index(self.insert_before)
        return children[index - 1] if index > 0 else None

    async def set_earlier(self, count: int) -> None:
        """``count`` earlier turns are not rendered: the line saying so (mounted at the end
        the first time: before the shown turns), updated, or removed when none are left."""
        if count <= 0:
            if self.earlier is not None:
                earlier, self.earlier = self.earlier, None
                await earlier.remove()
        elif self.earlier is None:
            self.earlier = EarlierTurns(count)
            await self._append(self.earlier)
        else:
            self.earlier.set_count(count)

    def after_earlier(self) -> Widget | None:
        """The first item below the earlier-turns line (where earlier turns are rendered)."""
        if self.earlier is None or self.earlier not in self.children:
            return None
        index = self.children.index(self.earlier)
        return self.children[index + 1] if index + 1 < len(self.children) else None

    # -- messages --------------------------------------------------------------------------

    async def add_user(
        self, text: str, mentions: Sequence[Mention] = (), images: Sequence[ImageRef] = ()
    ) -> None:
        """A prompt the user sent: appended at the end, and the chat brought back to it and
        anchored again, however far up it was scrolled (by the user, or by lane navigation
        showing an earlier turn): the reply to it must be seen as it streams."""
        await self.end_reply()
        await self._append(UserPrompt(text, mentions, images))
        if self.insert_before is None:
            self.scroll_end(animate=False)

    def gather(self, fragment: str) -> None:
        """Take a fragment of the reply; it is written with the others gathered until the
        next write is due, so a reply that arrives faster than it renders goes in a few large
        writes, never one render per token. A write costs a layout and a repaint of the chat
        whatever its length (tens of milliseconds on a busy machine): the next one is due once
        the loop has been free as long as the last took to paint (``WRITE_SECONDS`` to
        ``WRITE_MAX_SECONDS`` after it), so painting the reply takes at most about half the
        loop, and the model's stream and the user's keys get the rest."""
        self._gathered.append(fragment)
        self._schedule_write()

    def _schedule_write(self) -> None:
        if self._write_due or not self._gathered:
            return
        self._write_due = True
        interval = min(WRITE_MAX_SECONDS, max(WRITE_SECONDS, 2 * self._write_cost))
        wait = self._written_at + interval - time.monotonic()
        if wait <= 0:
            self.app.call_later(self._timed_write)
        else:
            # the app runs it, as it runs every other change to the chat: never two at once
            self._write_timer = self.app.set_timer(wait, self._timed_write, name="write-reply")

    async def _timed_write(self) -> None:
        """The scheduled write: one slice of what is gathered; the next is scheduled after it."""
        self._write_timer = None
        self._write_due = False
        await self._write_slice()
        self._schedule_write()

    async def flush(self) -> None:
        """Write all the gathered fragments (before anything else is added to the chat), a
        slice a frame: a long backlog is painted as it goes, never in one pause."""
        if self._write_timer is not None:
            self._write_timer.stop()
            self._write_timer = None
        self._write_due = False
        while self._gathered:
            await self._write_slice()
            if self._gathered and self.is_attached:
                await self._next_frame()

    async def _write_slice(self) -> None:
        if not self._gathered:
            return
        text = "".join(self._gathered)
        head, rest = text[:WRITE_CHARS], text[WRITE_CHARS:]
        self._gathered[:] = [rest] if rest else []
        self._written_at = started = time.monotonic()
        await self.stream(head)
        self.call_after_refresh(self._painted, started)

    async def _next_frame(self) -> None:
        """Until the screen has painted what was written (its callbacks run after a refresh,
        in the screen's own loop, while this waits in the app's), or ``WRITE_MAX_SECONDS``
        (a suspended app paints nothing: the text goes on regardless)."""
        painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def done() -> None:
            if not painted.done():
                painted.set_result(None)

        self.call_after_refresh(done)
        await asyncio.wait({painted}, timeout=WRITE_MAX_SECONDS)

    def _painted(self, started: float) -> None:
        self._write_cost = time.monotonic() - started

    async def stream(self, fragment: str) -> None:
        """Append a fragment of the assistant's reply, starting a new reply if needed."""
        if self._stream is None:
            from agent_tui.ui.chat.reply_stream import ReplyStream

            self._replies()
            self._serial += 1
            self._stream = ReplyStream(self, self._serial)
        await self._stream.write(fragment)

    async def end_reply(self, final: str | None = None) -> None:
        """Close the current reply; ``final`` is the complete text the model sent."""
        await self.flush()
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.close(final)
        elif final and final.strip():
            await self._append(self._replies()(final))

    async def add_error(self, title: str, message: str) -> None:
        await self.end_reply()
        await self._append(ErrorBlock(title, message))

    async def add_notice(self, text: str, kind: NoticeKind = "muted") -> None:
        await self.end_reply()
        await self._append(Notice(text, kind))

    async def show_compaction(self, event: CompactionEvent) -> None:
        """A compaction started (a block saying so), ended or failed (that block updated, or
        a new one: a resumed session replays only how it ended)."""
        from agent_tui.ui.chat.compaction_block import CompactionBlock

        await self.end_reply()
        running, self._compaction = self._compaction, None
        if event.phase == "start":
            self._compaction = CompactionBlock(event)
            await self._append(self._compaction)
        elif running is not None:
            await running.update(event)
        else:
            await self._append(CompactionBlock(event))

    # -- tool calls ------------------------------------------------------------------------

    async def add_call(self, call: CallState) -> None:
        """A reference row for ``call``: appended to the tool lines just above, if any."""
        await self.end_reply()
        last = self._last()
        if isinstance(last, ToolLine) and not last.full:
            last.add_row([call])
            self._lines[call.id] = last
            return
        line = ToolLine([call])
        if not isinstance(last, ToolLine):
            line.add_class("-first")
        self._lines[call.id] = line
        await self._append(line)

    async def group_calls(self, calls: list[CallState]) -> None:
        """Fold the rows of a parallel batch into one row for the batch, in the line of its
        first call: a batch of more than ``MAX_ROWS`` calls began lines of its own, which the
        row leaves empty (removed)."""
        lines = list(dict.fromkeys(self._lines[c.id] for c in calls if c.id in self._lines))
        if not lines:
            return
        line, *others = lines
        line.group(calls)
        ids = {c.id for c in calls}
        for other in others:
            other.drop(ids)
            if not other.rows:
                await other.remove()
        for call in calls:
            self._lines[call.id] = line

    def refresh_call(self, call_id: str) -> None:
        line = self._lines.get(call_id)
        if line is not None and line.is_attached:  # a frozen line is redrawn when revived
            line.update_view(call_id)

    # -- whole view ------------------------------------------------------------------------

    async def greet(self, warnings: list[str], *, demo: bool, memory: Sequence[str] = ()) -> None:
        """What the chat shows first: start-up warnings, the memory files loaded, then the
        demo model's welcome (a resumed transcript follows them)."""
        for warning in warnings:
            await self.add_notice(warning, "warning")
        if memory:
            await self.add_notice(f"Memory: {', '.join(memory)}", "info")
        if demo:
            await self.add_notice(
                "This is the offline demo model: canned answers, no key, no network. "
                "Type “tour” for a guided walk through tool cards and approvals.",
                "info",
            )

    async def clear(self) -> None:
        await self.end_reply()
        self._lines.clear()
        if self.freezer is not None:
            self.freezer.clear()
        self.earlier = self.insert_before = None
        await self.remove_children()
