"""The elicitation form: a server asks the user to fill in fields (MCP form mode).

A modal titled with the server's name, its message, one ``FieldRow`` per field of the
requested schema (pre-filled with the defaults), and three answers: **Accept** (Enter in a
field, or ctrl+s) sends the values once every field checks out (``check_answer`` of the
core; each wrong field says what is wrong and the form stays open), **Decline** (ctrl+d)
and **Cancel** (Esc). Keys are ignored for a moment after it opens, so typing meant for the
prompt cannot answer it; then the first field takes the focus.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from agent_tui.core.mcp.client.elicitation import ElicitationAnswer, FormRequest
from agent_tui.core.mcp.client.elicitation_form import check_answer, check_value
from agent_tui.ui.elicit.field_row import FieldRow


class ElicitFormScreen(ModalScreen[ElicitationAnswer]):
    DEFAULT_CSS = """
    ElicitFormScreen {
        align: center middle;
        background: $background 60%;
        & > #dialog {
            width: 90;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 1;
            background: $surface;
            border: round $accent;
            border-title-color: $accent;
            border-title-style: bold;
        }
        & #message { height: auto; max-height: 5; margin-bottom: 1; }
        & #fields { height: auto; }
        & #summary { height: auto; color: $error; }
        & #buttons { height: auto; margin-top: 1; align-horizontal: right; }
        & #buttons Button { margin-left: 1; }
        & #hint { color: $text-muted; height: 1; }
    }
    """

    AUTO_FOCUS = None
    ARM_SECONDS = 0.25
    """Keys pressed sooner than this after the form opens are ignored."""

    BINDINGS = [
        Binding("ctrl+s", "answer('accept')", "Accept", priority=True),
        Binding("ctrl+d", "answer('decline')", "Decline", priority=True),
        Binding("escape", "answer('cancel')", "Cancel", priority=True),
    ]

    def __init__(self, request: FormRequest, *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.request = request
        self.cursor_blink = cursor_blink
        self.armed = False

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"MCP server {request.server} asks"
            yield Static(
                Content.assemble((request.server, "bold"), ": ", request.message or "(no message)"),
                id="message",
            )
            with VerticalScroll(id="fields"):
                for index, field in enumerate(request.fields):
                    yield FieldRow(field, index, cursor_blink=self.cursor_blink)
            yield Static("", id="summary")
            with Horizontal(id="buttons"):
                yield Button("Accept", variant="primary", id="accept", compact=True)
                yield Button("Decline", id="decline", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
            yield Static(
                "enter/ctrl+s accept · ctrl+d decline · esc cancel · tab next field", id="hint"
            )

    CHROME = 9
    """Rows of the dialog that are not fields (borders, message, summary, buttons, hint)."""

    def on_mount(self) -> None:
        self.query_one("#summary", Static).display = False
        self.set_timer(self.ARM_SECONDS, self._arm)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The fields scroll so the buttons and keys always show (24 rows and up)."""
        message = self.query_one("#message", Static)
        used = self.CHROME + max(1, min(5, message.virtual_size.height or 1))
        self.query_one("#fields").styles.max_height = max(3, self.app.size.height - used)

    def _arm(self) -> None:
        self.armed = True
        rows = list(self.query(FieldRow))
        if rows:
            rows[0].control.focus()
        else:
            self.query_one("#accept", Button).focus()

    @property
    def rows(self) -> list[FieldRow]:
        return list(self.query(FieldRow))

    def values(self) -> dict[str, object]:
        return {row.field.name: row.raw() for row in self.rows}

    # -- answers ---------------------------------------------------------------------------

    def action_answer(self, action: str) -> None:
        if not self.armed:
            return
        if action == "accept":
            self._accept()
        elif action == "decline":
            self.dismiss(ElicitationAnswer("decline"))
        else:
            self.dismiss(ElicitationAnswer("cancel"))

    def _accept(self) -> None:
        content, errors = check_answer(self.request.fields, self.values())
        for row in self.rows:
            row.show_error(errors.get(row.field.name))
        summary = self.query_one("#summary", Static)
        if errors:
            count = len(errors)
            summary.update(f"{count} field{'s' if count > 1 else ''} to fix before accepting")
            summary.display = True
            first = next(r for r in self.rows if r.field.name in errors)
            first.control.focus()
            first.scroll_visible()
            return
        self.dismiss(ElicitationAnswer("accept", content))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "cancel")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer("accept")

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        """Say at once when a value stops or starts fitting (after a first error)."""
        for row in self.rows:
            if row.control is event.input and row.error is not None:
                _value, error = check_value(row.field, event.value)
                row.show_error(error)
