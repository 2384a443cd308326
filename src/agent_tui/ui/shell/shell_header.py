"""The shell's header: Textual's ``Header`` as it first looks (icon, title, the clock's space),
drawn once. Textual's own follows the app's title and sub-title with watchers that query their
child later; the shell is replaced just as the session's model may change the sub-title, and
such a late watcher found its header half removed (``NoMatches`` ended the app). The main
screen has the real ``Header``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static


class ShellHeader(Widget):
    DEFAULT_CSS = """
    ShellHeader {
        dock: top;
        width: 100%;
        background: $panel;
        color: $foreground;
        height: 1;
        & > .icon { dock: left; padding: 0 1; width: 8; content-align: left middle; }
        & > .clock { dock: right; width: 10; padding: 0 1; }
        & > .title {
            text-wrap: nowrap;
            text-overflow: ellipsis;
            content-align: center middle;
            width: 100%;
        }
    }
    """

    def __init__(self, icon: str) -> None:
        super().__init__()
        self.icon = icon

    def compose(self) -> ComposeResult:
        yield Static(self.icon, classes="icon", markup=False)
        yield Static(self.app.format_title(self.app.title, self.app.sub_title), classes="title")
        yield Static("", classes="clock")
