"""What the permission prompt and the plan review share: a modal that shows details above a
docked set of choices and answers a key, careful with keys.

Its keys are ignored for ``ARM_SECONDS`` after it opens (a keystroke meant for the prompt box
cannot answer it); ``f`` opens a feedback field (a priority binding in the subclass, so the
keys typed right after it land in the field, where ``f`` is then a letter); Esc in the field
goes back to the choices. The details (``#details``) get the rows the rest of the dialog
leaves, and scroll with ↑↓ PgUp PgDn Home End while the choices stay in view. A subclass
composes ``#dialog`` holding its parts above ``#details``, and ``#bottom`` with
``#choices`` (``ApprovalChoices``), ``#feedback`` (``Input``) and ``#hint``.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from textual import on
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.css.scalar import Scalar
from textual.lazy import Lazy
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Static

from agent_tui.ui.approval.choices import ApprovalChoices

T = TypeVar("T")

SCROLL_HINT = "↑↓ pgup pgdn home end scroll"


def scroll_bindings(prefix: str) -> list[Binding]:
    """The keys that scroll the details, with ids under ``prefix`` (``approval.page_up``)."""
    keys = {
        "pageup": ("page_up", "page_up"),
        "pagedown": ("page_down", "page_down"),
        "up": ("up", "line_up"),
        "down": ("down", "line_down"),
        "home": ("home", "top"),
        "end": ("end", "bottom"),
    }
    return [
        Binding(key, f"scroll_details('{how}')", show=False, id=f"{prefix}.{name}")
        for key, (how, name) in keys.items()
    ]


class AnswerDialog(ModalScreen[T], Generic[T]):
    AUTO_FOCUS = ""
    """Nothing has focus: the screen's keys answer (the feedback field takes it on f)."""
    ARM_SECONDS = 0.25
    """Keys pressed sooner than this after the dialog opens are ignored."""
    MIN_DETAILS = 3
    """The details keep at least this many rows on a tiny screen."""

    def __init__(self, *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.cursor_blink = cursor_blink
        self.armed = False
        self.scrolls = False
        """The details are taller than the rows they have."""

    # -- what a subclass says ----------------------------------------------------------------

    def _above_details(self) -> list[Widget]:
        """The parts of the dialog above the details (their rows are taken first)."""
        return []

    def _hint(self) -> Content | str:
        """The hint below the choices."""
        return ""

    def _scrolls_changed(self) -> None:
        """The details began or stopped scrolling (``scrolls``): say so on the frame."""
        self.query_one("#dialog").border_subtitle = SCROLL_HINT if self.scrolls else ""

    def _mounted(self) -> None:
        """What the subclass does once mounted."""

    # -- the common part -------------------------------------------------------------------

    def feedback_field(self, placeholder: str) -> Lazy:
        """The feedback field (``#feedback``), hidden until f: mounted after the dialog's first
        frame, which does not show it (the dialog arms once it is there)."""
        field = Input(placeholder=placeholder, id="feedback")
        field.cursor_blink = self.cursor_blink
        return Lazy(field)

    def on_mount(self) -> None:
        self._mounted()
        self.set_timer(self.ARM_SECONDS, self._arm)
        self.refit()

    def on_resize(self) -> None:
        self.refit()

    def _arm(self) -> None:
        if not self.query("#feedback"):  # not mounted yet (a busy loop): f needs it
            self.call_after_refresh(self._arm)
            return
        self.armed = True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "answer" and parameters == ("feedback",):
            # in the field, f is a letter of the feedback
            return not self.query_one("#dialog").has_class("-feedback")
        return True

    def refit(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Give the details the rows the rest of the dialog leaves on this screen: the choices
        and the hint (docked at the bottom) always stay in view, and long details scroll in
        their own region instead of pushing them off the screen."""
        if not self.is_attached:
            return
        dialog = self.query_one("#dialog")
        details = self.query_one("#details", VerticalScroll)
        taken = dialog.styles.gutter.height + details.styles.margin.height
        for part in (*self._above_details(), self.query_one("#bottom")):
            taken += part.outer_size.height + part.styles.margin.height
        rows = max(self.MIN_DETAILS, self.size.height - taken)
        if details.styles.max_height != Scalar.from_number(rows):
            details.styles.max_height = rows
        scrolls = details.virtual_size.height > rows
        if scrolls != self.scrolls:
            self.scrolls = scrolls
            self._scrolls_changed()

    def open_feedback(self, hint: str) -> bool:
        """Show the feedback field and give it the focus (now, not after a refresh: the next
        key is routed to it); False when it is open already."""
        dialog = self.query_one("#dialog")
        if dialog.has_class("-feedback"):
            return False
        dialog.add_class("-feedback")
        self.query_one("#hint", Static).update(hint)
        self.set_focus(self.query_one("#feedback", Input))
        self.refit()
        return True

    def close_feedback(self) -> bool:
        """Esc in the feedback field: back to the choices (what was typed is kept for another
        f); False when the field was not open."""
        dialog = self.query_one("#dialog")
        if not dialog.has_class("-feedback"):
            return False
        dialog.remove_class("-feedback")
        self.set_focus(None)
        self.query_one("#hint", Static).update(self._hint())
        self.refit()
        return True

    def action_answer(self, choice: str) -> None:
        raise NotImplementedError

    def action_scroll_details(self, how: str) -> None:
        """Scroll the details (the choices stay where they are): ``up``, ``down``,
        ``page_up``, ``page_down``, ``home`` or ``end``."""
        details = self.query_one("#details", VerticalScroll)
        moves = {
            "up": details.scroll_up,
            "down": details.scroll_down,
            "page_up": details.scroll_page_up,
            "page_down": details.scroll_page_down,
            "home": details.scroll_home,
            "end": details.scroll_end,
        }
        moves[how](animate=False)

    @on(ApprovalChoices.Picked)
    def _picked(self, event: ApprovalChoices.Picked) -> None:
        self.action_answer(event.choice)
