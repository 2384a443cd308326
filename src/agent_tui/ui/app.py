"""``AgentApp``: wires the agent loop (on a worker) to the chat, the tool lane and the prompt.

The loop runs in the ``agent`` worker group; every core event arrives as one ``AgentEvent`` and
is rendered by ``show_event`` (a resumed transcript too, told again as events). The session's
state (model, mode, busy, demo, tokens, MCP counts) lives in reactives here, bound by the status
bar and the prompt. Session changes are the core agent's, each answering a ``SessionStart``.
Asks queue at the ``ApprovalDesk``; a crash of the worker is shown and the app keeps running.
Each concept it wires is a collaborator under ``ui/shell`` naming what it uses of the app in a
protocol (``Opening``, ``Background``, ``Turns``, ``SessionChanges``, ``SlashActions``, ...).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from agent_tui.ui.common.format import shorten_home
from agent_tui.ui.shell import heap, palette, screen_actions
from agent_tui.ui.shell.activity import Activity
from agent_tui.ui.shell.appending_stylesheet import AppendingStylesheet
from agent_tui.ui.shell.background import Background
from agent_tui.ui.shell.boot import Boot, Booted, BootFailed, FirstLook, build, paint_theme
from agent_tui.ui.shell.opening import Opening
from agent_tui.ui.shell.quitting import Quitting
from agent_tui.ui.shell.shell_screen import ShellScreen
from agent_tui.ui.shell.shell_status import ShellStatus
from agent_tui.ui.shell.turns import Turns
from agent_tui.ui.shell.worker_failure import worker_failed

if TYPE_CHECKING:
    from collections.abc import Callable

    # The core, and the widgets that render it, are imported where they are used: the first
    # frame (``ShellScreen``) needs none of them (``tests/ui/test_controls.py`` checks it).
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.commands.grants import CommandRun
    from agent_tui.core.events import SessionStart
    from agent_tui.core.permissions import Mode
    from agent_tui.core.text.completion import Completer
    from agent_tui.ui.calls.book import Clock
    from agent_tui.ui.chat.earlier_turns import EarlierTurns
    from agent_tui.ui.chat.tool_line import ToolLine
    from agent_tui.ui.lane.tool_card import ToolCard
    from agent_tui.ui.shell.backlog import Backlog
    from agent_tui.ui.shell.events_bridge import AgentEvent, ServerLogged
    from agent_tui.ui.shell.main_screen import MainScreen
    from agent_tui.ui.shell.prompt_input import PromptInput
    from agent_tui.ui.shell.session_changes import SessionChanges
    from agent_tui.ui.shell.session_views import SessionViews
    from agent_tui.ui.shell.status_bar import StatusBar
    from agent_tui.ui.shell.themes import ThemeKeeper


class AgentApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "agent-tui"
    COMMANDS = {palette.AgentCommands}  # ours, then Textual's (one provider: ours first)
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
    sandbox_warn: reactive[bool] = reactive(False)  # unconfined though a sandbox is asked for

    agent: Agent
    """The core agent (with ``boot``: there once the core is built, see ``ready``)."""
    keys_before_start: Callable[[], str] | None = None
    """What was typed before the driver starts (``cli.start_keys.typed_ahead``): its keys
    are posted first, as the app loads."""

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
        the first frame is the shell (``ShellScreen``, looking as ``first`` says), and ``boot``
        builds the core in a worker right after it; a message sent before it is ready is listed
        and sent then. A ``BootFailed`` from ``boot`` ends the app (``boot_failure`` set)."""
        super().__init__()
        self.stylesheet = AppendingStylesheet.taking_over(self.stylesheet)  # parsed appending
        if (agent is None) == (boot is None):
            raise TypeError("AgentApp needs an agent or a boot callable (one of them)")
        self.initial_prompt = initial_prompt
        self.clock = clock
        self._boot = boot
        self.booted: Booted | None = None
        """What ``boot`` built (None before, or without ``boot``)."""
        self.boot_failure: BootFailed | None = None
        """Why the core could not be built (the app has ended)."""
        self._main: MainScreen | None = None
        self._cwd_label = cwd_label
        self.theme_keeper: ThemeKeeper | None = None
        self.opening = Opening(self, self)
        """The main screen's opening, and the messages sent before it."""
        self.background = Background(self, self)
        """MCP servers, the ``@`` index and the sandbox probe, beside the conversation."""
        self.turns = Turns(self, self)
        """Messages sent, compactions, Esc: the agent's turns on the ``agent`` worker."""
        self.quitting = Quitting(self, self)
        if agent is not None:
            # the theme before the stylesheet is parsed, as with ``boot``: set as the main
            # screen opens, it restyled every widget of a resumed session (refresh_css)
            paint_theme(self, agent.settings.ui.theme)
            self._wire(agent, session, demo=demo, cwd_label=cwd_label)
            return
        look = first or FirstLook(model="", demo=False, mode="", cwd=cwd_label or "")
        self.set_reactive(AgentApp.cwd, cwd_label if cwd_label is not None else look.cwd)
        self.set_reactive(AgentApp.model, look.model)
        self.set_reactive(AgentApp.demo, demo or look.demo)
        self.set_reactive(AgentApp.mode, look.mode)
        self.set_reactive(AgentApp.activity, Activity.STARTING)
        self.watch_model()
        # here, not on mount: the stylesheet is not parsed yet (no restyle: ``paint_theme``)
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
        from agent_tui.ui.shell.session_changes import SessionChanges
        from agent_tui.ui.shell.session_views import SessionViews
        from agent_tui.ui.shell.slash_actions import SlashActions
        from agent_tui.ui.shell.type_ahead import TypeAhead

        self.agent = agent
        self.session = session if session is not None else agent.describe()
        self.calls = CallBook(self.clock, agent.settings.ui.auto_expand)
        self.modes = PermissionModes(self, cursor_blink=self.CURSOR_BLINK)
        """The permission mode's switches, and the approval desk's callbacks."""
        self.desk = ApprovalDesk(
            self, self.modes.describe_ask, self.modes.answered, cursor_blink=self.CURSOR_BLINK
        )
        self.elicit_desk = ElicitationDesk(self, cursor_blink=self.CURSOR_BLINK)
        """Servers' requests for input (MCP elicitation), shown one at a time."""
        from agent_tui.ui.shell.event_view import EventView

        self.event_view = EventView(self)
        """Renders the core's events: the chat, the lane, the plan, the status figures."""
        self.views: SessionViews = SessionViews(self, self)
        """The session as the main screen shows it: a transcript, the backlog, clearing."""
        self.changes: SessionChanges = SessionChanges(self, self)
        """New conversation, resume, model switch, fork and rewind."""
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
        """The ``@`` side of the prompt's completion menu (``core.text.completion``)."""
        if show:
            self.show_start(demo=demo, cwd_label=cwd_label)

    def show_start(self, *, demo: bool = False, cwd_label: str | None = None) -> None:
        """The session's model, mode, tokens and cwd in the status bar and the title."""
        self.set_reactive(
            AgentApp.cwd, cwd_label if cwd_label is not None else shorten_home(self.agent.cwd)
        )
        self.views.take(self.session)
        self.set_reactive(AgentApp.demo, demo or self.session.demo)
        self.watch_model()

    # -- wiring ----------------------------------------------------------------------------

    @property
    def main(self) -> MainScreen:
        """The main screen (chat, lane, prompt, status), wherever the screen stack is."""
        assert self._main is not None, "the app is not mounted yet"
        return self._main

    def _status_bar(self) -> StatusBar:
        """A status bar bound to the app's state (made where it is mounted: data binds)."""
        from agent_tui.ui.shell.status_bar import StatusBar  # not for the first frame

        return StatusBar(id="status").data_bind(*(getattr(AgentApp, f) for f in StatusBar.BOUND))

    async def on_event(self, event: events.Event) -> None:
        # a one-key question takes its key first (``route_key``); the rest of a burst goes on
        if isinstance(event, (events.Key, events.Paste)):
            from agent_tui.ui.shell.key_question import route_key  # not for the first frame

            if route_key(self, event, self._main):
                return
        await super().on_event(event)

    def get_default_screen(self) -> Screen[None]:
        """With ``boot``, the first frame's ``ShellScreen`` (not pushed over an empty screen)."""
        if self.tunes_gc:  # no full collection of the start-up heap in the first frame
            heap.start()
        if self._boot is None:
            return super().get_default_screen()
        bound = (AgentApp.model, AgentApp.demo, AgentApp.mode, AgentApp.activity, AgentApp.cwd)
        return ShellScreen.first(self, ShellStatus(id="status").data_bind(*bound))

    def on_load(self) -> None:  # the driver starts next: the keys typed so far go first
        if self.keys_before_start is not None:
            from agent_tui.ui.shell.typed_ahead import post_typed_ahead

            post_typed_ahead(self, self.keys_before_start())

    async def on_mount(self) -> None:
        if isinstance(shell := self.screen, ShellScreen):
            await shell.mounted()  # with its widgets: the first frame is the next one
            self.call_after_refresh(self._after_first_frame)
        else:
            await self._open()

    async def _after_first_frame(self) -> None:
        """The shell's real prompt (``swap_prompt``), the core built in a thread, the footer."""
        from agent_tui.ui.shell.prompt_input import PromptInput

        if isinstance(shell := self.screen, ShellScreen):
            prompt = PromptInput(cursor_blink=self.CURSOR_BLINK, id="prompt")
            await shell.swap_prompt(prompt.data_bind(AgentApp.busy))
        if self.tunes_gc:
            heap.one_arena()  # before the core's thread: one malloc arena for all threads
        self._boot_core()
        if isinstance(self.screen, ShellScreen):
            self.screen.add_footer()

    @work(group="boot", exit_on_error=False, name="boot")
    async def _boot_core(self) -> None:
        """Build the core in a thread (its imports and files would hold up the frames), then
        open the main screen on it; a failure to build it ends the app (``boot_failure``)."""
        assert self._boot is not None
        try:
            booted = await build(self._boot)
        except BootFailed as failure:
            self.boot_failure = failure
            self.exit(return_code=failure.code)
            return
        self.booted = booted
        self._wire(booted.agent, booted.start, show=False)  # shown as the main screen opens
        await self._open()

    async def _open(self) -> None:
        """Open the main screen on the agent (replacing the shell, with what was typed in its
        prompt), then what opens with it (``Opening.show``): the session, the MCP servers,
        the sandbox probe, the ``@`` index; then the project's trust dialog, or the first
        message."""
        from agent_tui.core.commands import SlashCompleter
        from agent_tui.ui.shell.main_screen import MainScreen
        from agent_tui.ui.shell.prompt_input import PromptInput
        from agent_tui.ui.shell.queued_messages import QueuedMessages

        self.opening.install_themes()
        prompt = PromptInput(
            cursor_blink=self.CURSOR_BLINK,
            completers=[SlashCompleter(self.command_registry), self.mention_completer],
            id="prompt",
        ).data_bind(AgentApp.busy)
        queued = QueuedMessages(self.type_ahead, id="queued").data_bind(AgentApp.busy)
        self._main = MainScreen(self.clock, status=self._status_bar(), prompt=prompt, queued=queued)
        await self.opening.show(
            self._main, prompt, cwd_label=self._cwd_label, sandbox=self.SHOW_SANDBOX
        )

    def on_unmount(self) -> None:
        """Stop following the tool sources (the MCP manager may outlive the app), give the
        terminal its title back, and what the app froze to the collector (tests go on)."""
        self.turns.attention.stop()
        if self.tunes_gc:
            heap.release()
        self.background.stop()

    def on_server_logged(self, event: ServerLogged) -> None:
        self.background.server_logged(event.entry)

    def on_sources_changed(self) -> None:
        self.background.count_sources()

    # -- the session -----------------------------------------------------------------------

    def watch_model(self) -> None:
        self.sub_title = f"{self.model} · offline demo" if self.demo else self.model

    watch_demo = watch_model

    @property
    def tunes_gc(self) -> bool:
        """Whether to tune the collector (``shell.heap``): ``QUIET_GC``, else unless headless."""
        return self.QUIET_GC if self.QUIET_GC is not None else not self.is_headless

    @property
    def backlog(self) -> Backlog:
        """A resumed session's earlier turns not rendered in the chat yet."""
        return self.views.backlog

    async def new_session(self) -> bool:
        """A new conversation (``SessionChanges.new_session``)."""
        return await self.changes.new_session()

    async def resume(self, path: Path) -> bool:
        """Load the session file ``path`` and continue it (``SessionChanges.resume``)."""
        return await self.changes.resume(path)

    async def switch_model(self, spec: str) -> bool:
        """Use the model ``spec`` from the next turn on (``SessionChanges.switch_model``)."""
        return await self.changes.switch_model(spec)

    def send(self, text: str) -> bool:
        """Start a turn with ``text``, or queue it, or run the slash command (``Turns.send``)."""
        return self.turns.send(text)

    def send_command(self, prompt: str, run: CommandRun) -> bool:  # Turns.send_command
        return self.turns.send_command(prompt, run)

    def compact(self, focus: str = "") -> bool:
        """Fold the conversation into a summary (``Turns.compact``)."""
        return self.turns.compact(focus)

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        if self.turns.send(event.text, event.images):
            event.input.commit(event.sent)

    # -- events ----------------------------------------------------------------------------

    async def on_agent_event(self, message: AgentEvent) -> None:
        await self.event_view.receive(message.event)

    @property
    def showing(self) -> bool:
        """The main screen is up (not yet, or no longer while the app shuts down)."""
        main = self._main
        return main is not None and main.is_attached and main.is_running and self.is_running

    async def on_earlier_turns_load(self, event: EarlierTurns.Load) -> None:
        """Render a page of a resumed session's earlier turns (``SessionViews.load_earlier``)."""
        event.stop()
        await self.views.load_earlier()

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            worker_failed(self, event.worker)
        if event.worker.group == "agent" and event.worker.is_finished:
            await self.turns.worker_ended(event.worker, event.state)

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
        """Stop the turn, close the agent, then exit (``Quitting.quit``)."""
        await self.quitting.quit()

    async def action_ctrl_c(self) -> None:
        """Interrupt the turn; pressed again soon after, quit (``Quitting.ctrl_c``)."""
        await self.quitting.ctrl_c()

    def action_cycle_mode(self) -> None:
        """Next permission mode (``PermissionModes.cycle``)."""
        self.modes.cycle()

    def set_mode(self, mode: Mode, *, otherwise: Mode | None = None) -> None:
        """Switch the permission mode (``PermissionModes.set_mode``: bypass is confirmed)."""
        self.modes.set_mode(mode, otherwise=otherwise)

    def action_interrupt(self) -> None:
        self.turns.interrupt()

    async def action_new_session(self) -> None:
        """Ctrl+L: a new conversation (the model forgets this one)."""
        await self.new_session()

    async def action_clear_screen(self) -> None:
        await self.views.clear_screen()

    def action_command(self, name: str) -> None:
        """Run the slash command ``name`` with no arguments (the palette's entries)."""
        self.slash.run_name(name)

    def action_toggle_lane(self) -> None:
        self.main.action_toggle_lane()

    def action_open_spill(self, path: str = "") -> None:
        """Open the spill browser on ``path`` (a card's spill pointer), or on the newest."""
        screen_actions.open_spill(self, self.agent, path, cursor_blink=self.CURSOR_BLINK)

    def action_mcp_panel(self) -> None:
        """Open the MCP panel: servers, their status and their tools (closes it when open)."""
        screen_actions.mcp_panel(self, self.agent)

    def action_pick_model(self) -> None:
        palette.pick_model(self, self.agent.provider.name, self.switch_model)

    def action_pick_mode(self) -> None:
        current = self.agent.policy.mode
        if current is None:
            self.notify("Permission modes are not available with this policy.")
            return
        palette.pick_mode(self, current, self.set_mode)

    def action_pick_session(self) -> None:
        self.changes.pick_session()

    async def action_rewind(self) -> None:
        """Open the rewind picker (``SessionChanges.open_rewind``)."""
        await self.changes.open_rewind()

    async def action_fork(self) -> None:
        """Continue in a copy of this session (``SessionChanges.fork``)."""
        await self.changes.fork()
