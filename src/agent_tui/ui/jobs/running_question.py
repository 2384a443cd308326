"""Asked before a new conversation or quitting while background jobs run: kill them, keep
them running (until agent-tui exits: they never outlive it), or cancel. One key each."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.core.jobs import JobInfo
from agent_tui.ui.jobs.job_text import head_line

Choice = Literal["kill", "keep", "cancel"]
SHOWN = 5


class RunningJobsQuestion(ModalScreen[Choice]):
    """``k`` kill them, ``e`` keep them running (only when ``keep`` is offered: a new
    conversation), Esc or ``c`` cancel. ``doing``: what is about to happen (``Quit``)."""

    DEFAULT_CSS = """
    RunningJobsQuestion { align: center middle; background: $background 60%; }
    RunningJobsQuestion > Vertical {
        width: 80; max-width: 96%; height: auto; padding: 0 1;
        background: $surface; border: heavy $warning;
        border-title-color: $warning; border-title-style: bold;
        & > .keys { color: $text-muted; margin-top: 1; }
    }
    """
    BINDINGS = [
        Binding("k", "answer('kill')", "Kill them"),
        Binding("e", "answer('keep')", "Keep them"),
        Binding("escape,c", "answer('cancel')", "Cancel"),
    ]

    def __init__(
        self,
        running: list[JobInfo],
        doing: str,
        *,
        keep: bool,
        now: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.now = now
        self.running = running
        self.doing = doing
        self.keep = keep

    def compose(self) -> ComposeResult:
        count = len(self.running)
        with Vertical() as box:
            box.border_title = (
                f"{self.doing}: {count} background job{'s' if count != 1 else ''} running"
            )
            rows = [head_line(info, self.now()) for info in self.running[:SHOWN]]
            if count > SHOWN:
                rows.append(Content(f"… and {count - SHOWN} more (/shells)"))
            yield Static(Content("\n").join(rows))
            keys: list[str | tuple[str, str]] = [(" k ", "bold reverse"), " kill them"]
            if self.keep:
                keys += ["  ·  ", (" e ", "bold reverse"), " keep them running until you quit"]
            keys += ["  ·  ", (" esc ", "bold reverse"), " cancel"]
            yield Static(Content.assemble(*keys), classes="keys")

    def action_answer(self, choice: Choice) -> None:
        if choice == "keep" and not self.keep:
            return
        self.dismiss(choice)
