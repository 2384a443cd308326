"""The prompt box: a multi-line TextArea where Enter sends and up/down walk the history.

It owns the completion menu (``menu``, composed by the screen just above the box): on every
edit or cursor move it asks its completers (``core.text.completion``) in turn, and the first that
answers fills the menu. While the menu is open, Up/Down move in it, Tab inserts the
highlighted completion, Enter inserts it too, or sends when the command is already complete,
and Esc closes it (without interrupting the turn) until the text changes.

It owns the tray of images waiting to go with the message (``tray``, ``image_tray``): a paste
that is only paths to image files attaches them, Ctrl+V attaches the clipboard's image (or,
without one, pastes what was copied in the app), Backspace at the very start takes the last
one off. ``Submitted`` carries them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import TextArea

from agent_tui.core.text.completion import Completer, Completions
from agent_tui.ui.shell.completion_menu import CompletionMenu
from agent_tui.ui.shell.external_editor import CHORD_HINT, EditorChord, edit_externally
from agent_tui.ui.shell.image_tray import ImageTray, clipboard_image, images_in_paste

if TYPE_CHECKING:  # the core's images load with the first image (the shell paints without them)
    from agent_tui.core.attachments import PreparedImage

from agent_tui.ui.shell.prompt_keys import NEWLINE_KEYS, PLACEHOLDER

__all__ = ["NEWLINE_KEYS", "PLACEHOLDER", "PromptInput"]


class PromptInput(TextArea):
    """Enter posts ``Submitted``; ctrl+j / shift+enter insert a newline.

    Up on the first visual line recalls the previous prompt, down on the last line the next
    one (and finally the draft you were typing). The app decides whether a submission is
    accepted and then calls ``commit`` to clear the box and remember the prompt.

    Ctrl+X Ctrl+E opens the text in ``$VISUAL`` / ``$EDITOR`` (``external_editor``) and puts
    the saved text back.

    Two hooks, set by the screen: ``up_from_empty`` is asked first when ↑ is pressed in an
    empty box (True: it took the key — the queued messages took the focus), and
    ``empty_submit`` is called on Enter in an empty box (send the next queued message).
    """

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 50%;
        background: $surface;
        padding: 0 1;
        &:focus { border: round $primary; }
        &.-busy {
            border: round $foreground 25%;
            color: $text-muted;
            &:focus { border: round $foreground 40%; }
        }
        & .text-area--cursor-line { background: transparent; }
    }
    """

    BINDINGS = [
        Binding("enter", "submit", "Send", id="prompt.submit"),
    ]

    busy: reactive[bool] = reactive(False)
    """A turn is running: the box looks disabled but stays typeable."""

    @dataclass
    class Submitted(Message):
        """The user pressed Enter with some text."""

        input: PromptInput
        text: str
        images: tuple[PreparedImage, ...] = ()
        """The images attached to it (the tray's)."""
        sent: str | None = None
        """The box's text as sent (unstripped): what ``commit`` takes out of it, keeping what
        was typed after the Enter before the app took the message."""

        @property
        def control(self) -> PromptInput:
            return self.input

    def __init__(
        self,
        *,
        cursor_blink: bool = True,
        completers: Sequence[Completer] = (),
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(
            "",
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            placeholder=PLACEHOLDER,
            compact=False,
            id=id,
            classes=classes,
        )
        self.cursor_blink = cursor_blink
        self.prompt_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self.completers = list(completers)
        """Asked in turn on every edit; the first answer fills the menu."""
        self.menu = CompletionMenu(id=f"{id}-menu" if id else None)
        self.tray = ImageTray(id=f"{id}-images" if id else None)
        """The images waiting to go with the message (composed by the screen above it)."""
        self._dismissed: str | None = None
        """The text the menu was closed on with Esc (it stays closed until the text changes)."""
        self._span: Completions | None = None
        self._menu_for: tuple[str, int] | None = None
        """The text and cursor offset the menu was last filled for."""
        self.up_from_empty: Callable[[], bool] | None = None
        self.empty_submit: Callable[[], object] | None = None
        self._chord = EditorChord()

    def watch_busy(self, busy: bool) -> None:
        self.set_class(busy, "-busy")

    # -- keys ------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        # the menu follows edits through TextArea.Changed, which is queued behind the keys of
        # a burst: bring it up to date with the text as it is now before a key reads it
        self._update_menu()
        if self.menu.is_open and self._menu_key(event.key):
            event.stop()
            event.prevent_default()
            return
        step = self._chord.feed(event.key, selection=not self.selection.is_empty)
        if step != "pass":
            self.border_subtitle = CHORD_HINT if step == "armed" else ""
        if step in ("armed", "edit", "cut-only"):
            event.stop()
            event.prevent_default()
            if step == "edit":
                self.action_external_editor()
            elif step == "cut-only":
                self.action_cut()
            return
        if step == "cut":  # what the first ctrl+x stood for, then this key as usual
            self.action_cut()
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_submit()
            return
        at_start = self.cursor_location == (0, 0) and self.selection.is_empty
        if event.key == "backspace" and at_start and self.tray.images:
            event.stop()
            event.prevent_default()
            await self.tray.drop()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)

    # -- completion ------------------------------------------------------------------------

    def _menu_key(self, key: str) -> bool:
        """Handle ``key`` in the open menu; False when it is not the menu's."""
        if key == "up":
            self.menu.move(-1)
        elif key == "down":
            self.menu.move(+1)
        elif key == "escape":
            self._dismissed = self.text
            self._menu_for = None
            self.menu.hide()
        elif key == "tab":
            self.accept_completion()
        elif key == "enter":
            chosen, span = self.menu.selected, self._span
            typed = self.text[span.start : span.end] if span is not None else ""
            if chosen is not None and typed == chosen.insert.rstrip():
                self._menu_for = None
                self.menu.hide()
                self.action_submit()
            else:
                self.accept_completion()
        else:
            return False
        return True

    def accept_completion(self) -> None:
        """Replace the span with the highlighted completion."""
        chosen, span = self.menu.selected, self._span
        if chosen is None or span is None:
            return
        start, end = self._location(span.start), self._location(span.end)
        self.replace(chosen.insert, start, end, maintain_selection_offset=False)
        self.move_cursor(self._location(span.start + len(chosen.insert)))
        self._update_menu()

    def _location(self, offset: int) -> tuple[int, int]:
        """The (row, column) of the character offset ``offset`` into ``text``."""
        step = len(self.document.newline)
        for row, line in enumerate(self.document.lines):
            if offset <= len(line):
                return row, offset
            offset -= len(line) + step
        last = self.document.lines[-1] if self.document.lines else ""
        return max(0, len(self.document.lines) - 1), len(last)

    def _offset(self, location: tuple[int, int]) -> int:
        row, column = location
        step = len(self.document.newline)
        return sum(len(line) + step for line in self.document.lines[:row]) + column

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self._dismissed is not None and self.text != self._dismissed:
            self._dismissed = None
        self._update_menu()

    def _on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        self._update_menu()

    def _update_menu(self) -> None:
        if not self.completers or self._dismissed is not None:
            self._menu_for = None
            self.menu.hide()
            return
        text = self.text
        cursor = self._offset(self.cursor_location)
        if self._menu_for == (text, cursor):
            return  # already shows what this text and cursor complete to
        self._menu_for = (text, cursor)
        for completer in self.completers:
            found = completer.complete(text, cursor)
            if found is not None and found.items:
                self._span = found
                self.menu.show(found)
                return
        self._span = None
        self.menu.hide()

    def on_blur(self, event: events.Blur) -> None:
        self._chord.reset()
        self.border_subtitle = ""

    @work(exclusive=True, group="editor", exit_on_error=False, name="external-editor")
    async def action_external_editor(self) -> None:
        """Edit the prompt in ``$VISUAL`` / ``$EDITOR``; the saved text replaces it."""
        edited = await edit_externally(self.app, self.text)
        if edited.text is None:
            self.app.notify(edited.problem or "The prompt is unchanged.", severity="warning")
            return
        self.load_text(edited.text)
        self.move_cursor(self.document.end)
        self.focus()

    async def _on_paste(self, event: events.Paste) -> None:
        """A paste that is only paths to image files attaches the images (TextArea inserts
        any other text); an image file that cannot be attached is said, and pasted as text."""
        from agent_tui.core.images.prepare import ImageError

        try:
            images = await images_in_paste(event.text, Path.cwd())
        except ImageError as error:
            self.app.notify(f"{error} Pasted as text.", title="Not attached", severity="warning")
            return
        if images is None:
            return
        event.prevent_default()  # not inserted as text
        for image in images:
            await self.tray.add(image)

    def action_paste(self) -> None:
        """Ctrl+V: the clipboard's image (``image_tray``), read off the event loop."""
        self._paste_clipboard()

    @work(exclusive=True, group="clipboard", exit_on_error=False, name="clipboard-image")
    async def _paste_clipboard(self) -> None:
        from agent_tui.core.images.clipboard import ClipboardError
        from agent_tui.core.images.prepare import ImageError

        try:
            image = await clipboard_image(self.tray.added + 1)
        except (ClipboardError, ImageError) as error:
            if self.app.clipboard:  # text copied in the app: pasted as Ctrl+V always did
                super().action_paste()
            else:
                self.app.notify(str(error), title="No image pasted", severity="warning")
            return
        await self.tray.add(image)

    def action_submit(self) -> None:
        text = self.text.strip()
        if text or self.tray.images:
            self.post_message(self.Submitted(self, text, tuple(self.tray.images), self.text))
        elif self.empty_submit is not None:
            self.empty_submit()

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and not self.text and self.up_from_empty and self.up_from_empty():
            return
        if (
            not select
            and self.prompt_history
            and self.navigator.is_first_wrapped_line(self.cursor_location)
        ):
            self._recall(-1)
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if (
            not select
            and self._history_index is not None
            and self.navigator.is_last_wrapped_line(self.cursor_location)
        ):
            self._recall(+1)
            return
        super().action_cursor_down(select)

    # -- history ---------------------------------------------------------------------------

    def _recall(self, step: int) -> None:
        if self._history_index is None:
            if step > 0:
                return
            self._draft = self.text
            index = len(self.prompt_history) - 1
        else:
            index = self._history_index + step
        if index < 0:
            return
        if index >= len(self.prompt_history):
            self._history_index = None
            self._show(self._draft)
            return
        self._history_index = index
        self._show(self.prompt_history[index])

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def commit(self, sent: str | None = None) -> None:
        """The submitted text was accepted: remember it and take it out of the box. ``sent``:
        the box's text when it was sent (``Submitted.sent``); keys that arrived in the
        meantime (a burst: ``hi⏎next``) typed after it stay. When the box no longer starts
        with it (changed meanwhile) it is kept whole: a repeat, never a loss. Without
        ``sent`` the box is cleared."""
        now = self.text
        rest = "" if sent is None else now[len(sent) :] if now.startswith(sent) else now
        text = (now if sent is None else sent).strip()
        if text and (not self.prompt_history or self.prompt_history[-1] != text):
            self.prompt_history.append(text)
        self._history_index = None
        self._draft = ""
        self.load_text(rest)
        if rest:
            self.move_cursor(self.document.end)
        self.tray.clear()
