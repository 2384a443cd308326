"""One assistant message in the chat, streamed incrementally as Markdown."""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownStream


class AssistantReply(Markdown):
    """Appends streamed fragments through ``Markdown.get_stream`` (never a full re-render).

    A long reply is several of these, one after the other (``ChatView`` starts a new part at a
    block boundary once a part is long), so each layout re-arranges one bounded part.

    The last block loses its bottom margin once the reply is complete (a class set then, not
    a ``:last-child`` rule: order-dependent rules restyle every block on every mount, which
    makes a long stream quadratic)."""

    DEFAULT_CSS = """
    AssistantReply {
        margin: 1 0 0 0;
        padding: 0 1 0 2;
        background: transparent;
        & > .-last { margin-bottom: 0; }
        &.-continued { margin-top: 0; }
    }
    """

    def __init__(self, markdown: str = "", *, continued: bool = False, last: bool = True) -> None:
        super().__init__(markdown, classes="-continued" if continued else None)
        self._stream: MarkdownStream | None = None
        self.text = markdown
        """Everything written so far (the rendered ``source`` may lag behind a stream)."""
        self.last = last
        """Nothing of the same reply follows (its last block has no bottom margin)."""
        self.serial: int | None = None
        """Which reply of the chat this part belongs to (a long reply has several parts)."""

    @property
    def streaming(self) -> bool:
        return self._stream is not None

    async def write(self, fragment: str) -> None:
        """Append ``fragment``; the stream batches fragments if rendering falls behind."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        self.text += fragment
        await self._stream.write(fragment)

    async def finish(self, *, last: bool = True) -> None:
        """Flush and stop the stream; ``last``: nothing follows (the bottom margin goes)."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
            async with self.lock:  # an append the stop let run on is done too
                pass
        self.last = last
        if last:
            self._mark_last()

    def on_markdown_table_of_contents_updated(self) -> None:
        """A whole document was (re)rendered: mark its last block."""
        if self._stream is None and self.last:
            self._mark_last()

    def _mark_last(self) -> None:
        blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]
        for block in blocks[:-1]:
            if block.has_class("-last"):
                block.remove_class("-last")
        if blocks:
            blocks[-1].add_class("-last")
