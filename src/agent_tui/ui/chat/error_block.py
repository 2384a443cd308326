"""An error in the chat: where it came from and the message, clearly apart from replies."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static


class ErrorBlock(Vertical):
    DEFAULT_CSS = """
    ErrorBlock {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $error;
        background: $error 12%;
        & > .title { color: $error; text-style: bold; }
        & > .message { color: $foreground; }
    }
    """

    def __init__(self, title: str, message: str) -> None:
        super().__init__()
        self.title = title
        self.message = message

    def compose(self) -> ComposeResult:
        yield Static(Content(self.title), classes="title")
        yield Static(Content(self.message), classes="message")
