"""One assistant message in the chat, streamed incrementally as Markdown."""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream


class AssistantReply(Markdown):
    """Appends streamed fragments through ``Markdown.get_stream`` (never a full re-render)."""

    DEFAULT_CSS = """
    AssistantReply {
        margin: 1 0 0 0;
        padding: 0 1 0 2;
        background: transparent;
        & > MarkdownBlock:last-child { margin-bottom: 0; }
    }
    """

    def __init__(self, markdown: str = "") -> None:
        super().__init__(markdown)
        self._stream: MarkdownStream | None = None

    @property
    def streaming(self) -> bool:
        return self._stream is not None

    async def write(self, fragment: str) -> None:
        """Append ``fragment``; the stream batches fragments if rendering falls behind."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(fragment)

    async def finish(self, final: str | None = None) -> None:
        """Flush and stop the stream; make the document ``final`` if the model said otherwise."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
        if final is not None and final.strip() != self.source.strip():
            await self.update(final)
