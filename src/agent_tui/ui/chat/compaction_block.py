"""A compaction in the chat: the conversation above it was folded into a summary the model
now continues from. Running ("Compacting…"), done (how much was folded, the summary behind a
toggle) or failed (why, and that nothing changed)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from agent_tui.core.events import CompactionEvent
from agent_tui.ui.common.format import format_tokens

WHY = {
    "manual": "/compact",
    "threshold": "the context reached the compaction threshold",
    "overflow": "the model said the conversation no longer fits its window",
}


def headline(event: CompactionEvent) -> str:
    why = WHY[event.reason]
    if event.phase == "start":
        return f"Compacting the conversation… {event.folded} messages into a summary ({why})"
    if event.phase == "failed":
        return f"Nothing to compact ({why})" if event.skipped else f"Compaction failed ({why})"
    size = ""
    if event.tokens_before:
        before, after = format_tokens(event.tokens_before), format_tokens(event.tokens_after)
        size = f" · ~{before} → ~{after} tokens"
    if event.saved_nothing:
        size += ": it saved nothing"
    return f"Compacted: {event.folded} messages folded into a summary{size} ({why})"


class CompactionBlock(Vertical):
    DEFAULT_CSS = """
    CompactionBlock {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $accent;
        background: $accent 8%;
        & > .title { color: $accent; text-style: bold; }
        & > .message { color: $foreground; }
        &.-failed { border-left: outer $warning; background: $warning 10%; }
        &.-failed > .title { color: $warning; }
        &.-skipped { border-left: outer $secondary; background: transparent; }
        &.-skipped > .title { color: $text-muted; }
        & Collapsible { border: none; padding: 0; margin: 0; background: transparent; }
        & Collapsible > Contents { padding: 0 0 0 2; }
    }
    """

    def __init__(self, event: CompactionEvent) -> None:
        super().__init__()
        self.event = event

    def compose(self) -> ComposeResult:
        yield from self._parts(self.event)

    def _parts(self, event: CompactionEvent) -> list[Widget]:
        self.set_class(event.phase == "failed" and not event.skipped, "-failed")
        self.set_class(event.skipped, "-skipped")
        parts: list[Widget] = [Static(Content(headline(event)), classes="title")]
        if event.phase == "failed" and event.message:
            parts.append(Static(Content(event.message), classes="message"))
        elif event.phase == "end" and event.summary:
            summary = Static(Content(event.summary), classes="summary")
            parts.append(
                Collapsible(summary, title="The summary the model continues from", collapsed=True)
            )
        return parts

    async def update(self, event: CompactionEvent) -> None:
        """The compaction this block shows as running ended (or failed)."""
        self.event = event
        await self.remove_children()
        await self.mount_all(self._parts(event))
