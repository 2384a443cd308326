"""The model's plan, pinned above the tool lane: every step with its state, or one line.

Hidden until the model makes a plan (a ``plan`` event: live, or replayed on resume, so a
resumed session shows the same panel). A plan longer than ``MAX_ROWS`` steps, or a short or
narrow terminal (the screen's ``-short``/``-narrow`` classes), shows one line —
``☰ plan 3/7 · ▶ current step`` — and a click opens the full list (and closes it again).
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from agent_tui.core.events import PlanEvent
from agent_tui.ui.calls.plan_view import compact_line, count_label, steps_content

MAX_ROWS = 6
"""Steps shown in full; a longer plan shows its one line until clicked."""


class PlanPanel(Vertical):
    DEFAULT_CSS = """
    PlanPanel {
        height: auto;
        max-height: 50%;
        padding: 0 1;
        border: round $accent 40%;
        border-title-color: $text-accent;
        background: $background;
        display: block;
        &.-empty { display: none; }
        & > .compact { display: none; }
        & > .steps { height: auto; max-height: 14; overflow-y: auto; }
        &.-long > .compact { display: block; }
        &.-long > .steps { display: none; }
        &.-long.-open > .steps { display: block; }
        &.-long.-open > .compact { display: none; }
    }
    MainScreen.-narrow PlanPanel, MainScreen.-short PlanPanel {
        border: none;  /* the one line says it all: no title above it */
        padding: 0 2;
        & > .compact { display: block; }
        & > .steps { display: none; }
        &.-open > .steps { display: block; max-height: 6; }
        &.-open > .compact { display: none; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-empty")
        self.plan: PlanEvent | None = None
        self.border_title = "plan"

    def compose(self) -> ComposeResult:
        yield Static(classes="compact")
        yield Static(classes="steps")

    def show(self, event: PlanEvent) -> None:
        """The plan is now ``event``'s (an empty plan hides the panel)."""
        self.plan = event
        steps = event.steps
        self.set_class(not steps, "-empty")
        self.set_class(len(steps) > MAX_ROWS, "-long")
        self.border_title = count_label(steps)
        self.query_one(".compact", Static).update(compact_line(steps))
        body = steps_content(steps)
        if event.explanation:
            body = Content("\n").join([body, Content.styled(event.explanation, "italic dim")])
        self.query_one(".steps", Static).update(body)

    def clear(self) -> None:
        """No plan (a new conversation, before a resumed one is shown)."""
        self.plan = None
        self.set_class(True, "-empty")
        self.remove_class("-open", "-long")

    @property
    def compact(self) -> bool:
        """Only the one line is shown."""
        return not self.query_one(".steps", Static).display

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle_class("-open")
