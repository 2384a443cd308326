"""``AgentApp``: wires the agent loop (on a worker) to the chat, the tool lane and the prompt.

The loop runs in the ``agent`` worker group; every core event arrives as one ``AgentEvent``
message and is rendered by ``show_event`` — the same path renders a resumed transcript, told
again as events (``core.replay``). The session's state (model, mode, busy, demo, tokens, MCP
counts) lives in reactives here, bound by the status bar and the prompt (``data_bind``).
Session changes are the core agent's (``new_session``, ``resume``, ``switch_model``), each
answering a ``SessionStart`` the app renders. Asks queue at the ``ApprovalDesk``; a crash of
the worker is shown in the chat and the app keeps running.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on, work
from textual.app import App
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.worker import Worker, WorkerState

from agent_tui.ui.common.format import model_label, shorten_home
from agent_tui.ui.shell import palette
from agent_tui.ui.shell.boot import Boot, Booted, BootFailed, FirstLook, paint_theme
from agent_tui.ui.shell.key_question import route_key
from agent_tui.ui.shell.prompt_input import PromptInput
from agent_tui.ui.shell.shell_screen import ShellScreen
from agent_tui.ui.shell.shell_status import ShellStatus
from agent_tui.ui.shell.status_bar import Activity, StatusBar
from agent_tui.ui.shell.worker_failure import worker_failed

if TYPE_CHECKING:
    from collections.abc import Iterator

    # The core, and the widgets that render it, are imported where they are used: the first
    # frame (``ShellScreen``) needs none of them, and ``AgentApp(boot=…)`` paints it before
    # they are imported (``tests/ui/test_controls.py`` checks that this module leaves them out).
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.events import Event, SessionStart
    from agent_tui.core.permissions import Mode
    from agent_tui.core.sandbox import SandboxState
    from agent_tui.core.state.trust import TrustItem
    from agent_tui.core.text.completion import Completer
    from agent_tui.ui.calls.book import Clock
    from agent_tui.ui.chat.earlier_turns import EarlierTurns
    from agent_tui.ui.chat.tool_line import ToolLine
    from agent_tui.ui.lane.tool_card import ToolCard
    from agent_tui.ui.rewind.picker import RewindChoice
    from agent_tui.ui.shell.backlog import Backlog
    from agent_tui.ui.shell.events_bridge import AgentEvent, ServerLogged
    from agent_tui.ui.shell.main_screen import MainScreen
    from agent_tui.ui.shell.session_list import SessionSummary
    from agent_tui.ui.shell.themes import ThemeKeeper

log = logging.getLogger(__name__)

CLOSE_TIMEOUT = 5.0
"""Seconds quitting waits for the agent to clean up before exiting anyway."""
QUIT_WINDOW = 3.0
"""A second Ctrl+C within this many seconds quits."""
REFREEZE_AFTER = 1.0
"""Seconds after a session's views are replaced before the heap is collected and frozen
again (``heap.refreeze``)."""


class AgentApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "agent-tui"
    COMMANDS = App.COMMANDS | {palette.AgentCommands}
    CURSOR_BLINK: ClassVar[bool] = True
    """Blinking cursors in the prompt and dialogs (tests and snapshots turn it off)."""
    SHOW_SANDBOX: ClassVar[bool] = True
    """Probe the sandbox at start-up and show it in the status bar (snapshots turn it off:
    whether bubblewrap works differs between machines)."""
    QUIET_GC: ClassVar[bool | None] = None
    """Tune the garbage collector for a long-lived process (``shell.heap``); None: when
    the app has its process to itself, not headless (benchmarks set it: they measure that)."""

    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", id="interrupt"),
        Binding("ctrl+c", "ctrl_c", "Quit", priority=True, id="quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit.alt"),
        Binding("ctrl+l", "new_session", "New chat", id="new"),
    ]

    # The session's state, bound by the status bar and the prompt.
    model: reactive[str] = reactive("")
    demo: reactive[bool] = reactive(False)
    mode: reactive[str] = reactive("")
    busy: reactive[bool] = reactive(False, bindings=True)
    """A turn is running."""
    activity: reactive[Activity] = reactive(Activity.IDLE)
    retry_until: reactive[float] = reactive(0.0)
    """While a model request waits to be retried: when (``time.monotonic()``) it is sent
    again, for the status bar's countdown; 0 otherwise."""
    input_tokens: reactive[int] = reactive(0)
    output_tokens: reactive[int] = reactive(0)
    context_tokens: reactive[int] = reactive(0)
    context_window: reactive[int] = reactive(0)
    """The context meter's figures (0: none yet, the meter is hidden)."""
    context_estimated: reactive[bool] = reactive(False)
    cwd: reactive[str] = reactive("")
    mcp_connected: reactive[int] = reactive(0)
    mcp_failed: reactive[int] = reactive(0)
    mcp_connecting: reactive[int] = reactive(0)
    sandbox: reactive[str] = reactive("")
    """Where shell commands run, in a few words (empty until the sandbox was probed)."""
    sandbox_warn: reactive[bool] = reactive(False)
    """They run unconfined although the settings ask for a sandbox."""

    agent: Agent
    """The core agent (with ``boot``: there once the core is built, see ``ready``)."""

    def __init__(
        self,
        agent: Agent | None = None,
        demo: bool = False,
        initial_prompt: str | None = None,
        session: SessionStart | None = None,
        *,
        boot: Boot | None = None,
        first: FirstLook | None = None,
        cwd_label: str | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        """Either ``agent`` (built already: the main screen is the first frame), or ``boot``:
        the first frame is the shell (``ShellScreen``, looking as ``first`` says), and
        ``boot`` builds the core in a worker right after it; a message sent before the core
        is ready is listed and sent then. A ``BootFailed`` from ``boot`` ends the app with
        ``boot_failure`` set (``cli.main`` prints it and exits with its code)."""
        super().__init__()
        if (agent is None) == (boot is None):
            raise TypeError("AgentApp needs an agent or a boot callable (one of them)")
        self.initial_prompt = initial_prompt
        self.clock = clock
        self._boot = boot
        self.booted: Booted | None = None
        """What ``boot`` built (None before, or without ``boot``)."""
        self.boot_failure: BootFailed | None = None
        """Why the core could not be built (the app has ended)."""
        self._early: list[str] = []
        """Messages sent before the core was ready, in order."""
        self._main: MainScreen | None = None
        self._trust_key = ""
        self._asking_trust = False
        """The start-up trust question is open: a message sent meanwhile waits for the answer
        (it could run without, or with, what the project turns on)."""
        self._unwatch: list[Any] = []
        self.quit_armed_at: float | None = None
        """When Ctrl+C was last pressed."""
        self.theme_keeper: ThemeKeeper | None = None
        self._mentions_stop = threading.Event()
        if agent is not None:
            # the theme before the stylesheet is parsed, as with ``boot``: set as the main
            # screen opens, it restyled every widget of a resumed session (refresh_css)
            paint_theme(self, agent.settings.ui.theme)
            self._wire(agent, session, demo=demo, cwd_label=cwd_label)
            return
        look = first or FirstLook(model="", demo=False, mode="", cwd=cwd_label or "")
        self._first = look
        self._cwd_label = cwd_label
        self.set_reactive(AgentApp.cwd, cwd_label if cwd_label is not None else look.cwd)
        self.set_reactive(AgentApp.model, look.model)
        self.set_reactive(AgentApp.demo, demo or look.demo)
        self.set_reactive(AgentApp.mode, look.mode)
        self.set_reactive(AgentApp.activity, Activity.STARTING)
        self.watch_model()
        # here, not on mount: the stylesheet is not parsed yet, so the theme costs no restyle
        # of the first frame (set on mount, its refresh_css took 130-290 ms of a loaded run)
        paint_theme(self, look.theme)

    @property
    def ready(self) -> bool:
        """The core is there (always, unless ``boot`` is still building it)."""
        return "agent" in self.__dict__

    def _wire(
        self,
        agent: Agent,
        session: SessionStart | None,
        *,
        demo: bool = False,
        cwd_label: str | None = None,
        show: bool = True,
    ) -> None:
        """Wire the app to ``agent``: its calls, approvals, slash commands, type-ahead and
        ``@`` index, and (``show``) show the session ``session`` (default: the agent's own)."""
        from agent_tui.core.mentions import FileIndex, IndexWatcher, MentionCompleter
        from agent_tui.ui.approval.desk import ApprovalDesk
        from agent_tui.ui.calls.book import CallBook
        from agent_tui.ui.elicit.desk import ElicitationDesk
        from agent_tui.ui.shell.permission_modes import PermissionModes
        from agent_tui.ui.shell.slash_actions import SlashActions
        from agent_tui.ui.shell.type_ahead import TypeAhead

        self.agent = agent
        self.session = session if session is not None else agent.describe()
        self.calls = CallBook(self.clock, agent.settings.ui.auto_expand)
        self.modes = PermissionModes(self)
        """The permission mode's switches, and the approval desk's callbacks."""
        self.desk = ApprovalDesk(
            self, self.modes.describe_ask, self.modes.answered, cursor_blink=self.CURSOR_BLINK
        )
        self.elicit_desk = ElicitationDesk(self, cursor_blink=self.CURSOR_BLINK)
        """Servers' requests for input (MCP elicitation), shown one at a time."""
        from agent_tui.ui.shell.event_view import EventView

        self.event_view = EventView(self)
        """Renders the core's events: the chat, the lane, the plan, the status figures."""
        from agent_tui.ui.shell import backlog

        self.backlog = backlog.Backlog()
        """A resumed session's earlier turns not rendered in the chat yet."""
        self.slash = SlashActions.for_app(self, self)
        """Slash commands typed in the prompt (``ui/shell/slash_actions.py``)."""
        self.command_registry = self.slash.registry
        self.type_ahead = TypeAhead(
            agent.settings.ui.type_ahead,
            agent.inbox,
            send=self.send,
            say=lambda text, kind: self.main.chat.add_notice(text, kind),
            warn=lambda text: self.notify(text, severity="warning"),
        )
        """Messages sent while a turn runs (shown under the prompt)."""
        reads = agent.policy.reads
        self.mention_index = FileIndex(agent.cwd, lambda real: reads.withheld(Path(real)) is None)
        """The workspace's paths for the ``@`` picker, built in a worker after the first frame."""
        self.mention_watcher = IndexWatcher(self.mention_index)
        self.mention_completer: Completer = MentionCompleter(
            self.mention_index, agent.mention_resources
        )
        """The ``@`` side of the prompt's completion menu (``core.completion``)."""
        if show:
            self._show_start(demo=demo, cwd_label=cwd_label)

    def _show_start(self, *, demo: bool = False, cwd_label: str | None = None) -> None:
        """The session's model, mode, tokens and cwd in the status bar and the title."""
        self.set_reactive(
            AgentApp.cwd, cwd_label if cwd_label is not None else shorten_home(self.agent.cwd)
        )
        self._take(self.session)
        self.set_reactive(AgentApp.demo, demo or self.session.demo)
        self.watch_model()

    # -- wiring ----------------------------------------------------------------------------

    @property
    def main(self) -> MainScreen:
        """The main screen (chat, lane, prompt, status), wherever the screen stack is."""
        assert self._main is not None, "the app is not mounted yet"
        return self._main

    def _status_bar(self) -> StatusBar:
        """A status bar bound to the app's state (made where it is mounted: data binds to the
        app's reactives)."""
        return StatusBar(id="status").data_bind(
            AgentApp.model,
            AgentApp.demo,
            AgentApp.mode,
            AgentApp.activity,
            AgentApp.retry_until,
            AgentApp.input_tokens,
            AgentApp.output_tokens,
            AgentApp.context_tokens,
            AgentApp.context_window,
            AgentApp.context_estimated,
            AgentApp.cwd,
            AgentApp.mcp_connected,
            AgentApp.mcp_failed,
            AgentApp.mcp_connecting,
            AgentApp.sandbox,
            AgentApp.sandbox_warn,
        )

    async def on_event(self, event: events.Event) -> None:
        # a one-key question takes its key as the app reads it (``route_key``): in a burst,
        # the keys after the answer go on to the prompt, in order
        if isinstance(event, (events.Key, events.Paste)) and route_key(self, event, self._main):
            return
        await super().on_event(event)

    async def on_mount(self) -> None:
        if self._boot is None:
            await self._open()
            return
        prompt = PromptInput(cursor_blink=self.CURSOR_BLINK, id="prompt").data_bind(AgentApp.busy)
        status = ShellStatus(id="status").data_bind(
            AgentApp.model, AgentApp.demo, AgentApp.mode, AgentApp.activity, AgentApp.cwd
        )
        await self.push_screen(ShellScreen(status=status, prompt=prompt))
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """Build the core (in a thread) and complete the shell with its footer."""
        self._boot_core()
        if isinstance(self.screen, ShellScreen):
            self.screen.add_footer()

    @work(group="boot", exit_on_error=False, name="boot")
    async def _boot_core(self) -> None:
        """Build the core in a thread (its imports and files would hold up the frames), then
        open the main screen on it; a failure to build it ends the app (``boot_failure``)."""
        assert self._boot is not None
        try:
            booted = await asyncio.to_thread(self._boot)
        except BootFailed as failure:
            self.boot_failure = failure
            self.exit(return_code=failure.code)
            return
        except Exception as exc:  # a bug, not the user's input: said as such, nothing hidden
            log.exception("start-up failed")
            self.boot_failure = BootFailed(f"start-up failed: {type(exc).__name__}: {exc}", 1)
            self.exit(return_code=1)
            return
        self.booted = booted
        self._wire(booted.agent, booted.start, show=False)  # shown as the main screen opens
        await self._open()

    async def _open(self) -> None:
        """Open the main screen on the agent (replacing the shell, with what was typed in its
        prompt), show the session, start the MCP servers, the sandbox probe, the ``@`` index;
        then the project's trust dialog, or the first message."""
        from agent_tui.core.commands import SlashCompleter
        from agent_tui.ui.elicit.desk import attach as attach_elicitation
        from agent_tui.ui.shell.events_bridge import watch_sources
        from agent_tui.ui.shell.main_screen import MainScreen
        from agent_tui.ui.shell.queued_messages import QueuedMessages
        from agent_tui.ui.shell.themes import ThemeKeeper, install_themes

        problems = install_themes(self, chosen=self.agent.settings.ui.theme)
        self.theme_keeper = ThemeKeeper(self, self.agent.settings.ui)
        prompt = PromptInput(
            cursor_blink=self.CURSOR_BLINK,
            completers=[SlashCompleter(self.command_registry), self.mention_completer],
            id="prompt",
        ).data_bind(AgentApp.busy)
        queued = QueuedMessages(self.type_ahead, id="queued").data_bind(AgentApp.busy)
        self._main = MainScreen(self.clock, status=self._status_bar(), prompt=prompt, queued=queued)
        shell = self.screen if isinstance(self.screen, ShellScreen) else None
        if shell is not None:  # the first frame was the shell: the main screen takes its place
            typed = shell.prompt
            text, cursor, history = typed.text, typed.cursor_location, typed.prompt_history
            # before the switch: the main screen's header mounts with the title it keeps (a
            # title changed while a header mounts or goes away reaches it half built)
            self._show_start(cwd_label=self._cwd_label)
            self.activity = Activity.IDLE
            await self.switch_screen(self._main)
            prompt.prompt_history = list(history)
            prompt.load_text(text)
            prompt.move_cursor(cursor)
        else:
            await self.push_screen(self._main)
        warnings = [*self.session.warnings, *problems]
        await self.main.chat.greet(
            warnings,
            demo=self.demo and not self.agent.messages,
            memory=[m.path for m in self.session.memory],
        )
        await self.slash.report_problems()
        if self.agent.messages:
            await self._show_transcript()
        elif self.session.forked_from:
            await self.main.chat.add_notice(
                f"Forked session {self.session.forked_from} into session "
                f"{self.session.session_id} · no messages",
                "info",
            )
        if self.tunes_gc:
            from agent_tui.ui.shell import heap

            self.call_after_refresh(heap.quiet)
        if not self.is_headless:  # a process of its own (tests share theirs)
            from agent_tui.ui.shell import screen_actions

            self.call_after_refresh(screen_actions.preload, self)  # the screens opened later
        self._unwatch = watch_sources(self.agent.tool_sources, self)
        self._unwatch += attach_elicitation(self.elicit_desk, self.agent.tool_sources)
        self._count_sources()
        self._start_tool_sources()
        if self.SHOW_SANDBOX:
            self._probe_sandbox()
        self.call_after_refresh(self._index_mentions)  # after the first frame
        trust = self.agent.trust
        if trust is not None and trust.pending:  # the project's files ask to turn things on
            from agent_tui.ui.shell.key_question import pressed_key
            from agent_tui.ui.shell.trust_dialog import TrustDialog

            items = list(trust.pending)
            self._asking_trust = True
            dialog = TrustDialog(items, self.agent.cwd)

            def answered(yes: bool | None) -> None:
                self._trust_key = pressed_key(dialog)
                self._trust_answered(items, yes)

            await self.push_screen(dialog, answered)
        else:
            self._send_first()

    def _send_first(self) -> None:
        """The message given on the command line, then those sent before the core was ready
        (the first starts a turn; the others queue behind it as type-ahead does)."""
        first = [self.initial_prompt] if self.initial_prompt else []
        early, self._early = self._early, []
        for text in [*first, *early]:
            self.send(text)

    def _trust_answered(self, items: list[TrustItem], yes: bool | None) -> None:
        self._asking_trust = False
        self.run_worker(self._apply_trust(items, bool(yes)), group="trust", exit_on_error=False)

    async def _apply_trust(self, items: list[TrustItem], yes: bool) -> None:
        if yes:
            said = await self.agent.trust_project(items)
            mode = self.agent.policy.mode
            if mode is not None:
                self.mode = mode.value
            self.notify(said or "trusted")
        else:
            pressed = self._trust_key
            self.notify(
                f"Started without {len(items)} item{'s' if len(items) != 1 else ''} of the "
                f"project{f' ({pressed})' if pressed else ''}; `agent-tui trust` reviews them "
                "later.",
                severity="warning",
            )
        self._send_first()

    def on_unmount(self) -> None:
        """Stop following the tool sources (the MCP manager may outlive the app); give what
        the app froze back to the collector (a process may go on: tests, benchmarks)."""
        if self.tunes_gc:
            from agent_tui.ui.shell import heap

            heap.release()
        self._mentions_stop.set()
        for stop in self._unwatch:
            stop()
        self._unwatch.clear()

    @work(group="tool-sources", exit_on_error=False, name="start-tool-sources")
    async def _start_tool_sources(self) -> None:
        """Start connecting MCP servers at launch, in the background (``startup``)."""
        from agent_tui.ui.shell import startup

        await startup.start_tool_sources(self.agent)

    @work(thread=True, group="mentions", exit_on_error=False, name="mention-index")
    def _index_mentions(self) -> None:
        """Walk the workspace for the ``@`` picker, then keep the index current until the app
        ends (``core.mentions``)."""
        self.mention_index.build(self._mentions_stop)
        if not self._mentions_stop.is_set():
            self.mention_watcher.run(self._mentions_stop)

    @work(thread=True, group="sandbox", exit_on_error=False, name="probe-sandbox")
    def _probe_sandbox(self) -> None:
        """Find out (bubblewrap starts a process) where commands will run: the status bar says
        it; the first launch where the sandbox cannot work says why, once."""
        from agent_tui.core.state.notices import first_time

        state = self.agent.executor.sandbox.state
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
        self.call_from_thread(self._show_sandbox, label, state.shell is None, notice, state)

    def _show_sandbox(
        self, label: str, unconfined: bool, notice: str | None, state: SandboxState
    ) -> None:
        self.sandbox = label
        self.sandbox_warn = unconfined and state.mode != "off"
        self.main.status.sandbox_tooltip = state.describe()
        if notice is not None:
            self.run_worker(self.main.chat.add_notice(notice, "warning"), group="notice")

    def on_server_logged(self, event: ServerLogged) -> None:
        """An MCP server's error (or worse) log message, once, as a notice (the panel's
        Server log section keeps it with the others)."""
        entry = event.entry
        text = entry.text if len(entry.text) <= 300 else entry.text[:299] + "…"
        about = f"{entry.level} from {entry.logger}" if entry.logger else entry.level
        self.notify(
            f"{about}: {text}\nctrl+g, then 4: the server log",
            title=f"MCP {entry.server}",
            severity="error",
            markup=False,
        )

    def on_sources_changed(self) -> None:
        self._count_sources()

    def _count_sources(self) -> None:
        states = [
            state.status
            for source in self.agent.tool_sources
            for state in (getattr(source, "states", list)() or [])
        ]
        self.mcp_connected = states.count("connected")
        self.mcp_failed = states.count("failed")
        self.mcp_connecting = states.count("connecting")

    # -- the session -----------------------------------------------------------------------

    def _take(self, start: SessionStart) -> None:
        """Show the session ``start`` describes: model, demo, mode, tokens."""
        self.session = start
        self.model = model_label(start.model)
        self.demo = start.demo
        self.mode = start.permission_mode if self.agent.policy.mode is not None else ""
        self.input_tokens = self.agent.usage.input_tokens
        self.output_tokens = self.agent.usage.output_tokens
        context = self.agent.context() if self.agent.messages else None  # a resumed transcript
        self.context_tokens = context.tokens if context is not None else 0
        self.context_window = context.window if context is not None else 0
        self.context_estimated = context.estimated if context is not None else False

    def watch_model(self) -> None:
        self.sub_title = f"{self.model} · offline demo" if self.demo else self.model

    watch_demo = watch_model

    async def _reset_views(self) -> None:
        from agent_tui.ui.shell import backlog

        self.event_view.note_transcript()
        self.workers.cancel_group(self, "backlog")
        self.backlog.ready.set()  # nothing waits for a backlog no longer shown
        self.backlog = backlog.Backlog()
        self.calls.clear()
        await self.main.chat.clear()
        await self.main.lane.clear()
        self.main.plan.clear()
        if self.tunes_gc:  # the old session's views were frozen with the heap: free them
            from agent_tui.ui.shell import heap

            heap.thaw()
            # once nothing holds the removed widgets any more (the screen lets them go over
            # the next frames, as their removal is processed)
            self.set_timer(REFREEZE_AFTER, heap.refreeze, name="refreeze")

    async def _show_transcript(self, notice: str | None = None) -> None:
        """The transcript of a resumed session, told again as the events that made it and
        rendered exactly as a live turn is (``core.replay``), then a notice (``notice``, or
        which session was resumed)."""
        from agent_tui.core.conversation.replay import transcript_events, turn_starts
        from agent_tui.ui.shell import backlog

        messages = self.agent.messages
        lane = self.main.lane
        history = self.agent.history()
        # the last turns are rendered now; the earlier ones are read after the first frame
        starts = turn_starts(history)
        hidden = len(starts) - backlog.RESUME_TURNS if len(starts) > backlog.ALL_TURNS else 0
        cut = starts[hidden] if hidden else 0
        self.backlog = backlog.Backlog(turns=hidden)
        await self.main.chat.set_earlier(self.backlog.turns)
        lane.hold(True)  # earlier turns fold as the next begins: never mount their cards
        collecting = gc.isenabled()
        gc.disable()  # what the replay makes lives on: full collections would only walk it
        try:
            for event in transcript_events(history, start=cut):
                await self.event_view.show(event)
        finally:
            if self.tunes_gc:  # and collections after it too: it leaves them nothing to find
                from agent_tui.ui.shell import heap

                heap.freeze()
            if collecting:
                gc.enable()
            lane.hold(False)
        if cut:  # after the frame that shows the last turns
            earlier = transcript_events(history, stop=cut)
            self.call_after_refresh(
                self.run_worker,
                self._fill_backlog(self.backlog, earlier),
                group="backlog",
                exit_on_error=False,
            )
        await lane.settle()
        if notice is None:
            which = f"session {self.session.session_id}" if self.session.session_id else "session"
            notice = f"Resumed {which} · {len(messages)} messages"
            if self.session.forked_from:
                notice = (
                    f"Forked session {self.session.forked_from} into {which} · "
                    f"{len(messages)} messages (the original stays as it was)"
                )
        await self.main.chat.add_notice(notice, "info")

    async def _fill_backlog(self, earlier: Backlog, events: Iterator[Event]) -> None:
        """Read a resumed session's earlier turns into the call model and the backlog, then
        list them in the lane (after the first frame: the app answers keys meanwhile)."""
        plan_shown = self.main.plan.plan is not None
        await earlier.fill(events, self.calls)
        if earlier is not self.backlog:  # another session was shown meanwhile
            return
        await self.main.lane.add_earlier(earlier.lane)
        if earlier.plan is not None and not plan_shown and self.main.plan.plan is None:
            self.main.plan.show(earlier.plan)
        if self.tunes_gc:  # the earlier turns live as long as the session is shown
            from agent_tui.ui.shell import heap

            heap.freeze()

    @property
    def tunes_gc(self) -> bool:
        """Whether the app tunes the garbage collector (``shell.heap``): it does in a
        process of its own; tests share theirs (``QUIET_GC`` decides when set)."""
        return self.QUIET_GC if self.QUIET_GC is not None else not self.is_headless

    async def new_session(self) -> bool:
        """A new conversation: the model starts with an empty context (a new session file;
        the old one can be resumed)."""
        try:
            start = await self.agent.new_session()
        except _busy() as busy:
            self.notify(str(busy), severity="warning")
            return False
        self._take(start)
        await self._reset_views()
        await self.main.chat.add_notice(
            f"New conversation · session {start.session_id} (the model starts from scratch)",
            "info",
        )
        await self.type_ahead.drop("a new conversation starts empty")
        return True

    async def resume(self, path: Path) -> bool:
        """Load the session file ``path`` and continue it."""
        try:
            start = await self.agent.resume(path)
        except _busy() as busy:
            self.notify(str(busy), severity="warning")
            return False
        except OSError as exc:
            self.notify(f"Cannot read {path}: {exc.strerror or exc}", severity="error")
            return False
        self._take(start.model_copy(update={"resumed": True}))
        await self._reset_views()
        for warning in start.warnings:
            await self.main.chat.add_notice(warning, "warning")
        await self._show_transcript()
        await self.type_ahead.drop("another session was resumed")
        return True

    async def switch_model(self, spec: str) -> bool:
        """Use the model ``spec`` from the next turn on (the transcript is kept)."""
        from agent_tui.core.providers.base import ProviderError

        try:
            start = await self.agent.switch_model(spec)
        except _busy() as busy:
            self.notify(str(busy), severity="warning")
            return False
        except ProviderError as exc:
            self.notify(str(exc), title="Cannot switch the model", severity="error")
            return False
        self._take(start)
        await self.main.chat.add_notice(f"Model: {start.model}", "info")
        return True

    # -- sending ---------------------------------------------------------------------------

    def send(self, text: str) -> bool:
        """Start a turn with ``text``; while a turn runs it is queued (``type_ahead``). A
        slash command runs instead (``SlashActions.route``; ``//x`` sends ``/x``). Before the
        core is ready it is listed on the shell and sent once the core is there."""
        if not self.ready or self._asking_trust:
            self._early.append(text)
            if isinstance(self.screen, ShellScreen):
                self.run_worker(self.screen.show_queued(text), group="notice")
            elif self._asking_trust:
                self.notify("Sent once you answer the question about the project's settings.")
            return True
        from agent_tui.ui.shell.slash_actions import escape

        routed = self.slash.route(text)
        if not isinstance(routed, str):
            return routed
        if self.busy:  # queued as typed after routing: sent later, it routes to the same text
            self.type_ahead.add(escape(routed))
            return True
        text = routed
        if self.agent.rewinding:
            self.notify("A rewind is in progress: send it when it is done.", severity="warning")
            return False
        self.busy = True
        self.event_view.set_activity(Activity.THINKING)
        self._run_turn(text)
        return True

    def compact(self, focus: str = "") -> bool:
        """Fold the conversation into a summary (``/compact [focus]``): like a turn, it runs
        on the agent worker, shows in the chat, and Esc stops it (nothing changes then)."""
        if self.busy:
            self.notify("A turn is running: compact when it ends.", severity="warning")
            return False
        self.busy = True
        self.event_view.set_activity(Activity.THINKING)
        self._run_compaction(focus)
        return True

    @work(exclusive=True, group="agent", exit_on_error=False, name="agent-compact")
    async def _run_compaction(self, focus: str) -> None:
        from agent_tui.ui.shell.events_bridge import forward

        await forward(self.agent.compact(focus), self)

    @on(PromptInput.Submitted)
    def _submitted(self, event: PromptInput.Submitted) -> None:
        if self.send(event.text):
            event.input.commit()

    @work(exclusive=True, group="agent", exit_on_error=False, name="agent-turn")
    async def _run_turn(self, prompt: str) -> None:
        from agent_tui.ui.shell.events_bridge import forward

        await forward(self.agent.run(prompt, asker=self.desk.ask), self)

    # -- events ----------------------------------------------------------------------------

    async def on_agent_event(self, message: AgentEvent) -> None:
        if not self._showing():  # an event of a turn still ending while the app shuts down
            return
        try:
            await self.event_view.show(message.event)
        except NoMatches:
            if self._showing():
                raise
        self.event_view.note_transcript()

    def _showing(self) -> bool:
        """The main screen is up (not yet, or no longer while the app shuts down)."""
        main = self._main
        return main is not None and main.is_attached and main.is_running and self.is_running

    async def on_earlier_turns_load(self, event: EarlierTurns.Load) -> None:
        """Render a page of a resumed session's earlier turns above the ones shown, keeping
        what the user looks at in place."""
        event.stop()
        chat, earlier = self.main.chat, self.backlog
        if not earlier.ready.is_set():  # still being read: load once it is (never wait here)
            self.run_worker(self._load_when_ready(earlier), group="backlog", exit_on_error=False)
            return
        page = earlier.take_page()
        if chat.earlier is None or not page or earlier is not self.backlog:
            return
        height = chat.virtual_size.height
        chat.insert_before = chat.after_earlier()
        try:
            for events in page:
                for replayed in events:
                    calls = self.event_view.calls_of(replayed)
                    await self.event_view.show_in_chat(replayed, calls)
        finally:
            chat.insert_before = None
        await chat.set_earlier(len(earlier.chat))

        def keep_place() -> None:
            chat.scroll_to(
                y=chat.scroll_y + chat.virtual_size.height - height,
                animate=False,
                immediate=True,
            )

        chat.call_after_refresh(keep_place)

    async def _load_when_ready(self, earlier: Backlog) -> None:
        await earlier.ready.wait()
        if earlier is self.backlog:
            self.post_message(EarlierTurns.Load())

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            worker_failed(self, event.worker)
        if event.worker.group != "agent" or not event.worker.is_finished:
            return
        if not self._showing():
            return
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            await self.main.chat.add_error(
                "internal error", f"{type(error).__name__}: {error}" if error else "unknown"
            )
        elif event.state is WorkerState.CANCELLED and self.busy:
            await self.main.chat.add_notice("Cancelled", "warning")
        await self.event_view.end_turn()
        await self.type_ahead.turn_over(self.busy)  # the next queued message, or why not

    async def on_tool_line_selected(self, event: ToolLine.Selected) -> None:
        if not await self.main.lane.reveal(event.call_id):
            self.notify("That call has no card in the lane any more.")

    def on_tool_card_open_spill(self, event: ToolCard.OpenSpill) -> None:
        spill = event.card.call.spill
        self.action_open_spill(spill.path if spill is not None else "")

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.ready:  # the shell, while the core is built: quitting, and typing
            return action in ("quit", "ctrl_c")
        if action == "interrupt":
            return True if self.busy else None
        if action in ("new_session", "clear_screen"):
            return None if self.busy else True
        return True

    async def action_quit(self) -> None:
        """Stop the turn, close the agent (spill cleanup, provider), then exit."""
        if self.theme_keeper is not None:  # a theme picked a moment ago is kept
            self.theme_keeper.save_now()
        if not self.ready:  # the core is still being built: nothing of it to close
            self.exit()
            return
        if self.busy:
            self.agent.interrupt()
        try:
            await asyncio.wait_for(self.agent.close(), CLOSE_TIMEOUT)
        except TimeoutError:
            pass
        self.exit()

    async def action_ctrl_c(self) -> None:
        """First press: interrupt the running turn and arm; a second press soon after quits."""
        now = time.monotonic()
        if self.quit_armed_at is not None and now - self.quit_armed_at <= QUIT_WINDOW:
            await self.action_quit()
            return
        self.quit_armed_at = now
        self.action_interrupt()
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW)

    def action_cycle_mode(self) -> None:
        """Next permission mode (``PermissionModes.cycle``)."""
        self.modes.cycle()

    def set_mode(self, mode: Mode, *, otherwise: Mode | None = None) -> None:
        """Switch the permission mode (``PermissionModes.set_mode``: bypass is confirmed)."""
        self.modes.set_mode(mode, otherwise=otherwise)

    def action_interrupt(self) -> None:
        if self.busy:
            self.agent.interrupt()
            self.event_view.set_activity(Activity.INTERRUPTING)

    async def action_new_session(self) -> None:
        """Ctrl+L: a new conversation (the model forgets this one)."""
        await self.new_session()

    async def action_clear_screen(self) -> None:
        """Clear the chat and the lane; the model keeps its context (the palette)."""
        if self.busy:
            return
        await self._reset_views()
        await self.main.chat.add_notice(
            "Screen cleared · the model still has the whole conversation (ctrl+l starts a new one)",
            "muted",
        )

    def action_command(self, name: str) -> None:
        """Run the slash command ``name`` with no arguments (the palette's entries)."""
        self.slash.run_name(name)

    def action_toggle_lane(self) -> None:
        self.main.action_toggle_lane()

    def action_open_spill(self, path: str = "") -> None:
        """Open the spill browser: on ``path`` (a card's spill pointer) at line 1, or on the
        newest spill."""
        from agent_tui.ui.shell import screen_actions

        screen_actions.open_spill(self, self.agent, path, cursor_blink=self.CURSOR_BLINK)

    def action_mcp_panel(self) -> None:
        """Open the MCP panel: servers, their status and their tools (closes it when open)."""
        from agent_tui.ui.shell import screen_actions

        screen_actions.mcp_panel(self, self.agent)

    def action_pick_model(self) -> None:
        palette.pick_model(self, self.agent.provider.name, self.switch_model)

    def action_pick_mode(self) -> None:
        current = self.agent.policy.mode
        if current is None:
            self.notify("Permission modes are not available with this policy.")
            return
        palette.pick_mode(self, current, self.set_mode)

    @work(group="sessions", exclusive=True, exit_on_error=False, name="list-sessions")
    async def action_pick_session(self) -> None:
        from agent_tui.ui.shell.session_list import sessions_of

        found = await asyncio.to_thread(sessions_of, self.agent.sessions, self.agent.cwd)
        current = self.agent.session.id if self.agent.session is not None else None
        palette.pick_session(self, found, current, self._resume_summary)

    async def _resume_summary(self, summary: SessionSummary) -> None:
        await self.resume(summary.path)

    # -- rewind and fork -------------------------------------------------------------------

    async def action_rewind(self) -> None:
        """Open the rewind picker: go back to before a turn (its code, the conversation or
        both), with a preview of what that does to each file."""
        if self.busy or self.agent.rewinding:
            self.notify("A turn is running: rewind after it ends (Esc interrupts it).")
            return
        from agent_tui.ui.shell import rewind

        await self.agent.settle()  # the last turn's last scan (a moment at most)
        rewind.open_picker(self, self.agent, self._rewind_chosen)

    def _rewind_chosen(self, choice: RewindChoice | None) -> None:
        if choice is not None:
            self._rewind(choice)

    @work(group="rewind", exclusive=True, exit_on_error=False, name="rewind")
    async def _rewind(self, choice: RewindChoice) -> None:
        from agent_tui.core.agent.agent import AgentBusy
        from agent_tui.core.conversation.rewind import RewindError
        from agent_tui.ui.shell import rewind

        try:
            report = await self.agent.rewind(
                choice.turn.id, choice.what, overwrite=choice.overwrite
            )
        except (AgentBusy, RewindError) as exc:
            self.notify(str(exc), title="Cannot rewind", severity="warning")
            return
        except OSError as exc:
            self.notify(f"{exc.strerror or exc}", title="Rewind failed", severity="error")
            return
        notice = rewind.report_notice(report)
        if choice.what != "code":
            self._take(self.agent.describe().model_copy(update={"resumed": True}))
            await self._reset_views()
            if self.agent.messages:
                await self._show_transcript(notice)
            else:
                await self.main.chat.add_notice(notice, "info")
            prompt = self.main.prompt
            prompt.load_text(report.prompt)
            prompt.move_cursor(prompt.document.end)
            prompt.focus()
        else:
            await self.main.chat.add_notice(notice, "info")
        for warning in rewind.report_warnings(report):
            await self.main.chat.add_notice(warning, "warning")

    async def action_fork(self) -> None:
        """Continue in a copy of this session (a new id); the original stays as it was."""
        from agent_tui.core.agent.agent import AgentBusy
        from agent_tui.core.conversation.rewind import RewindError

        old = self.session.session_id
        try:
            start = await self.agent.fork()
        except (AgentBusy, RewindError) as exc:
            self.notify(str(exc), title="Cannot fork", severity="warning")
            return
        except OSError as exc:
            self.notify(f"{exc.strerror or exc}", title="Fork failed", severity="error")
            return
        self._take(start)
        await self.main.chat.add_notice(
            f"Forked session {old} into session {start.session_id}: the same conversation "
            f"goes on here; {old} stays as it was (resume it from the palette).",
            "info",
        )


def _busy() -> type[Exception]:
    """``AgentBusy`` (imported when an exception is matched: the first frame does without)."""
    from agent_tui.core.agent.agent import AgentBusy

    return AgentBusy
