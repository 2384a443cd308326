"""The prompt of the first frame: one ``Static`` that looks as the empty, focused
``PromptInput`` does (its border, its placeholder, the cursor on the placeholder's first
character), in place of the ``TextArea`` until the frame after.

A ``TextArea`` is the costliest widget of the shell to import and to style (``prompt_input``
and what it imports, its long ``DEFAULT_CSS``, its component classes, its focus restyle); the
shell paints this instead, and imports and mounts the real prompt right after the first frame
(``ShellScreen.swap_prompt``). The stand-in has the focus meanwhile: the keys and pastes it
gets are kept, in order, and handed to the real prompt (``hand_over``), where they do what
they would have done there (text inserted, Backspace deletes, Enter sends), one after the
other: an Enter's message is taken by the app before what was typed after it goes in (else
its ``commit`` would clear it). The prompt takes the focus then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events
from textual.content import Content
from textual.style import Style as ContentStyle
from textual.widgets import Static

from agent_tui.ui.shell.prompt_keys import NEWLINE_KEYS, PLACEHOLDER

if TYPE_CHECKING:  # imported with the real prompt, after the first frame
    from agent_tui.ui.shell.prompt_input import PromptInput

Typed = events.Key | events.Paste


class PromptStandIn(Static, can_focus=True):
    # PromptInput's looks (and TextArea's beneath them, and app.tcss's ``#prompt`` margin)
    DEFAULT_CSS = """
    PromptStandIn {
        width: 1fr;
        height: 3;  /* an empty TextArea is one line high, its placeholder cut to it */
        margin: 0 1;
        border: round $primary 50%;
        background: $surface;
        color: $foreground;
        padding: 0 1;
        &:focus { border: round $primary; }
        & .prompt-stand-in--cursor { text-style: $input-cursor-text-style; }
        & .prompt-stand-in--placeholder { color: $text 40%; }
        &:ansi .prompt-stand-in--cursor {
            color: $input-cursor-foreground;
            background: $input-cursor-background;
            text-style: reverse;
        }
        &:dark .prompt-stand-in--cursor {
            color: $input-cursor-foreground;
            background: $input-cursor-background;
        }
        &:light .prompt-stand-in--cursor { color: $text 90%; background: $foreground 70%; }
    }
    """
    COMPONENT_CLASSES = {"prompt-stand-in--cursor", "prompt-stand-in--placeholder"}

    def __init__(self) -> None:
        super().__init__(id="prompt-stand-in")
        self._typed: list[Typed] = []
        self._target: PromptInput | None = None
        self._then: Callable[[], object] | None = None
        self.handed = False
        """Everything typed here went to the prompt, and the focus with it."""

    def render(self) -> Content:
        """The placeholder, the cursor on its first character (as ``TextArea`` draws it)."""
        content = Content(PLACEHOLDER).stylize(
            self.get_visual_style("prompt-stand-in--placeholder")
        )
        if self.has_focus:
            cursor = self.get_component_rich_style("prompt-stand-in--cursor")
            content = content.stylize(ContentStyle.from_rich_style(cursor), 0, 1)
        return content

    @property
    def typed(self) -> list[Typed]:
        """What was typed here, in order (not yet handed over)."""
        return list(self._typed)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self._keep(events.Key(event.key, event.character))

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        self._keep(events.Paste(event.text))

    def _keep(self, event: Typed) -> None:
        self._typed.append(event)
        if self.handed:  # queued here before the focus moved: it follows
            self._replay()

    def hand_over(self, prompt: PromptInput, then: Callable[[], object]) -> None:
        """Give what was typed here to ``prompt`` in order, then call ``then`` (the prompt is
        shown and takes the focus there). Until then the stand-in keeps the focus and what
        is typed meanwhile goes after the rest."""
        self._target, self._then = prompt, then
        self._replay()

    def _replay(self) -> None:
        prompt = self._target
        assert prompt is not None
        while self._typed:
            if _apply(prompt, self._typed.pop(0)):  # a message sent: the rest once the app
                self.app.call_later(self._replay)  # took it (its ``commit`` clears the box)
                return
        if not self.handed and self._then is not None:
            self.handed = True
            self._then()


def _apply(prompt: PromptInput, event: Typed) -> bool:
    """Do to ``prompt`` what ``event`` does there when typed: text is inserted, Backspace
    deletes, Enter sends (True: a message was sent). Other keys go to it as Textual routes a
    key (they do nothing in the shell: its bindings wait for the core)."""
    if isinstance(event, events.Paste):
        prompt.insert(event.text)
    elif event.key == "enter":
        text = prompt.text.strip()
        if text:
            prompt.app.post_message(type(prompt).Submitted(prompt, text, (), prompt.text))
            return True
        prompt.action_submit()
    elif event.key in NEWLINE_KEYS:
        prompt.insert("\n")
    elif event.key == "backspace":
        prompt.action_delete_left()
    elif event.is_printable and event.character:
        prompt.insert(event.character)
    else:
        prompt.post_message(event)
    return False
