"""What runs beside the conversation while the main screen is up: the MCP servers (started
in the background, followed for the status bar's counts and their error logs, their requests
for input shown), the background jobs' cards (``job_view``), the ``@`` picker's index of the
workspace, and the sandbox probe.

``Background.start`` begins it all as the main screen opens; ``stop`` ends what would outlive
the app (the index's watch, the listeners on the MCP manager). What it uses of the app is
``BackgroundHost``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.mcp.client.server_log import LogEntry
    from agent_tui.core.mentions import FileIndex, IndexWatcher
    from agent_tui.core.sandbox import SandboxState
    from agent_tui.ui.elicit.desk import ElicitationDesk
    from agent_tui.ui.shell.main_screen import MainScreen


class UntilAppEnds(threading.Event):
    """Set by ``set``, or as soon as ``app`` no longer runs: an app torn down without its
    unmount (a test failing inside ``run_test``) must not leave a watcher thread behind, which
    the event loop's close would then wait for forever."""

    def __init__(self, app: App[Any]) -> None:
        super().__init__()
        self.app = app

    def is_set(self) -> bool:
        return super().is_set() or not self.app.is_running


class BackgroundHost(Protocol):
    """What of the app (``AgentApp``) the background work uses and sets: the agent, the
    ``@`` index, the elicitation desk, and the status bar's MCP and sandbox figures."""

    agent: Agent
    elicit_desk: ElicitationDesk
    mention_index: FileIndex
    mention_watcher: IndexWatcher
    mcp_connected: int
    mcp_failed: int
    mcp_connecting: int
    sandbox: str
    sandbox_warn: bool

    @property
    def main(self) -> MainScreen: ...


class Background:
    """The session's background work (``app`` runs the workers and receives the sources'
    messages; ``host`` is the state they show in)."""

    def __init__(self, app: App[Any], host: BackgroundHost) -> None:
        self.app = app
        self.host = host
        self.mentions_stop = UntilAppEnds(app)
        """Set as the app ends: the ``@`` index stops walking and watching."""
        self.unwatch: list[Callable[[], object]] = []

    def start(self, *, sandbox: bool) -> None:
        """Follow the tool sources, start the MCP servers, probe the sandbox (``sandbox``),
        and index the workspace after the first frame."""
        from agent_tui.ui.elicit.desk import attach as attach_elicitation
        from agent_tui.ui.shell.events_bridge import watch_sources
        from agent_tui.ui.shell.job_view import watch_jobs

        app, host = self.app, self.host
        self.unwatch = watch_sources(host.agent.tool_sources, app)
        self.unwatch += attach_elicitation(host.elicit_desk, host.agent.tool_sources)
        self.unwatch.append(watch_jobs(app, host.agent, lambda: host.main.jobs))
        self.count_sources()
        app.run_worker(
            self._start_tool_sources(),
            group="tool-sources",
            exit_on_error=False,
            name="start-tool-sources",
        )
        if sandbox:
            app.run_worker(
                self._probe_sandbox,
                thread=True,
                group="sandbox",
                exit_on_error=False,
                name="probe-sandbox",
            )
        app.call_after_refresh(self._index_mentions)  # after the first frame

    def stop(self) -> None:
        """Stop following the tool sources (the MCP manager may outlive the app) and the
        workspace."""
        self.mentions_stop.set()
        for stop in self.unwatch:
            stop()
        self.unwatch.clear()

    async def _start_tool_sources(self) -> None:
        """Start connecting MCP servers at launch, in the background (``startup``)."""
        from agent_tui.ui.shell import startup

        await startup.start_tool_sources(self.host.agent)

    def _index_mentions(self) -> None:
        self.app.run_worker(
            self._walk_workspace,
            thread=True,
            group="mentions",
            exit_on_error=False,
            name="mention-index",
        )

    def _walk_workspace(self) -> None:
        """Walk the workspace for the ``@`` picker, then keep the index current until the app
        ends (``core.mentions``)."""
        self.host.mention_index.build(self.mentions_stop)
        if not self.mentions_stop.is_set():
            self.host.mention_watcher.run(self.mentions_stop)

    def _probe_sandbox(self) -> None:
        """Find out (bubblewrap starts a process) where commands will run: the status bar says
        it; the first launch where the sandbox cannot work says why, once."""
        from agent_tui.core.state.notices import first_time

        state = self.host.agent.executor.sandbox.state
        shelter = state.shelter
        if shelter.sandboxed:
            label = "⛉ sandbox" + (" · network" if shelter.network else "")
        else:  # off by the user's choice: nothing to say every time
            label = "" if state.mode == "off" else "⚠ no sandbox"
        notice = None
        if state.shell is None and state.mode != "off" and first_time(f"sandbox:{state.problem}"):
            then = "run_shell refuses to run commands" if state.refuses else "commands run"
            then += "" if state.refuses else " unconfined, as you"
            notice = (
                f"No sandbox: {state.problem}. {then} until it works; "
                '"sandbox": {"mode": "off"} in your settings says you know (and hides this).'
            )
        self.app.call_from_thread(self._show_sandbox, label, state.shell is None, notice, state)

    def _show_sandbox(
        self, label: str, unconfined: bool, notice: str | None, state: SandboxState
    ) -> None:
        host = self.host
        host.sandbox = label
        host.sandbox_warn = unconfined and state.mode != "off"
        host.main.status.sandbox_tooltip = state.describe()
        if notice is not None:
            self.app.run_worker(host.main.chat.add_notice(notice, "warning"), group="notice")

    def server_logged(self, entry: LogEntry) -> None:
        """An MCP server's error (or worse) log message, once, as a notice (the panel's
        Server log section keeps it with the others)."""
        text = entry.text if len(entry.text) <= 300 else entry.text[:299] + "…"
        about = f"{entry.level} from {entry.logger}" if entry.logger else entry.level
        self.app.notify(
            f"{about}: {text}\nctrl+g, then 4: the server log",
            title=f"MCP {entry.server}",
            severity="error",
            markup=False,
        )

    def count_sources(self) -> None:
        """The status bar's counts of MCP servers connected, failed and connecting."""
        states = [
            state.status
            for source in self.host.agent.tool_sources
            for state in (getattr(source, "states", list)() or [])
        ]
        host = self.host
        host.mcp_connected = states.count("connected")
        host.mcp_failed = states.count("failed")
        host.mcp_connecting = states.count("connecting")
