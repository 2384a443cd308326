"""One labelled line of the server details (``status``, ``command``, ``protocol``…); the value
wraps under itself, and the row hides while it has no value."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static


class FactRow(Horizontal):
    DEFAULT_CSS = """
    FactRow {
        height: auto;
        & > .fact-label { width: 12; color: $foreground-muted; }
        & > .fact-value { width: 1fr; }
    }
    """

    def __init__(self, label: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = label
        self.value: Content | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.label, classes="fact-label")
        yield Static(classes="fact-value")

    def relabel(self, label: str) -> None:
        if label != self.label:
            self.label = label
            self.query_one(".fact-label", Static).update(label)

    def set(self, value: Content | str | None) -> None:
        """Show ``value`` (hidden when empty)."""
        content = Content(value) if isinstance(value, str) else value
        self.display = bool(content and content.plain.strip())
        if content != self.value:
            self.value = content
            self.query_one(".fact-value", Static).update(content or "")
