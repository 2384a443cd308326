"""One line in the lane where a compaction folded the conversation: the calls above it are
summarized for the model now (their cards stay, as the session file keeps them)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from agent_tui.core.events import CompactionEvent
from agent_tui.ui.common.format import format_tokens


def mark_text(event: CompactionEvent) -> str:
    size = ""
    if event.tokens_before:
        size = f" · ~{format_tokens(event.tokens_before)} → ~{format_tokens(event.tokens_after)}"
    gain = " · saved nothing" if event.saved_nothing else ""
    return f"⇣ compacted: {event.folded} messages into a summary{size}{gain}"


class CompactionMark(Static):
    DEFAULT_CSS = """
    CompactionMark {
        margin: 1 0 0 0;
        color: $accent;
        text-style: italic;
        border-top: dashed $accent 50%;
    }
    """

    def __init__(self, event: CompactionEvent) -> None:
        super().__init__(Content(mark_text(event)))
        self.event = event
