"""The permission prompt: allow once, always allow this tool, deny, or deny with feedback.

A small modal over the main screen. Its keys are ignored for a moment after it opens, so a
keystroke meant for the prompt box cannot approve a call by accident. Esc denies.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from agent_tui.core.permissions import Approval
from agent_tui.ui.call_details import describe_call


def _label(key: str, text: str) -> Content:
    return Content.assemble((key, "bold underline"), " ", text)


class ApprovalScreen(ModalScreen[Approval]):
    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        background: $background 60%;
    }
    ApprovalScreen > #dialog {
        width: 84;
        max-width: 90%;
        height: auto;
        max-height: 80%;
        padding: 0 1;
        background: $surface;
        border: round $warning;
        border-title-color: $warning;
        border-title-style: bold;
        & > #reason { color: $text-muted; margin-bottom: 1; }
        & > #details {
            height: auto; max-height: 20; padding: 0 1;
            background: $background; scrollbar-size-vertical: 1;
        }
        & > #choices { height: auto; margin-top: 1; }
        & #choices Button { margin-right: 1; min-width: 10; }
        & > #feedback { display: none; margin-top: 1; }
        &.-feedback > #feedback { display: block; }
        & > #hint { color: $text-muted; margin-top: 1; }
    }
    """

    AUTO_FOCUS = None
    ARM_SECONDS = 0.25
    """Keys pressed sooner than this after the prompt opens are ignored."""

    BINDINGS = [
        Binding("a", "answer('allow')", "Allow once", id="approval.allow"),
        Binding("A,shift+a", "answer('always')", "Always allow", id="approval.always"),
        Binding("d", "answer('deny')", "Deny", id="approval.deny"),
        Binding("f", "answer('feedback')", "Deny with feedback", id="approval.feedback"),
        Binding("escape", "answer('deny')", "Deny", show=False, id="approval.escape"),
    ]

    def __init__(
        self,
        tool: str,
        input: dict[str, Any],
        reason: str = "",
        *,
        always: str | None = None,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.tool = tool
        self.always = always or tool
        """What "always allow" allows: the rule it will save (default: the tool)."""
        self.input = input
        self.reason = reason
        self.cursor_blink = cursor_blink
        self.armed = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"Allow {self.tool}?"
            yield Static(Content(self.reason or "This call needs your approval."), id="reason")
            with VerticalScroll(id="details", can_focus=False):
                yield Static(describe_call(self.tool, self.input))
            with Horizontal(id="choices"):
                yield Button(_label("a", "Allow once"), id="allow", variant="success", compact=True)
                yield Button(
                    _label("A", f"Always allow {self.always}"),
                    id="always",
                    variant="primary",
                    compact=True,
                )
                yield Button(_label("d", "Deny"), id="deny", variant="error", compact=True)
                yield Button(_label("f", "Deny with feedback"), id="feedback-button", compact=True)
            yield Input(placeholder="Tell the agent what to do instead…  (Enter)", id="feedback")
            yield Static("esc denies", id="hint")

    def on_mount(self) -> None:
        for button in self.query(Button):
            button.can_focus = False
        self.query_one("#feedback", Input).cursor_blink = self.cursor_blink
        self.set_timer(self.ARM_SECONDS, self._arm)

    def _arm(self) -> None:
        self.armed = True

    # -- answers ---------------------------------------------------------------------------

    def action_answer(self, choice: str) -> None:
        if not self.armed:
            return
        dialog = self.query_one("#dialog")
        feedback = self.query_one("#feedback", Input)
        if choice == "allow":
            self.dismiss(Approval(allowed=True))
        elif choice == "always":
            self.dismiss(Approval(allowed=True, always=True))
        elif choice == "feedback" and not dialog.has_class("-feedback"):
            dialog.add_class("-feedback")
            self.query_one("#hint", Static).update("Enter (or esc) denies with this feedback")
            feedback.focus()
        else:
            text = feedback.value.strip() if dialog.has_class("-feedback") else ""
            self.dismiss(Approval(allowed=False, feedback=text or None))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        choice = {"feedback-button": "feedback"}.get(event.button.id or "", event.button.id)
        self.action_answer(choice or "deny")

    @on(Input.Submitted, "#feedback")
    def _feedback(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed:
            self.dismiss(Approval(allowed=False, feedback=event.value.strip() or None))
