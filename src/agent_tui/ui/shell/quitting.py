"""Leaving the TUI: Ctrl+Q quits; Ctrl+C interrupts the turn and quits when pressed again
soon after. Quitting keeps the theme just picked, stops the turn and closes the agent (its
spills cleaned up, its provider closed) before the app exits, waiting for that a few seconds
at most. What it uses of the app is ``QuittingHost``."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.ui.shell.themes import ThemeKeeper

CLOSE_TIMEOUT = 5.0
"""Seconds quitting waits for the agent to clean up before exiting anyway."""
QUIT_WINDOW = 3.0
"""A second Ctrl+C within this many seconds quits."""


class QuittingHost(Protocol):
    """What of the app (``AgentApp``) quitting uses: the agent (once ready), whether a turn
    runs, the theme keeper, and the app's own interrupt (Esc's)."""

    agent: Agent
    busy: bool
    theme_keeper: ThemeKeeper | None

    @property
    def ready(self) -> bool: ...

    def action_interrupt(self) -> None: ...


class Quitting:
    """Quitting the app (``app`` exits and notifies; ``host`` is the session's side)."""

    def __init__(self, app: App[Any], host: QuittingHost) -> None:
        self.app = app
        self.host = host
        self.armed_at: float | None = None
        """When Ctrl+C was last pressed."""

    async def quit(self, *, asked: bool = False) -> None:
        """Stop the turn, close the agent (spill cleanup, provider, background jobs killed),
        then exit; with background jobs running, asks first (kill them and quit, or cancel)."""
        host = self.host
        if host.theme_keeper is not None:  # a theme picked a moment ago is kept
            host.theme_keeper.save_now()
        if not host.ready:  # the core is still being built: nothing of it to close
            self.app.exit()
            return
        running = host.agent.executor.jobs.running()
        if running and not asked:
            from agent_tui.ui.jobs.running_question import Choice, RunningJobsQuestion

            def answered(choice: Choice | None) -> None:
                if choice == "kill":
                    self.app.run_worker(self.quit(asked=True), group="quit")

            self.app.push_screen(RunningJobsQuestion(running, "Quit", keep=False), answered)
            return
        if host.busy:
            host.agent.interrupt()
        try:
            await asyncio.wait_for(host.agent.close("prompt_input_exit"), CLOSE_TIMEOUT)
        except TimeoutError:
            pass
        self.app.exit()

    async def ctrl_c(self) -> None:
        """First press: interrupt the running turn and arm; a second press soon after quits."""
        now = time.monotonic()
        if self.armed_at is not None and now - self.armed_at <= QUIT_WINDOW:
            await self.quit()
            return
        self.armed_at = now
        self.host.action_interrupt()
        self.app.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW)
