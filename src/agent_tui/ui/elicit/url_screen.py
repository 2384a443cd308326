"""The URL prompt: a server asks the user to visit a URL out of band (MCP URL mode).

Shows the server, its message, the URL's domain prominently (IDNA-encoded: look-alike
letters show as ``xn--``) and the full URL. Nothing is opened until the user chooses
**Open** (o, or Enter on the button): then the URL is opened in the browser (``opener``,
``webbrowser.open`` by default) and the server is told the user accepted. **Decline** (d)
and **Cancel** (Esc) open nothing.
"""

from __future__ import annotations

import logging
import webbrowser
from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from agent_tui.core.mcp.client.elicitation import ElicitationAnswer, UrlRequest

log = logging.getLogger(__name__)

Opener = Callable[[str], object]


class ElicitUrlScreen(ModalScreen[ElicitationAnswer]):
    DEFAULT_CSS = """
    ElicitUrlScreen {
        align: center middle;
        background: $background 60%;
        & > #dialog {
            width: 90;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 1;
            background: $surface;
            border: round $warning;
            border-title-color: $warning;
            border-title-style: bold;
        }
        & #message { height: auto; max-height: 6; margin-bottom: 1; }
        & #domain { height: auto; }
        & #url { height: auto; max-height: 4; color: $text-muted; margin-bottom: 1; }
        & #buttons { height: auto; align-horizontal: right; }
        & #buttons Button { margin-left: 1; }
        & #hint { color: $text-muted; height: auto; }
    }
    """

    AUTO_FOCUS = None
    ARM_SECONDS = 0.25

    BINDINGS = [
        Binding("o", "answer('accept')", "Open", priority=True),
        Binding("d", "answer('decline')", "Decline", priority=True),
        Binding("escape", "answer('cancel')", "Cancel", priority=True),
    ]

    def __init__(self, request: UrlRequest, *, opener: Opener | None = None) -> None:
        super().__init__()
        self.request = request
        self.opener: Opener = opener or webbrowser.open
        self.armed = False

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"MCP server {request.server} wants you to open a URL"
            yield Static(
                Content.assemble((request.server, "bold"), ": ", request.message or "(no message)"),
                id="message",
            )
            yield Static(
                Content.assemble("domain  ", (request.domain, "bold reverse $warning")),
                id="domain",
            )
            yield Static(Content(request.url), id="url")
            with Horizontal(id="buttons"):
                for label, name, variant in (
                    ("Open in browser (o)", "accept", "warning"),
                    ("Decline (d)", "decline", "default"),
                    ("Cancel (esc)", "cancel", "default"),
                ):
                    button = Button(label, variant=variant, id=name, compact=True)  # type: ignore[arg-type]
                    button.can_focus = False  # Enter must not open the URL: only o or a click
                    yield button
            yield Static(
                "o opens it in your browser · d declines · esc cancels · nothing opens "
                "until you choose",
                id="hint",
            )

    def on_mount(self) -> None:
        self.set_timer(self.ARM_SECONDS, self._arm)

    def _arm(self) -> None:
        self.armed = True

    def action_answer(self, action: str) -> None:
        if not self.armed:
            return
        if action == "accept":
            try:
                self.opener(self.request.url)
            except Exception as exc:  # no browser here: the URL is on screen to copy
                log.warning("opening a browser for %s failed: %s", self.request.url, exc)
                self.notify(f"could not open a browser ({exc}); open the URL yourself")
            self.dismiss(ElicitationAnswer("accept"))
        elif action == "decline":
            self.dismiss(ElicitationAnswer("decline"))
        else:
            self.dismiss(ElicitationAnswer("cancel"))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "cancel")
