"""The confirmation before bypass mode: what it lets through and what still holds; y enters,
any other key cancels."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

WHAT_BYPASS_DOES = (
    "Bypass runs every call without asking — file edits, shell commands, MCP tools — except "
    "what deny rules refuse and what asks in every mode (protected paths such as .git/config, "
    ".agent-tui/ or .mcp.json, and commands the analysis cannot see through). A model steered "
    "by what it reads can then act without you."
)


class BypassConfirm(ModalScreen[bool]):
    """``y`` enters bypass (True); any other key (or a click) cancels (False). ``otherwise``
    says what cancelling does (``stay in plan mode``, ``switch to default instead``)."""

    DEFAULT_CSS = """
    BypassConfirm {
        align: center middle;
        background: $background 60%;
    }
    BypassConfirm > #dialog {
        width: 72;
        max-width: 96%;
        height: auto;
        max-height: 100%;
        padding: 0 1;
        background: $surface;
        border: heavy $error;
        border-title-color: $error;
        border-title-style: bold;
        & > #what { margin-bottom: 1; }
        & > #keys { color: $text-muted; }
    }
    """

    AUTO_FOCUS = None
    ARM_SECONDS = 0.25
    """A y pressed sooner than this after the dialog opens is ignored (other keys cancel)."""

    def __init__(self, otherwise: str) -> None:
        super().__init__()
        self.otherwise = otherwise
        self.armed = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Enter bypass mode?"
            yield Static(WHAT_BYPASS_DOES, id="what")
            yield Static(
                Content.assemble(
                    (" y ", "bold $error reverse"),
                    " enters bypass · any other key: ",
                    (self.otherwise, "bold"),
                ),
                id="keys",
            )

    def on_mount(self) -> None:
        self.set_timer(self.ARM_SECONDS, self._arm)

    def _arm(self) -> None:
        self.armed = True

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if event.key == "y" and not self.armed:
            return
        self.dismiss(event.key == "y")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.dismiss(False)
