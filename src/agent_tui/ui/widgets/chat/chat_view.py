"""The chat pane: user prompts, streamed replies, tool references, errors and notices.

It keeps itself scrolled to the bottom while content arrives (unless the user scrolled up)
and only ever appends: a token appends to the current reply's Markdown stream, a tool event
updates one reference line.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

from agent_tui.core.transcript import Message
from agent_tui.ui.tool_calls import CallState
from agent_tui.ui.widgets.chat.assistant_reply import AssistantReply
from agent_tui.ui.widgets.chat.error_block import ErrorBlock
from agent_tui.ui.widgets.chat.notice import Notice, NoticeKind
from agent_tui.ui.widgets.chat.tool_line import ToolLine
from agent_tui.ui.widgets.chat.user_prompt import UserPrompt


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
        self._reply: AssistantReply | None = None
        self._lines: dict[str, ToolLine] = {}

    def on_mount(self) -> None:
        self.anchor()

    @property
    def reply(self) -> AssistantReply | None:
        """The reply being streamed, if any."""
        return self._reply

    async def _append(self, widget: Widget) -> None:
        await self.mount(widget)

    # -- messages --------------------------------------------------------------------------

    async def add_user(self, text: str) -> None:
        await self.end_reply()
        await self._append(UserPrompt(text))

    async def stream(self, fragment: str) -> None:
        """Append a fragment of the assistant's reply, starting a new reply if needed."""
        if self._reply is None:
            self._reply = AssistantReply()
            await self._append(self._reply)
        await self._reply.write(fragment)

    async def end_reply(self, final: str | None = None) -> None:
        """Close the current reply; ``final`` is the complete text the model sent."""
        reply, self._reply = self._reply, None
        if reply is not None:
            await reply.finish(final)
            if not reply.source.strip():
                await reply.remove()
        elif final and final.strip():
            await self._append(AssistantReply(final))

    async def add_error(self, title: str, message: str) -> None:
        await self.end_reply()
        await self._append(ErrorBlock(title, message))

    async def add_notice(self, text: str, kind: NoticeKind = "muted") -> None:
        await self.end_reply()
        await self._append(Notice(text, kind))

    # -- tool calls ------------------------------------------------------------------------

    async def add_call(self, call: CallState) -> None:
        await self.end_reply()
        line = ToolLine([call])
        children = self.children
        if not children or not isinstance(children[-1], ToolLine):
            line.add_class("-first")
        self._lines[call.id] = line
        await self._append(line)

    async def group_calls(self, calls: list[CallState]) -> None:
        """Fold the lines of a parallel batch into one line for the batch."""
        lines = [self._lines[c.id] for c in calls if c.id in self._lines]
        if not lines:
            return
        keep, *drop = lines
        for call in calls:
            self._lines[call.id] = keep
        keep.set_calls(calls)
        for line in drop:
            await line.remove()

    def refresh_call(self, call_id: str) -> None:
        if (line := self._lines.get(call_id)) is not None:
            line.update_view()

    # -- whole view ------------------------------------------------------------------------

    async def replay(self, messages: list[Message], calls: dict[str, CallState]) -> None:
        """Show a resumed transcript (static: no streaming)."""
        for message in messages:
            if message.role == "user":
                await self._append(UserPrompt(message.content))
            elif message.role == "assistant":
                if message.content.strip():
                    await self._append(AssistantReply(message.content))
                for call in message.tool_calls:
                    if call.id in calls:
                        await self.add_call(calls[call.id])

    async def clear(self) -> None:
        await self.end_reply()
        self._lines.clear()
        await self.remove_children()
