"""The live cards of the session's background jobs, pinned above the tool lane: they stay
across turns (a job is not a turn's), one card per job — its state, how long it ran, its last
lines, its exit — refreshed as output comes and each second while one runs. Hidden while
there is no job. A small terminal (the screen's ``-short``/``-narrow`` classes) shows one line a
job."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from agent_tui.core.jobs import JobInfo
from agent_tui.ui.jobs.job_text import card_content

MAX_CARDS = 4
"""Cards shown: the running jobs first, then the latest ended ones (``/shells`` lists all)."""


class JobCard(Static):
    DEFAULT_CSS = """
    JobCard { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, info: JobInfo, now: Callable[[], float]) -> None:
        super().__init__(card_content(info, now()), id=f"job-{info.id}", markup=False)
        self.info = info
        self.now = now

    def show(self, info: JobInfo) -> None:
        self.info = info
        self.update(card_content(info, self.now()))


class JobsPanel(Vertical):
    DEFAULT_CSS = """
    JobsPanel {
        height: auto;
        max-height: 40%;
        padding: 0 1;
        border: round $accent 40%;
        border-title-color: $text-accent;
        background: $background;
        overflow-y: auto;
        &.-empty { display: none; }
    }
    MainScreen.-narrow JobsPanel, MainScreen.-short JobsPanel {
        max-height: 6;
        & > JobCard { height: 1; }  /* small terminal: one line a job, /shells has the rest */
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-empty")
        self.jobs: dict[str, JobInfo] = {}
        self.border_title = "background jobs"
        self.now: Callable[[], float] = time.time
        """The wall clock the elapsed times are read from (fixed in snapshots)."""

    def compose(self) -> ComposeResult:
        return iter(())

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        for card in self.query(JobCard):
            if card.info.running:
                card.show(card.info)

    def show(self, info: JobInfo) -> None:
        """A job started, wrote or ended: its card now says so."""
        self.jobs[info.id] = info
        shown = sorted(self.jobs.values(), key=lambda i: (not i.running, -int(i.id)))[:MAX_CARDS]
        keep = {i.id for i in shown}
        for card in list(self.query(JobCard)):
            if card.info.id not in keep:
                card.remove()
        for job in sorted(shown, key=lambda i: int(i.id)):
            found = self.query(f"#job-{job.id}")
            if found:
                found.first(JobCard).show(job)
            else:
                self.mount(JobCard(job, lambda: self.now()))
        running = sum(1 for i in self.jobs.values() if i.running)
        self.border_title = f"background jobs · {running} running"
        self.set_class(not self.jobs, "-empty")
