"""The question the spill browser asks before it deletes a spill (``d``)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmDelete(ModalScreen[bool]):
    """Delete this spill? y / Enter deletes, n / Esc keeps it."""

    DEFAULT_CSS = """
    ConfirmDelete {
        align: center middle;
        background: $background 60%;
        & > #dialog {
            width: 72; max-width: 96%; height: auto; padding: 1 2;
            background: $surface;
            border: round $error;
            border-title-color: $error;
            border-title-style: bold;
            & > #hint { color: $text-muted; margin-top: 1; }
        }
    }
    """

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Delete", id="confirm.delete"),
        Binding("n,escape", "answer(False)", "Keep", id="confirm.keep"),
    ]

    def __init__(self, shown: str, detail: str) -> None:
        super().__init__()
        self.shown = shown
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Delete this spill?"
            yield Static(
                Content.assemble(
                    (self.shown, "bold"),
                    self.detail,
                    "\nNo live message and no saved session points to it. The file and its index "
                    "are deleted; this cannot be undone.",
                )
            )
            yield Static(
                Content.assemble(("y", "bold $text-error"), " delete   ", ("n", "bold"), " keep"),
                id="hint",
            )

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
