"""A one-line prompt at the bottom of the viewer, vim style: ``/`` and ``?`` for a search,
``g`` for a line number, ``w`` for the window size. Enter answers, Esc dismisses."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static


class LinePrompt(Horizontal):
    DEFAULT_CSS = """
    LinePrompt {
        display: none;
        height: 1;
        background: $surface;
        &.-open { display: block; }
        & > #prompt-label { width: auto; height: 1; padding: 0 0 0 1; color: $text-accent; }
        & > Input {
            width: 1fr; height: 1; border: none; padding: 0 1; background: $surface;
        }
    }
    """

    BINDINGS = [Binding("escape", "dismiss", "Cancel", show=False)]

    class Answered(Message):
        def __init__(self, kind: str, value: str) -> None:
            super().__init__()
            self.kind = kind
            self.value = value

    def __init__(self, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.kind = ""
        self.cursor_blink = cursor_blink
        self._back_to: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="prompt-label", markup=False)
        yield Input(id="prompt-input", compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = self.cursor_blink

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def ask(
        self, kind: str, label: str, value: str = "", placeholder: str = "", *, back_to: Widget
    ) -> None:
        """Open for ``kind``; focus goes back to ``back_to`` when it closes. Focus moves at
        once (not on the next loop turn), so keys typed right after ``/`` land here."""
        self.kind = kind
        self._back_to = back_to
        self.query_one("#prompt-label", Static).update(label)
        field = self.query_one(Input)
        field.value = value
        field.placeholder = placeholder
        self.add_class("-open")
        self.screen.set_focus(field)

    def close(self) -> None:
        self.remove_class("-open")
        self.kind = ""
        if self._back_to is not None and self.screen.focused is self.query_one(Input):
            self.screen.set_focus(self._back_to)

    def action_dismiss(self) -> None:
        self.close()
        self.post_message(self.Answered("", ""))

    @on(Input.Submitted, "#prompt-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        kind = self.kind
        self.close()
        self.post_message(self.Answered(kind, event.value))
