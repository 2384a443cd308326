"""Plan mode's hand-off: the plan the model proposed (``exit_plan_mode``), rendered, and the
user's answer — approve and work in default mode (y), approve and accept edits (a), keep
planning with feedback (f: type it, Enter sends it; Esc goes back to the choices), or keep
planning without (n / Esc).

A modal like the permission prompt, and as careful with keys: they are ignored for a moment
after it opens (a keystroke meant for the prompt box cannot approve a plan), ``f`` is a
priority binding so the keys typed right after it land in the field, and the first answer
closes the dialog — a second key of the same burst answers nothing (``answer`` once), so it
can never dismiss a screen that is no longer there. Shift+Tab does nothing here: the answer
chooses the mode.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Markdown, Static

from agent_tui.core.tools.plan_gate import PlanVerdict
from agent_tui.ui.approval.answer_dialog import AnswerDialog, scroll_bindings
from agent_tui.ui.approval.choices import Answer, ApprovalChoices, Row

TITLE = "Plan ready: approve it?"
FEEDBACK_HINT = "Enter sends it, the mode stays plan · esc back to the choices"
HINT = "y or a approves · f feedback · n or esc keeps planning"


def _label(key: str, style: str, text: str, detail: str = "") -> Content:
    return Content.assemble(
        (f" {key} ", f"bold {style} reverse"), "  ", text, (detail, "$foreground-muted")
    )


class PlanReviewScreen(AnswerDialog[PlanVerdict]):
    DEFAULT_CSS = """
    PlanReviewScreen {
        align: center middle;
        background: $background 60%;
    }
    PlanReviewScreen > #dialog {
        width: 100;
        max-width: 96%;
        height: auto;
        max-height: 100%;
        padding: 0 1;
        background: $surface;
        border: round $accent;
        border-title-color: $accent;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
        & > #intro { color: $text-muted; margin-bottom: 1; }
        & > #details {
            height: auto; max-height: 100%; padding: 0 1;
            background: $background; scrollbar-size-vertical: 1;
        }
        & #plan { margin: 0; padding: 0; background: $background; }
        & #plan > *:first-child { margin-top: 0; }
        & #plan > *:last-child { margin-bottom: 0; }
        & > #bottom { dock: bottom; height: auto; }
        & #choices { margin-top: 1; }
        & #feedback { display: none; margin-top: 1; }
        &.-feedback #feedback { display: block; }
        & #hint { color: $text-muted; margin-top: 1; }
    }
    """

    BINDINGS = [
        Binding("y", "answer('default')", "Approve", id="plan.approve"),
        Binding("a", "answer('accept-edits')", "Approve, accept edits", id="plan.accept"),
        Binding("n", "answer('keep')", "Keep planning", id="plan.keep"),
        Binding(
            "f",
            "answer('feedback')",
            "Keep planning, with feedback",
            id="plan.feedback",
            priority=True,
        ),
        Binding("escape", "escape", "Keep planning", show=False, id="plan.escape"),
        Binding("shift+tab", "nothing", show=False, id="plan.mode"),
        *scroll_bindings("plan"),
    ]

    def __init__(self, plan: str, *, cursor_blink: bool = True) -> None:
        super().__init__(cursor_blink=cursor_blink)
        self.plan = plan
        self.answered = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = TITLE
            yield Static(
                Content.assemble(
                    ("The agent finished planning in ", "$foreground-muted"),
                    ("plan mode", "bold"),
                    (": nothing has changed yet. Approve to let it carry this out.", ""),
                ),
                id="intro",
            )
            with VerticalScroll(id="details", can_focus=False):
                yield Markdown(self.plan, id="plan")
            with Vertical(id="bottom"):
                yield ApprovalChoices(self._choices(), id="choices")
                yield self.feedback_field("What should change in the plan?  (Enter)")
                yield Static(HINT, id="hint")

    @staticmethod
    def _choices() -> list[Row]:
        return [
            Answer(
                "default",
                _label("y", "$success", "Approve", "  default mode: edits and commands ask"),
            ),
            Answer(
                "accept-edits",
                _label(
                    "a",
                    "$primary",
                    "Approve, accept edits",
                    "  accept-edits mode: edits run, commands ask",
                ),
            ),
            Answer("feedback", _label("f", "$warning", "Keep planning, with feedback…")),
            Answer("keep", _label("n", "$error", "Keep planning", "  the mode stays plan")),
        ]

    def _above_details(self) -> list[Widget]:
        return [self.query_one("#intro")]

    def _hint(self) -> str:
        return HINT

    # -- answers ---------------------------------------------------------------------------

    def finish(self, verdict: PlanVerdict) -> None:
        """Close with ``verdict``, once: later answers (a burst of keys) do nothing."""
        if self.answered:
            return
        self.answered = True
        self.dismiss(verdict)

    def action_answer(self, choice: str) -> None:
        if not self.armed or self.answered:
            return
        if choice in ("default", "accept-edits"):
            self.finish(PlanVerdict(approved=True, mode=choice))
        elif choice != "feedback" or not self.open_feedback(FEEDBACK_HINT):
            self.finish(PlanVerdict(approved=False))

    def action_escape(self) -> None:
        """Esc: out of the feedback field, back to the choices (what was typed is kept for
        another f); on the choices, keep planning without feedback."""
        if not self.close_feedback():
            self.action_answer("keep")

    def action_nothing(self) -> None:
        """Shift+Tab: the answer chooses the mode; the app's mode cycle stays out of it."""

    @on(Input.Submitted, "#feedback")
    def _feedback(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed:
            self.finish(PlanVerdict(approved=False, feedback=event.value.strip()))
