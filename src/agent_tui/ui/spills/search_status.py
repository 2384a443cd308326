"""The line under the viewer: a running search with its progress (Esc cancels it), or the
outcome of the last action — where the match is, that the search wrapped, what was refused."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import ProgressBar, Static

from agent_tui.ui.spills.steps import Tone

__all__ = ["SearchStatus", "Tone"]

_STYLES = {
    "info": "$text-muted",
    "success": "$text-success",
    "warning": "$text-warning",
    "error": "$text-error",
}


class SearchStatus(Horizontal):
    DEFAULT_CSS = """
    SearchStatus {
        height: 1;
        padding: 0 1;
        background: $surface;
        & > #status-text { width: 1fr; height: 1; }
        & > ProgressBar { display: none; width: auto; height: 1; margin-left: 1; }
        &.-searching > ProgressBar { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        """What the line says now (plain text)."""
        self.tone: Tone = "info"

    def compose(self) -> ComposeResult:
        yield Static(id="status-text", markup=False)
        yield ProgressBar(total=100, show_eta=False, id="status-progress")

    def say(self, message: str, tone: Tone = "info") -> None:
        self.text, self.tone = message, tone
        self.remove_class("-searching")
        self.query_one("#status-text", Static).update(Content.styled(message, _STYLES[tone]))

    def searching(self, query: str, backward: bool) -> None:
        way = "backward" if backward else "forward"
        self.text, self.tone = f"Searching {way} for {query}…", "info"
        self.query_one("#status-text", Static).update(
            Content.assemble(
                (f"Searching {way} for ", "$text-muted"),
                (query, "bold"),
                ("…  esc cancels", "$text-muted"),
            )
        )
        bar = self.query_one("#status-progress", ProgressBar)
        bar.update(total=100, progress=0)
        self.add_class("-searching")

    def progress(self, done: int, total: int) -> None:
        bar = self.query_one("#status-progress", ProgressBar)
        bar.update(total=max(total, 1), progress=done)
