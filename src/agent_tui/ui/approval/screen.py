"""The permission prompt: allow once (y), always allow (a — the exact rule it saves is shown),
allow for this session (s — the same rule, in memory only), deny (n / Esc), or deny with
feedback for the model (f: type it, Enter denies with it; Esc goes back to the choices, where a
second Esc denies as usual). Shift+Tab switches the permission mode as on the main screen.

A modal over the main screen that shows what the call will do — the full command, an edit as
a diff against the file, a write's path and size, an MCP tool's server, tool and arguments —
and why it asks. Its keys are ignored for a moment after it opens, so a keystroke meant for the
prompt box cannot answer it by accident.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Static

from agent_tui.core.permissions import Approval, Scope
from agent_tui.core.sandbox import Shelter
from agent_tui.ui.approval.answer_dialog import SCROLL_HINT, AnswerDialog, scroll_bindings
from agent_tui.ui.approval.choices import Answer, ApprovalChoices, Note, Row
from agent_tui.ui.calls.details import describe_call
from agent_tui.ui.common.format import mcp_parts
from agent_tui.ui.common.styled_once import StyledOnce


@dataclass
class Ask:
    """Everything the prompt shows about one call that waits for approval."""

    tool: str
    input: dict[str, Any]
    reason: str = ""
    always: str | None = None
    """The rule(s) "always allow" saves and "allow for this session" remembers (default: the
    tool's name)."""
    no_always: str | None = None
    """Why neither "always allow" nor "allow for this session" is offered (an opaque command,
    a protected file…): no rule can allow the call."""
    every_mode: bool = False
    """No permission mode would run this call without asking."""
    saves_to: str | None = None
    """Where "always allow" writes the rule, when it is written to a file."""
    cwd: Path | None = None
    """The workspace: edits and writes are previewed against its files."""
    shelter: Shelter | None = None
    """How a shell command will run: in the OS sandbox (with or without network) or not."""
    caveats: tuple[str, ...] = ()
    """What to know before allowing it, beside the permission (a write that cannot be
    rewound): a warning line each, under the reason."""


FEEDBACK_HINT = "Enter denies with this feedback · esc goes back to the choices"


def _label(
    key: str, style: str, text: str, detail: str = "", detail_style: str = "bold"
) -> Content:
    return Content.assemble(
        (f" {key} ", f"bold {style} reverse"), "  ", text, (detail, detail_style)
    )


class ApprovalScreen(StyledOnce, AnswerDialog[Approval]):
    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        background: $background 60%;
    }
    ApprovalScreen > #dialog {
        width: 90;
        max-width: 96%;
        height: auto;
        max-height: 100%;
        padding: 0 1;
        background: $surface;
        border: round $warning;
        border-title-color: $warning;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
        & > #reason { color: $text-muted; margin-bottom: 1; }
        &.-shelter > #reason { margin-bottom: 0; }
        & > #shelter { color: $text-success; margin-bottom: 1; }
        & > #shelter.-outside { color: $text-warning; }
        & > .caveat { color: $text-warning; text-style: bold; }
        & > .caveat.-last { margin-bottom: 1; }
        & > #details {
            height: auto; max-height: 100%; padding: 0 1;
            background: $background; scrollbar-size-vertical: 1;
        }
        & > #bottom { dock: bottom; height: auto; }
        & #choices { margin-top: 1; }
        & #feedback { display: none; margin-top: 1; }
        &.-feedback #feedback { display: block; }
        & #hint { color: $text-muted; margin-top: 1; }
    }
    """

    BINDINGS = [
        Binding("y", "answer('allow')", "Allow once", id="approval.allow"),
        Binding("a", "answer('always')", "Always allow", id="approval.always"),
        Binding("s", "answer('session')", "Allow for this session", id="approval.session"),
        Binding("n", "answer('deny')", "Deny", id="approval.deny"),
        # a priority binding: read when the key arrives, before the keys after it are routed,
        # so the field has focus for them (typed fast, "fsy" is feedback, not two answers)
        Binding(
            "f",
            "answer('feedback')",
            "Deny with feedback",
            id="approval.feedback",
            priority=True,
        ),
        Binding("shift+tab", "cycle_mode", "Mode", show=False, id="approval.mode"),
        Binding("escape", "escape", "Deny", show=False, id="approval.escape"),
        *scroll_bindings("approval"),
    ]

    def __init__(self, ask: Ask, *, waiting: int = 0, cursor_blink: bool = True) -> None:
        super().__init__(cursor_blink=cursor_blink)
        self.ask = ask
        self.always = ask.always or ask.tool
        """What "always allow" allows: the rule it will save."""
        self.waiting = waiting
        self._withdrawn = False

    def _reason(self, why: str, mode: str | None = None) -> Content:
        why = why or "this tool needs your approval"
        if mode is None:
            return Content.assemble(("asks because ", "$foreground-muted"), (why, "italic"))
        return Content.assemble(
            ("still asks in ", "$foreground-muted"),
            (f"{mode} mode", "bold"),
            (" because ", "$foreground-muted"),
            (why, "italic"),
        )

    @staticmethod
    def _shelter(shelter: Shelter) -> Static:
        if shelter.sandboxed:
            return Static(f"⛉ runs {shelter.label}", id="shelter")
        why = f": {shelter.why_not}" if shelter.why_not else ""
        return Static(f"⚠ runs outside the sandbox{why}", id="shelter", classes="-outside")

    def _title(self) -> str:
        parts = mcp_parts(self.ask.tool)
        if parts is not None:
            return f"Allow {parts[1]} from the MCP server {parts[0]}?"
        return f"Allow {self.ask.tool}?"

    def compose(self) -> ComposeResult:
        ask = self.ask
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self._title()
            yield Static(self._reason(ask.reason), id="reason")
            if ask.shelter is not None:
                dialog.add_class("-shelter")
                yield self._shelter(ask.shelter)
            for number, caveat in enumerate(ask.caveats, start=1):
                dialog.add_class("-shelter")  # the reason's margin goes below the caveats
                last = " -last" if number == len(ask.caveats) else ""
                yield Static(Content(f"⚠ {caveat}"), classes=f"caveat{last}")
            with VerticalScroll(id="details", can_focus=False):
                yield Static(describe_call(ask.tool, ask.input, cwd=ask.cwd))
            with Vertical(id="bottom"):  # docked: always on screen, the details scroll
                yield ApprovalChoices(self._choices(), id="choices")
                yield self.feedback_field("Tell the agent what to do instead…  (Enter)")
                yield Static(self._hint(), id="hint")

    def _choices(self) -> list[Row]:
        rows: list[Row] = [Answer("allow", _label("y", "$success", "Allow once"))]
        if self.ask.no_always is None:
            rows.append(Answer("always", _label("a", "$primary", "Always allow  ", self.always)))
            rows.append(
                Answer(
                    "session",
                    _label(
                        "s",
                        "$primary",
                        "Allow for this session  ",
                        "the same, not saved" if self.ask.saves_to else "",
                        "$foreground-muted",
                    ),
                )
            )
        else:
            rows.append(
                Note(
                    Content.assemble(
                        (" a ", "$foreground-muted reverse"),
                        (" s ", "$foreground-muted reverse"),
                        ("  Always / for this session is not offered:", "$foreground-muted"),
                        "\n        ",
                        (self.ask.no_always, "$foreground-muted italic"),
                    )
                )
            )
        rows.append(Answer("deny", _label("n", "$error", "Deny")))
        rows.append(Answer("feedback", _label("f", "$warning", "Deny with feedback…")))
        return rows

    def _hint(self) -> Content:
        every = "asks in every mode · " if self.ask.every_mode else ""
        if self.ask.no_always is not None:
            return Content.assemble(every, "y allows this once · n or esc denies")
        if self.ask.saves_to is None:  # nothing is saved: a and s both last the session
            return Content.assemble(
                every,
                "a or s allows ",
                (self.always, "bold"),
                " for this session",
                " · n or esc denies",
            )
        return Content.assemble(
            every,
            "a saves ",
            (self.always, "bold"),
            f" to {self.ask.saves_to}",
            " · s: this session only · n or esc denies",
        )

    def _mounted(self) -> None:
        self.set_waiting(self.waiting)

    def on_screen_resume(self) -> None:
        if self._withdrawn and self.app.screen is self:  # settled while a dialog covered it
            self.app.pop_screen()

    def withdraw(self) -> None:
        """Close without an answer (the ask was settled otherwise): now if this prompt is
        on top, else as soon as it is again (a dialog was opened over it)."""
        if not self.is_attached:
            return
        if self.app.screen is self:
            self.app.pop_screen()
        else:
            self._withdrawn = True

    def still_asks(self, mode: str, reason: str) -> None:
        """The permission mode changed to ``mode`` and this call still asks, for ``reason``."""
        self.query_one("#reason", Static).update(self._reason(reason, mode))
        self.refit()

    def _above_details(self) -> list[Widget]:
        return [self.query_one("#reason"), *self.query("#shelter"), *self.query(".caveat")]

    def _scrolls_changed(self) -> None:
        self.set_waiting(self.waiting)

    def set_waiting(self, count: int) -> None:
        """How many more asks wait behind this one (shown on the frame, with the scroll keys
        when the details scroll)."""
        self.waiting = count
        parts = [SCROLL_HINT] if self.scrolls else []
        if count:
            parts.append(f"{count} more waiting")
        for dialog in self.query("#dialog"):  # none before the prompt is composed
            dialog.border_subtitle = " · ".join(parts)

    # -- answers ---------------------------------------------------------------------------

    def action_answer(self, choice: str) -> None:
        if not self.armed:
            return
        if choice == "allow":
            self.dismiss(Approval(allowed=True))
        elif choice in ("always", "session"):
            if self.ask.no_always is not None:  # said in the dialog itself, not in a toast
                what = "always allow" if choice == "always" else "allow for this session"
                self.query_one("#hint", Static).update(
                    Content.assemble(
                        (f"{what} is not offered for this call", "bold $warning"),
                        " · y allows it once · n or esc denies",
                    )
                )
                self.refit()
                return
            scope = Scope.ALWAYS if choice == "always" else Scope.SESSION
            self.dismiss(Approval(allowed=True, scope=scope))
        elif choice != "feedback" or not self.open_feedback(FEEDBACK_HINT):
            dialog = self.query_one("#dialog")
            feedback = self.query_one("#feedback", Input)
            text = feedback.value.strip() if dialog.has_class("-feedback") else ""
            self.dismiss(Approval(allowed=False, feedback=text or None))

    async def action_cycle_mode(self) -> None:
        """Shift+Tab: the next permission mode, as on the main screen (the executor then
        judges this call again: it may now run, or be refused, without an answer)."""
        if self.armed:
            await self.run_action("app.cycle_mode")

    def action_escape(self) -> None:
        """Esc: out of the feedback field, back to the choices (what was typed is kept for
        another f); on the choices, deny."""
        if not self.close_feedback():
            self.action_answer("deny")

    @on(Input.Submitted, "#feedback")
    def _feedback(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed:
            self.dismiss(Approval(allowed=False, feedback=event.value.strip() or None))
