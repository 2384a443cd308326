"""A yes/no question answered by one key (the bypass confirmation, the trust prompt).

A one-key question takes one key, and nothing typed around it is lost:

- it is *armed* only once the keyboard has been quiet for ``ARM_SECONDS`` after it opened:
  keys typed before that (someone typing when the question appeared) go on into the prompt
  beneath, in order, and each one restarts the wait;
- armed, the first key answers (``YES_KEY`` yes, any other no) and closes the question at
  once; the keys after it, even when they arrived in the same burst, go to the prompt;
- a key that does not type (Esc, Shift+Tab, an arrow up) answers no at once, armed or not:
  it is meant for the question; the app's priority keys (Ctrl+C, Ctrl+Q) work as always;
- a paste never answers: its text goes to the prompt.

The app routes keys to it synchronously (``route_key``), before Textual queues them for the
screen: a screen's own key handler only sees a burst after every key of it was queued for that
screen, and a second answer would pop a screen that is no longer there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.binding import Binding
from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

TYPING_KEYS = frozenset(
    {"enter", "backspace", "delete", "space", "left", "right", "home", "end", "tab"}
)
"""Keys that edit the prompt, beside the printable ones: typed before the question is armed,
they go into the prompt."""


class KeyQuestion(ModalScreen[bool]):
    YES_KEY: ClassVar[str] = "y"
    ARM_SECONDS: ClassVar[float] = 0.25
    """How long the keyboard must be quiet after the question opens before a key answers it."""
    AUTO_FOCUS = None

    def __init__(self) -> None:
        super().__init__()
        self.armed = False
        self.answered = False
        self.answer_key: str | None = None
        """The key that answered (for the notice that says what happened)."""
        self._arm_timer: Timer | None = None

    def on_mount(self) -> None:
        self._arm_timer = self.set_timer(self.ARM_SECONDS, self._arm)

    def _arm(self) -> None:
        self.armed = True

    def typed_early(self) -> None:
        """A key went to the prompt before the question was armed: wait for quiet again."""
        if self._arm_timer is not None:
            self._arm_timer.reset()

    def answer(self, key: str) -> None:
        """Answer with ``key`` (once; later calls do nothing) and close the question."""
        if self.answered:
            return
        self.answered = True
        self.answer_key = key
        self.dismiss(key == self.YES_KEY)

    def on_key(self, event: events.Key) -> None:
        """Keys that reach the screen itself (``route_key`` takes them first in the app)."""
        event.stop()
        event.prevent_default()
        if self.armed or not _typing(event):
            self.answer(event.key)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.answer("click")


def pressed_key(question: KeyQuestion) -> str:
    """What answered ``question``, for a notice: ``you pressed n``, ``a click``, or empty."""
    key = question.answer_key
    if key is None:
        return ""
    if key == "click":
        return "a click outside the question"
    return f"you pressed {key}"


def _priority_keys(app: App[Any]) -> set[str]:
    return {
        key.strip()
        for binding in app.BINDINGS
        if isinstance(binding, Binding) and binding.priority
        for key in binding.key.split(",")
    }


def _typing(event: events.Key) -> bool:
    return event.is_printable or event.key in TYPING_KEYS


def route_key(
    app: App[Any], event: events.Key | events.Paste, prompt_screen: Screen[Any] | None
) -> bool:
    """Route ``event`` when a one-key question is the active screen: True when it was taken
    (answered the question, or went to ``prompt_screen``'s focused widget beneath it), False
    when Textual should route it as usual (no question open, a binding key such as Ctrl+C).

    Keys go beneath only to ``prompt_screen`` (the main screen with the prompt), never to
    another dialog: typed keys must not answer a permission prompt under the question."""
    question = app.screen
    if not isinstance(question, KeyQuestion) or event.is_forwarded:
        return False
    if isinstance(event, events.Key):
        if event.key in _priority_keys(app):
            return False  # the app's own (Ctrl+C, Ctrl+Q): as with any screen open
        if question.armed or not _typing(event):
            question.answer(event.key)  # Esc, Shift+Tab…: deliberate, they answer at once
            return True
        question.typed_early()
    stack = app.screen_stack
    below = stack[-2] if len(stack) >= 2 else None
    if below is None or below is not prompt_screen:
        return True  # nowhere safe to type: dropped, as before the question was armed
    target = below.focused or below
    target._forward_event(event)  # Textual's own routing of an input event
    return True
