"""One user message in the chat."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class UserPrompt(Static):
    """The user's words, verbatim (never parsed as markup)."""

    DEFAULT_CSS = """
    UserPrompt {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $primary;
        background: $primary 10%;
        color: $foreground;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(Content(text))
        self.text = text
