"""Changing the session from the TUI: a new conversation, another one resumed, the model
switched, a fork, a rewind.

Each change is the core agent's (``new_session``, ``resume``, ``switch_model``, ``fork``,
``rewind``); ``SessionChanges`` asks for it, says why when the agent refuses (a turn is
running, a file cannot be read), then shows the session it answers (``SessionViews.take``) and
what the change did. What it uses of the app is ``ChangesHost``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from agent_tui.ui.shell import palette

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.events import SessionStart
    from agent_tui.ui.rewind.picker import RewindChoice
    from agent_tui.ui.shell.main_screen import MainScreen
    from agent_tui.ui.shell.session_list import SessionSummary
    from agent_tui.ui.shell.session_views import SessionViews
    from agent_tui.ui.shell.type_ahead import TypeAhead


class ChangesHost(Protocol):
    """What of the app (``AgentApp``) a change uses: the agent, the session shown and how
    it is shown, whether a turn runs, and the messages queued behind it."""

    agent: Agent
    busy: bool
    type_ahead: TypeAhead
    views: SessionViews

    @property
    def session(self) -> SessionStart: ...

    @property
    def main(self) -> MainScreen: ...


class SessionChanges:
    """The session's changes (``app`` shows the notices, pickers and workers; ``host`` is
    the session's side of the app)."""

    def __init__(self, app: App[Any], host: ChangesHost) -> None:
        self.app = app
        self.host = host

    async def new_session(self, *, asked: bool = False) -> bool:
        """A new conversation: the model starts with an empty context (a new session file;
        the old one can be resumed). With background jobs running, asks first: kill them,
        keep them (until agent-tui exits), or cancel (False: not now)."""
        host = self.host
        running = host.agent.executor.jobs.running()
        if running and not asked:
            from agent_tui.ui.jobs.running_question import Choice, RunningJobsQuestion

            async def go_on(kill: bool) -> None:
                if kill:
                    await host.agent.executor.jobs.kill_all("user")
                await self.new_session(asked=True)

            def answered(choice: Choice | None) -> None:
                if choice in ("kill", "keep"):
                    self.app.run_worker(go_on(choice == "kill"), group="new-session")

            question = RunningJobsQuestion(running, "New conversation", keep=True)
            self.app.push_screen(question, answered)
            return False
        try:
            start = await host.agent.new_session()
        except _busy() as busy:
            self.app.notify(str(busy), severity="warning")
            return False
        host.views.take(start)
        await host.views.reset()
        await host.main.chat.add_notice(
            f"New conversation · session {start.session_id} (the model starts from scratch)",
            "info",
        )
        await host.type_ahead.drop("a new conversation starts empty")
        return True

    async def resume(self, path: Path) -> bool:
        """Load the session file ``path`` and continue it."""
        host = self.host
        try:
            start = await host.agent.resume(path)
        except _busy() as busy:
            self.app.notify(str(busy), severity="warning")
            return False
        except OSError as exc:
            self.app.notify(f"Cannot read {path}: {exc.strerror or exc}", severity="error")
            return False
        host.views.take(start.model_copy(update={"resumed": True}))
        await host.views.reset()
        for warning in start.warnings:
            await host.main.chat.add_notice(warning, "warning")
        await host.views.show_transcript()
        await host.type_ahead.drop("another session was resumed")
        return True

    async def switch_model(self, spec: str) -> bool:
        """Use the model ``spec`` from the next turn on (the transcript is kept)."""
        from agent_tui.core.providers.base import ProviderError

        host = self.host
        try:
            start = await host.agent.switch_model(spec)
        except _busy() as busy:
            self.app.notify(str(busy), severity="warning")
            return False
        except ProviderError as exc:
            self.app.notify(str(exc), title="Cannot switch the model", severity="error")
            return False
        host.views.take(start)
        await host.main.chat.add_notice(f"Model: {start.model}", "info")
        return True

    def pick_session(self) -> None:
        """The palette's list of the other saved sessions of this directory, read in a
        worker; the one picked is resumed."""
        self.app.run_worker(
            self._pick_session(),
            group="sessions",
            exclusive=True,
            exit_on_error=False,
            name="list-sessions",
        )

    async def _pick_session(self) -> None:
        from agent_tui.ui.shell.session_list import sessions_of

        agent = self.host.agent
        found = await asyncio.to_thread(sessions_of, agent.sessions, agent.cwd)
        current = agent.session.id if agent.session is not None else None
        palette.pick_session(self.app, found, current, self._resume_summary)

    async def _resume_summary(self, summary: SessionSummary) -> None:
        await self.resume(summary.path)

    # -- rewind and fork -------------------------------------------------------------------

    async def open_rewind(self) -> None:
        """Open the rewind picker: go back to before a turn (its code, the conversation or
        both), with a preview of what that does to each file."""
        agent = self.host.agent
        if self.host.busy or agent.rewinding:
            self.app.notify("A turn is running: rewind after it ends (Esc interrupts it).")
            return
        from agent_tui.ui.shell import rewind

        await agent.settle()  # the last turn's last scan (a moment at most)
        rewind.open_picker(self.app, agent, self._rewind_chosen)

    def _rewind_chosen(self, choice: RewindChoice | None) -> None:
        if choice is not None:
            self.app.run_worker(
                self._rewind(choice),
                group="rewind",
                exclusive=True,
                exit_on_error=False,
                name="rewind",
            )

    async def _rewind(self, choice: RewindChoice) -> None:
        from agent_tui.core.agent.agent import AgentBusy
        from agent_tui.core.conversation.rewind import RewindError
        from agent_tui.ui.shell import rewind

        host = self.host
        try:
            report = await host.agent.rewind(
                choice.turn.id, choice.what, overwrite=choice.overwrite
            )
        except (AgentBusy, RewindError) as exc:
            self.app.notify(str(exc), title="Cannot rewind", severity="warning")
            return
        except OSError as exc:
            self.app.notify(f"{exc.strerror or exc}", title="Rewind failed", severity="error")
            return
        notice = rewind.report_notice(report)
        if choice.what != "code":
            host.views.take(host.agent.describe().model_copy(update={"resumed": True}))
            await host.views.reset()
            if host.agent.messages:
                await host.views.show_transcript(notice)
            else:
                await host.main.chat.add_notice(notice, "info")
            prompt = host.main.prompt
            prompt.load_text(report.prompt)
            prompt.move_cursor(prompt.document.end)
            prompt.focus()
        else:
            await host.main.chat.add_notice(notice, "info")
        for warning in rewind.report_warnings(report):
            await host.main.chat.add_notice(warning, "warning")

    async def fork(self) -> None:
        """Continue in a copy of this session (a new id); the original stays as it was."""
        from agent_tui.core.agent.agent import AgentBusy
        from agent_tui.core.conversation.rewind import RewindError

        host = self.host
        old = host.session.session_id
        try:
            start = await host.agent.fork()
        except (AgentBusy, RewindError) as exc:
            self.app.notify(str(exc), title="Cannot fork", severity="warning")
            return
        except OSError as exc:
            self.app.notify(f"{exc.strerror or exc}", title="Fork failed", severity="error")
            return
        host.views.take(start)
        await host.main.chat.add_notice(
            f"Forked session {old} into session {start.session_id}: the same conversation "
            f"goes on here; {old} stays as it was (resume it from the palette).",
            "info",
        )


def _busy() -> type[Exception]:
    """``AgentBusy`` (imported when an exception is matched: the first frame does without)."""
    from agent_tui.core.agent.agent import AgentBusy

    return AgentBusy
