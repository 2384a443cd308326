"""The queued messages under the prompt: what was sent while a turn runs (``type_ahead``).

A dim hint line says when they go and which keys reach them, then one numbered line per
message. ↑ from an empty prompt selects the last one; ↑/↓ (k/j) move, ↓ past the last goes
back to the prompt; Enter or ``e`` loads the message back into the prompt (and takes it out of
the queue); Delete, Backspace or ``x`` removes it. Hidden while the queue is empty.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from agent_tui.ui.common.format import one_line
from agent_tui.ui.shell.type_ahead import TypeAhead

MAX_SHOWN = 5
"""Messages shown at once; more scroll with the selection."""


class QueuedMessages(Widget, can_focus=True):
    DEFAULT_CSS = """
    QueuedMessages {
        display: none;
        height: auto;
        margin: 0 1;
        padding: 0 2;
        color: $text-muted;
        &.-shown { display: block; }
        &:focus { background: $primary 8%; }
    }
    """

    BINDINGS = [
        Binding("up,k", "move(-1)", "Previous", show=False, id="queued.previous"),
        Binding("down,j", "move(1)", "Next", show=False, id="queued.next"),
        Binding("enter,e", "edit", "Edit queued", id="queued.edit"),
        Binding("delete,backspace,x", "remove", "Remove queued", id="queued.remove"),
    ]

    busy: reactive[bool] = reactive(False)
    """A turn is running (the hint says when the messages go)."""
    cursor: reactive[int] = reactive(0)

    class Edit(Message):
        """Put ``text`` (taken out of the queue) back into the prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Leave(Message):
        """Give the focus back to the prompt."""

    def __init__(self, queue: TypeAhead, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue = queue

    def on_mount(self) -> None:
        self.queue.listeners.append(self._queue_changed)
        self._queue_changed()

    def on_unmount(self) -> None:
        if self._queue_changed in self.queue.listeners:
            self.queue.listeners.remove(self._queue_changed)

    def _queue_changed(self) -> None:
        count = len(self.queue)
        self.set_class(count > 0, "-shown")
        self.cursor = max(0, min(self.cursor, count - 1))
        if not count and self.has_focus:
            self.post_message(self.Leave())
        self.refresh(layout=True)

    def watch_busy(self) -> None:
        self.refresh()

    def watch_cursor(self) -> None:
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def select_last(self) -> bool:
        """Select the newest message and take the focus; False when there is none."""
        if not len(self.queue):
            return False
        self.cursor = len(self.queue) - 1
        self.focus()
        return True

    # -- looks -----------------------------------------------------------------------------

    def _hint(self) -> tuple[str, str]:
        if not self.busy:
            when = "kept · Enter on an empty prompt sends the next"
        elif self.queue.injects:
            when = "sent at the next tool boundary"
        else:
            when = "sent when the turn ends"
        keys = "↑↓ select · Enter/e edit · x/Del remove" if self.has_focus else "↑ to edit"
        return f"queued · {when}", keys

    def render(self) -> Content:
        entries = self.queue.entries
        width = max(1, self.size.width)
        left, keys = self._hint()
        room = max(1, width - len(keys) - 2)
        hint = Content.styled(left, "italic").truncate(room, ellipsis=True, pad=True)
        lines = [hint + Content.styled(f"  {keys}", "$foreground-muted")]
        start = max(0, min(self.cursor - MAX_SHOWN + 1, len(entries) - MAX_SHOWN))
        start = min(start, self.cursor)
        for index in range(start, min(len(entries), start + MAX_SHOWN)):
            number = f"{index + 1}. "
            text = one_line(entries[index].text, max(1, width))
            line = Content.assemble((number, "$foreground-muted"), text).truncate(
                width, ellipsis=True
            )
            if self.has_focus and index == self.cursor:
                line = line.stylize("reverse")
            lines.append(line)
        hidden = len(entries) - len(lines) + 1
        if hidden > 0:
            lines.append(Content.styled(f"… {hidden} more", "$foreground-muted"))
        return Content("\n").join(lines)

    # -- keys ------------------------------------------------------------------------------

    def _selected(self) -> str | None:
        entries = self.queue.entries
        return entries[self.cursor].id if 0 <= self.cursor < len(entries) else None

    def action_move(self, step: int) -> None:
        target = self.cursor + step
        if target >= len(self.queue):
            self.post_message(self.Leave())
            return
        self.cursor = max(0, target)

    def action_edit(self) -> None:
        selected = self._selected()
        entry = self.queue.take(selected) if selected is not None else None
        if entry is not None:
            self.post_message(self.Edit(entry.text))

    def action_remove(self) -> None:
        selected = self._selected()
        if selected is not None:
            self.queue.take(selected)
