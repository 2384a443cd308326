"""A one-line notice in the chat: "Interrupted", "Resumed session …", hints."""

from __future__ import annotations

from typing import Literal

from textual.content import Content
from textual.widgets import Static

NoticeKind = Literal["info", "warning", "muted"]


class Notice(Static):
    DEFAULT_CSS = """
    Notice {
        margin: 1 0 0 0;
        padding: 0 1 0 2;
        color: $text-muted;
        &.-warning { color: $warning; text-style: bold; }
        &.-info { color: $text-secondary; }
    }
    """

    def __init__(self, text: str, kind: NoticeKind = "muted") -> None:
        super().__init__(Content(text), classes=f"-{kind}")
        self.text = text
        self.kind = kind
