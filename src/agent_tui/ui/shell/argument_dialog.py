"""A small dialog asking for one missing argument of a command (an MCP prompt's required
argument): Enter answers, Esc cancels the command."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class ArgumentDialog(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ArgumentDialog {
        align: center middle;
        background: $background 60%;
    }
    ArgumentDialog > #dialog {
        width: 72;
        max-width: 96%;
        height: auto;
        padding: 0 1;
        background: $surface;
        border: round $primary;
        & > #about { color: $text-muted; margin-bottom: 1; }
        & > #keys { color: $text-muted; }
    }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, command: str, argument: str, description: str = "") -> None:
        super().__init__()
        self.command = command
        self.argument = argument
        self.description = description

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"/{self.command}: {self.argument}"
            yield Static(self.description or f"The required argument {self.argument}.", id="about")
            yield Input(placeholder=self.argument, id="value")
            yield Static("Enter: use it · Esc: cancel the command", id="keys")

    def on_mount(self) -> None:
        self.query_one("#value", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if value:
            self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
