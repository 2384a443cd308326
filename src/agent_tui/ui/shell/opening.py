"""What happens as the main screen opens on the core, and the messages sent before it did.

The app builds the main screen (``install_themes`` first); ``Opening.show`` shows it (in
place of the shell, when the first frame was the shell, with what was typed in its prompt),
greets, shows a resumed session's transcript, starts the
background work (``Background``), and asks about the project's settings when they want
something turned on (``TrustDialog``). The message given on the command line, and those sent
while the core was being built or the question was open (``hold``), are sent after that
(``send_first``). What it uses of the app is ``OpeningHost``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from agent_tui.ui.shell import screen_actions
from agent_tui.ui.shell.activity import Activity
from agent_tui.ui.shell.shell_screen import ShellScreen

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.events import SessionStart
    from agent_tui.core.state.trust import TrustItem
    from agent_tui.ui.shell.background import Background
    from agent_tui.ui.shell.main_screen import MainScreen
    from agent_tui.ui.shell.prompt_input import PromptInput
    from agent_tui.ui.shell.session_views import SessionViews
    from agent_tui.ui.shell.slash_actions import SlashActions
    from agent_tui.ui.shell.themes import ThemeKeeper


class Starts(Protocol):
    """What starts with the session (``Turns``: the terminal's title and notifications)."""

    def started(self) -> None: ...


class OpeningHost(Protocol):
    """What of the app (``AgentApp``) the opening uses: the agent and the session it
    starts with, the views and the background work to start, the mode shown, and ``send``."""

    agent: Agent
    demo: bool
    mode: str
    activity: Activity
    initial_prompt: str | None
    theme_keeper: ThemeKeeper | None
    slash: SlashActions
    views: SessionViews
    background: Background
    turns: Starts

    @property
    def session(self) -> SessionStart: ...

    @property
    def main(self) -> MainScreen: ...

    @property
    def tunes_gc(self) -> bool: ...

    def send(self, text: str) -> bool: ...

    def show_start(self, *, demo: bool = False, cwd_label: str | None = None) -> None: ...


class Opening:
    """The main screen's opening (``app`` shows the notices and the question; ``host`` is
    the session's side of the app), and the messages held until it is done."""

    def __init__(self, app: App[Any], host: OpeningHost) -> None:
        self.app = app
        self.host = host
        self.early: list[str] = []
        """Messages sent before the core was ready, in order."""
        self.asking_trust = False
        """The start-up trust question is open: a message sent meanwhile waits for the answer
        (it could run without, or with, what the project turns on)."""
        self._trust_key = ""
        self._problems: list[str] = []

    def hold(self, text: str) -> bool:
        """Keep ``text`` to send once the core is ready and the question answered; the shell
        lists it, the main screen says why it waits."""
        app = self.app
        self.early.append(text)
        if isinstance(app.screen, ShellScreen):
            app.run_worker(app.screen.show_queued(text), group="notice")
        elif self.asking_trust:
            app.notify("Sent once you answer the question about the project's settings.")
        return True

    def install_themes(self) -> None:
        """The shipped themes and the user's, the chosen one applied, and the keeper that
        saves a theme picked later (its problems are said as the main screen greets)."""
        from agent_tui.ui.shell.themes import ThemeKeeper, install_themes

        app, ui = self.app, self.host.agent.settings.ui
        self._problems = install_themes(app, chosen=ui.theme)
        self.host.theme_keeper = ThemeKeeper(app, ui)

    async def show(
        self, main: MainScreen, prompt: PromptInput, *, cwd_label: str | None, sandbox: bool
    ) -> None:
        """Show ``main``: in place of the shell when the first frame was the shell (what was
        typed there goes on in ``prompt``, the main screen's), else pushed. Then greet (with
        the session's warnings and the themes' problems), show the transcript, start the
        background work (probing the sandbox: ``sandbox``); then the project's trust
        question, or the first message."""
        app, host = self.app, self.host
        shell = app.screen if isinstance(app.screen, ShellScreen) else None
        if shell is not None:  # the first frame was the shell: the main screen takes its place
            await shell.prompt_swapped()  # what was typed in the first frame is in it
            typed = shell.prompt
            text, cursor, history = typed.text, typed.cursor_location, typed.prompt_history
            # before the switch: the main screen's header mounts with the title it keeps (a
            # title changed while a header mounts or goes away reaches it half built)
            host.show_start(cwd_label=cwd_label)
            host.activity = Activity.IDLE
            await app.switch_screen(main)
            prompt.prompt_history = list(history)
            prompt.load_text(text)
            prompt.move_cursor(cursor)
        else:
            await app.push_screen(main)
        session = host.session
        warnings = [*session.warnings, *self._problems]
        await host.main.chat.greet(
            warnings,
            demo=host.demo and not host.agent.messages,
            memory=[m.path for m in session.memory],
        )
        await host.slash.report_problems()
        if host.agent.messages:
            await host.views.show_transcript()
        elif session.forked_from:
            await host.main.chat.add_notice(
                f"Forked session {session.forked_from} into session "
                f"{session.session_id} · no messages",
                "info",
            )
        from agent_tui.ui.shell import heap

        if host.tunes_gc:
            app.call_after_refresh(heap.quiet)
        if not app.is_headless:  # a process of its own (tests share theirs)
            # the screens opened later; then the start-up's free pages go back to the system
            done = heap.trim if host.tunes_gc else None
            app.call_after_refresh(screen_actions.preload, app, host.agent, done)
        host.turns.started()  # the terminal's title and notifications
        host.background.start(sandbox=sandbox)
        trust = host.agent.trust
        if trust is not None and trust.pending:  # the project's files ask to turn things on
            from agent_tui.ui.shell.key_question import pressed_key
            from agent_tui.ui.shell.trust_dialog import TrustDialog

            items = list(trust.pending)
            self.asking_trust = True
            dialog = TrustDialog(items, host.agent.cwd)

            def answered(yes: bool | None) -> None:
                self._trust_key = pressed_key(dialog)
                self._trust_answered(items, yes)

            await app.push_screen(dialog, answered)
        else:
            self.send_first()

    def send_first(self) -> None:
        """The message given on the command line, then those sent before the core was ready
        (the first starts a turn; the others queue behind it as type-ahead does)."""
        first = [self.host.initial_prompt] if self.host.initial_prompt else []
        early, self.early = self.early, []
        for text in [*first, *early]:
            self.host.send(text)

    def _trust_answered(self, items: list[TrustItem], yes: bool | None) -> None:
        self.asking_trust = False
        self.app.run_worker(self._apply_trust(items, bool(yes)), group="trust", exit_on_error=False)

    async def _apply_trust(self, items: list[TrustItem], yes: bool) -> None:
        host = self.host
        if yes:
            said = await host.agent.trust_project(items)
            mode = host.agent.policy.mode
            if mode is not None:
                host.mode = mode.value
            self.app.notify(said or "trusted")
        else:
            pressed = self._trust_key
            self.app.notify(
                f"Started without {len(items)} item{'s' if len(items) != 1 else ''} of the "
                f"project{f' ({pressed})' if pressed else ''}; `agent-tui trust` reviews them "
                "later.",
                severity="warning",
            )
        self.send_first()
