"""Running the agent's turns from the TUI: a message sent, a compaction, Esc, the end.

``Turns.send`` routes a message (a slash command runs instead, ``SlashActions.route``),
queues it while a turn runs (``TypeAhead``), holds it before the core is ready
(``Opening.hold``), or starts a turn on the ``agent`` worker, whose events the app renders as
they come (``EventView``); ``send_command`` starts a custom command's turn with its grant and
model (never queued). ``worker_ended`` closes a turn whose worker ended (in an error,
cancelled, or done) and sends the next queued message; when none follows, the agent waits for
you, and after ``IDLE_NOTICE_SECONDS`` of that the ``Notification`` hooks of Claude Code's
``idle_prompt`` run (a hook that speaks or pings you). ``attention`` calls you back to the
terminal when a turn ends or a call waits for approval unseen (``Attention``, started with
the session: ``started``). What it uses of the app is ``TurnsHost``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from agent_tui.ui.shell.activity import Activity
from agent_tui.ui.shell.attention import Attention

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.attachments import PreparedImage
    from agent_tui.core.commands.grants import CommandRun
    from agent_tui.core.transcript import Prompt
    from agent_tui.ui.approval.desk import ApprovalDesk
    from agent_tui.ui.shell.event_view import EventView
    from agent_tui.ui.shell.main_screen import MainScreen
    from agent_tui.ui.shell.opening import Opening
    from agent_tui.ui.shell.permission_modes import PermissionModes
    from agent_tui.ui.shell.slash_actions import SlashActions
    from agent_tui.ui.shell.type_ahead import TypeAhead

IDLE_NOTICE_SECONDS = 60.0
"""How long the agent waits for you after a turn before the ``idle_prompt`` notification
(Claude Code's default)."""
IDLE_MESSAGE = "agent-tui is waiting for your input"


class TurnsHost(Protocol):
    """What of the app (``AgentApp``) a turn uses: the agent and its approval desk, whether
    the core is there and a turn runs, the routing, queueing and rendering of messages."""

    agent: Agent
    busy: bool
    desk: ApprovalDesk
    modes: PermissionModes
    slash: SlashActions
    type_ahead: TypeAhead
    event_view: EventView
    opening: Opening

    @property
    def ready(self) -> bool: ...

    @property
    def showing(self) -> bool: ...

    @property
    def main(self) -> MainScreen: ...


class Turns:
    """The agent's turns (``app`` runs them on its ``agent`` worker and receives their
    events; ``host`` is the session's side of the app)."""

    def __init__(self, app: App[Any], host: TurnsHost) -> None:
        self.app = app
        self.host = host
        self.idle: Timer | None = None
        """Armed when a turn ends and nothing follows: the ``idle_prompt`` notification."""
        self.attention = Attention(app)
        """The terminal's notifications and title (``ui.notify``, ``ui.title``)."""

    def started(self) -> None:
        """A session is shown: the notifications and the title as its settings say, and the
        approval desk's count of asks followed."""
        from pathlib import Path

        agent, attention = self.host.agent, self.attention
        ui = agent.settings.ui
        attention.start(ui.notify, title=ui.title, project=Path(agent.cwd).name)
        self.host.desk.on_pending = attention.asks_changed
        self.host.modes.plan_desk.on_pending = attention.asks_changed  # a plan waits, too

    def send(self, text: str, images: tuple[PreparedImage, ...] = ()) -> bool:
        """Start a turn with ``text``; while a turn runs it is queued (``type_ahead``). A
        slash command runs instead (``SlashActions.route``; ``//x`` sends ``/x``). Before the
        core is ready it is listed on the shell and sent once the core is there. ``images``
        (the prompt's tray) go only with a message that starts a turn now: otherwise it is
        refused, said, and nothing is cleared."""
        host = self.host
        if images:
            return self._send_images(text, images)
        if not host.ready or host.opening.asking_trust:
            return host.opening.hold(text)
        from agent_tui.ui.shell.slash_actions import escape

        routed = host.slash.route(text)
        if not isinstance(routed, str):
            return routed
        if host.busy:  # queued as typed after routing: sent later, it routes to the same text
            host.type_ahead.add(escape(routed))
            return True
        text = routed
        if host.agent.rewinding:
            self.app.notify("A rewind is in progress: send it when it is done.", severity="warning")
            return False
        self._start(self._run_turn(text), "agent-turn")
        return True

    def _send_images(self, text: str, images: tuple[PreparedImage, ...]) -> bool:
        host = self.host
        why = None
        if not host.ready or host.opening.asking_trust or host.agent.rewinding:
            why = "the agent is not ready for a message yet: send again in a moment"
        elif text.startswith("/") and not text.startswith("//"):
            why = "images go with a message, not a slash command (send // to start with /)"
        elif host.busy:
            why = "a turn is running: send them when it ends (Esc interrupts it)"
        if why is not None:
            self.app.notify(f"Not sent — {why}. The images stay attached.", severity="warning")
            return False
        from agent_tui.core.transcript import Prompt

        prompt = Prompt(text[1:] if text.startswith("//") else text, images)
        self._start(self._run_turn(prompt), "agent-turn")
        return True

    def send_command(self, prompt: str, run: CommandRun) -> bool:
        """Start the turn of a custom command, with its grant and model (``run``: for that
        turn only). Never queued: a grant belongs to the turn it was made for, so while
        another turn runs (one started while its shell lines ran) it is refused, said."""
        host = self.host
        if host.busy or host.agent.rewinding:
            self.app.notify(
                f"/{run.name} was not sent: another turn started meanwhile. Run it again "
                "once that one ends.",
                severity="warning",
            )
            return False
        self._start(self._run_turn(prompt, run), "agent-turn")
        return True

    def compact(self, focus: str = "") -> bool:
        """Fold the conversation into a summary (``/compact [focus]``): like a turn, it runs
        on the agent worker, shows in the chat, and Esc stops it (nothing changes then)."""
        host = self.host
        if host.busy:
            self.app.notify("A turn is running: compact when it ends.", severity="warning")
            return False
        self._start(self._run_compaction(focus), "agent-compact")
        return True

    def _start(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``work`` on the agent worker (one at a time), the app busy and thinking."""
        if self.idle is not None:
            self.idle.stop()
            self.idle = None
        self.host.busy = True
        self.host.event_view.set_activity(Activity.THINKING)
        self.app.run_worker(work, exclusive=True, group="agent", exit_on_error=False, name=name)

    async def _run_compaction(self, focus: str) -> None:
        from agent_tui.ui.shell.events_bridge import forward

        await forward(self.host.agent.compact(focus), self.app)

    async def _run_turn(self, prompt: str | Prompt, run: CommandRun | None = None) -> None:
        from agent_tui.ui.shell.events_bridge import forward

        turn = self.host.agent.run(prompt, asker=self.host.desk.ask, command=run)
        await forward(turn, self.app)

    def interrupt(self) -> None:
        """Esc: stop the running turn (its worker ends once the agent has stopped)."""
        host = self.host
        if host.busy:
            host.agent.interrupt()
            host.event_view.set_activity(Activity.INTERRUPTING)

    async def worker_ended(self, worker: Worker[Any], state: WorkerState) -> None:
        """The ``agent`` worker ended: say how when it did not end as the turn did (an
        error, cancelled), end the turn, and send the next queued message (or say why not)."""
        host = self.host
        if not host.showing:
            return
        if state is WorkerState.ERROR:
            error = worker.error
            await host.main.chat.add_error(
                "internal error", f"{type(error).__name__}: {error}" if error else "unknown"
            )
        elif state is WorkerState.CANCELLED and host.busy:
            await host.main.chat.add_notice("Cancelled", "warning")
        await host.event_view.end_turn()
        await host.type_ahead.turn_over(host.busy)  # the next queued message, or why not
        if not host.busy:
            self.attention.turn_ended()
        if not host.busy and host.agent.hooks is not None:
            if self.idle is not None:
                self.idle.stop()
            self.idle = self.app.set_timer(IDLE_NOTICE_SECONDS, self._idle_notice)

    def _idle_notice(self) -> None:
        """Nothing was sent since the turn ended: the ``idle_prompt`` Notification hooks run
        (off the agent worker: a turn sent meanwhile is not held up)."""
        from agent_tui.core.hooks import notify

        self.idle = None
        if not self.host.busy:
            work = notify(self.host.agent.hooks, "idle_prompt", IDLE_MESSAGE)
            self.app.run_worker(work, group="notify", exit_on_error=False, name="idle-notice")
