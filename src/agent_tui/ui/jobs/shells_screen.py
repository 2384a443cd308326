"""``/shells``: the session's background jobs, one row each (state, elapsed, command), the
highlighted one's last lines below. Enter (or ``o``) opens its whole output in the spill
browser, ``k`` kills it, Escape closes. What opening and killing do is handed in."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.core.jobs import JobInfo
from agent_tui.ui.jobs.job_text import card_content, head_line

Lister = Callable[[], list[JobInfo]]
Opener = Callable[[JobInfo], None]
Killer = Callable[[str], Awaitable[JobInfo]]


class ShellsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    ShellsScreen { align: center middle; }
    ShellsScreen > Vertical {
        width: 90%; max-width: 120; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
        border-title-color: $text-accent;
    }
    ShellsScreen OptionList { height: auto; max-height: 12; border: none; }
    ShellsScreen .detail { height: auto; max-height: 10; padding: 1 0 0 0; }
    ShellsScreen .keys { color: $text-muted; padding: 1 0 0 0; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("o", "open", "Open output"),
        Binding("k", "kill", "Kill"),
    ]

    def __init__(
        self, jobs: Lister, open_log: Opener, kill: Killer, now: Callable[[], float] = time.time
    ) -> None:
        super().__init__()
        self._jobs, self._open_log, self._kill = jobs, open_log, kill
        self.now = now
        self.infos: list[JobInfo] = []

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "background jobs"
            yield OptionList()
            yield Static(classes="detail")
            yield Static(
                "enter/o open the whole output · k kill · esc close", classes="keys", markup=False
            )

    def on_mount(self) -> None:
        self.refresh_list()
        self.set_interval(1.0, self.refresh_list)
        self.query_one(OptionList).focus()

    def refresh_list(self) -> None:
        options = self.query_one(OptionList)
        at = options.highlighted
        self.infos = list(reversed(self._jobs()))
        options.clear_options()
        if not self.infos:
            options.add_option(Option("No background jobs in this session.", disabled=True))
            self.query_one(".detail", Static).update("")
            return
        width = max(20, min(90, self.app.size.width - 40))  # one row each, even at 80 columns
        options.add_options(
            Option(head_line(info, self.now(), width), id=info.id) for info in self.infos
        )
        options.highlighted = min(at or 0, len(self.infos) - 1)
        self._detail()

    def on_option_list_option_highlighted(self, _: OptionList.OptionHighlighted) -> None:
        self._detail()

    def on_option_list_option_selected(self, _: OptionList.OptionSelected) -> None:
        self.action_open()

    def _current(self) -> JobInfo | None:
        at = self.query_one(OptionList).highlighted
        return self.infos[at] if at is not None and 0 <= at < len(self.infos) else None

    def _detail(self) -> None:
        info = self._current()
        if info is None:
            return
        where = Content.styled(f"output: {info.log}", "dim")
        self.query_one(".detail", Static).update(
            Content("\n").join([card_content(info, self.now()), where])
        )

    def action_open(self) -> None:
        info = self._current()
        if info is not None:
            self._open_log(info)

    async def action_kill(self) -> None:
        info = self._current()
        if info is not None and info.running:
            self.notify(f"Killing background job {info.id}…")
            await self._kill(info.id)
            self.refresh_list()

    def action_close(self) -> None:
        self.dismiss(None)
