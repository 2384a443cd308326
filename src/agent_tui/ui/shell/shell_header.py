"""The shell's header: Textual's ``Header`` as it first looks (icon, title, the clock's space),
drawn once. Textual's own follows the app's title and sub-title with watchers that query their
child later; the shell is replaced just as the session's model may change the sub-title, and
such a late watcher found its header half removed (``NoMatches`` ended the app). The main
screen has the real ``Header``.

One widget, one line of content: the icon's eight cells, the title centred (an ellipsis when it
does not fit) between them and the clock's ten blank ones, as ``Header``'s three children lay
them out (the same cells: ``tests/ui/test_shell_header.py``); one widget to style, lay out and
render in the first frame instead of four."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

ICON = 8
"""``Header``'s icon: eight cells, one of padding each side."""
CLOCK = 10
"""The clock's blank cells on the right."""


class ShellHeader(Widget):
    DEFAULT_CSS = """
    ShellHeader {
        dock: top;
        width: 100%;
        background: $panel;
        color: $foreground;
        height: 1;
        text-wrap: nowrap;
    }
    """

    def __init__(self, icon: str) -> None:
        super().__init__()
        self.icon = icon
        self._title = Content()

    def on_mount(self) -> None:
        self._title = self.app.format_title(self.app.title, self.app.sub_title)

    def render(self) -> Content:
        icon = Content(f" {self.icon}")  # plain text, as the icon's Static had it
        middle = max(0, self.size.width - ICON - CLOCK)
        return Content.assemble(
            icon.pad_right(max(0, ICON - icon.cell_length)),
            self._title.center(middle, ellipsis=True),
            " " * CLOCK,
        )
