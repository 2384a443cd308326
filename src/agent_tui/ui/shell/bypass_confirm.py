"""The confirmation before bypass mode: what it lets through and what still holds; y enters,
any other key cancels."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from agent_tui.ui.shell.key_question import KeyQuestion

WHAT_BYPASS_DOES = (
    "Bypass runs every call without asking — file edits, shell commands, MCP tools — except "
    "what deny rules refuse and what asks in every mode (protected paths such as .git/config, "
    ".agent-tui/ or .mcp.json, and commands the analysis cannot see through). A model steered "
    "by what it reads can then act without you."
)


class BypassConfirm(KeyQuestion):
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

    def __init__(self, otherwise: str) -> None:
        super().__init__()
        self.otherwise = otherwise

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
