"""A one-line prompt at the bottom of the viewer, vim style: ``/`` and ``?`` for a search,
``g`` for a line number, ``w`` for the window size. Enter answers, Esc dismisses."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static


class PromptField(Input):
    """The prompt's input. Keys that reach it after Enter or Esc — a paste, or typing faster
    than the app handles the answer — are held and sent on once the prompt has closed, so
    they act on the browser as if typed after it closed (``/odd⏎g12⏎`` searches, then goes
    to line 12), never appended to the answer.

    Enter and Esc act through bindings, which Textual checks when the key has bubbled up to
    the app — after this input has taken the keys queued behind them. So the input marks
    itself answered as soon as it sees Enter or Esc, and holds what follows."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self.answered = False
        """Enter or Esc was pressed: the prompt is closing."""
        self._held: list[events.Key] = []

    async def _on_key(self, event: events.Key) -> None:
        prompt = self.parent
        closed = isinstance(prompt, LinePrompt) and not prompt.is_open
        if self.answered or closed:
            event.stop()
            event.prevent_default()  # not typed here (Input's own handler is skipped)
            self._held.append(event)
            if closed and not self.answered:
                self.release()
        elif event.key in ("enter", "escape"):
            self.answered = True  # the binding runs once the key reaches the app

    def open(self) -> None:
        self.answered = False
        self._held.clear()

    def release(self) -> None:
        """Send the held keys on to the app (the prompt has closed), in their order."""
        self.answered = False
        held, self._held = self._held, []
        for key in held:
            again = events.Key(key.key, key.character)
            again.set_sender(self.app)  # as from the terminal: it bubbles back up to the app
            self.app.post_message(again)


class LinePrompt(Horizontal):
    DEFAULT_CSS = """
    LinePrompt {
        display: none;
        height: 1;
        background: $surface;
        &.-open { display: block; }
        & > #prompt-label { width: auto; height: 1; padding: 0 0 0 1; color: $text-accent; }
        & > #prompt-label.-worded { padding: 0 1; }
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
        yield PromptField(id="prompt-input")

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
        # a question in words ("Go to line (1–4,000):") stands apart from the answer; the
        # vim-style "/" and "?" run into it
        shown = self.query_one("#prompt-label", Static)
        shown.update(label)
        shown.set_class(label.endswith(":"), "-worded")
        field = self.query_one(PromptField)
        field.open()
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
        self.query_one(PromptField).release()

    @on(Input.Submitted, "#prompt-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        kind = self.kind
        self.close()
        self.post_message(self.Answered(kind, event.value))
        self.query_one(PromptField).release()  # after the answer: keys typed after Enter
