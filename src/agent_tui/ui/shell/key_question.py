"""A yes/no question answered by one key, which ignores that key for a moment after it opens:
a keystroke meant for the prompt must not answer it (the bypass confirmation, the trust
prompt). Any other key, or a click, answers no."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.screen import ModalScreen


class KeyQuestion(ModalScreen[bool]):
    YES_KEY: ClassVar[str] = "y"
    ARM_SECONDS: ClassVar[float] = 0.25
    """The yes key pressed sooner than this after the question opens is ignored."""
    AUTO_FOCUS = None

    def __init__(self) -> None:
        super().__init__()
        self.armed = False

    def on_mount(self) -> None:
        self.set_timer(self.ARM_SECONDS, self._arm)

    def _arm(self) -> None:
        self.armed = True

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if event.key == self.YES_KEY and not self.armed:
            return
        self.dismiss(event.key == self.YES_KEY)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.dismiss(False)
