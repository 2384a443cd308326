"""The session's background jobs in the TUI: their live cards follow the core's job manager
(``watch_jobs``), a job that ends is a notice, and ``/shells`` opens the list
(``open_shells``) whose actions open a job's whole output in the spill browser and kill one.
Everything shown is built from ``JobInfo``'s typed fields."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App

from agent_tui.ui.jobs import JobsPanel, ShellsScreen
from agent_tui.ui.shell import screen_actions

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.jobs import JobInfo


def watch_jobs(app: App[Any], agent: Agent, panel: Callable[[], JobsPanel]) -> Callable[[], None]:
    """Show each change of a job on its card; a job's end once as a notice. Returns the
    unsubscribe."""
    told: set[str] = set()

    def changed(info: JobInfo) -> None:
        panel().show(info)
        if info.running or info.id in told:
            return
        told.add(info.id)
        if info.killed_by in ("user", "exit"):
            return  # the user did it: no news
        app.notify(
            f"`{info.command}` {info.status} ({info.unread_lines} new lines)",
            title=f"Background job {info.id}",
            severity="information" if info.exit_code == 0 else "warning",
        )

    return agent.executor.jobs.subscribe(changed)


def open_shells(app: App[Any], agent: Agent) -> None:
    """The ``/shells`` screen over the current one."""
    jobs = agent.executor.jobs

    def open_log(info: JobInfo) -> None:
        async def opening() -> None:
            path = await jobs.output_file(info.id)
            blink = bool(getattr(app, "CURSOR_BLINK", False))
            screen_actions.open_spill(app, agent, path, cursor_blink=blink)

        app.run_worker(opening(), group="job-output", exit_on_error=False)

    async def kill(job_id: str) -> JobInfo:
        return await jobs.kill(job_id, by="user")

    app.push_screen(ShellsScreen(jobs.infos, open_log, kill))
