"""The first frame: the main screen's frame (header, an empty chat and tool lane, the prompt,
the status bar) while the core is built in a worker. It imports only Textual and the prompt
and status bar widgets, so it paints about as soon as a bare Textual app does.

Its status bar is one widget (``ShellStatus``), and the footer of key bindings comes a frame
later (``add_footer``, once the first frame is painted): fewer widgets to style and lay out
before the first frame (``benchmarks/bench_startup.py``).

What is typed is kept: the prompt works as on the main screen, and a message sent before the
core is ready is listed here ("sent when the agent is ready") and sent by the app then. The
main screen replaces this one when the core is ready, with the prompt's text carried over.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from agent_tui.ui.shell.prompt_input import PromptInput
from agent_tui.ui.shell.shell_header import ShellHeader
from agent_tui.ui.shell.shell_status import ShellStatus

NARROW_BELOW = 100
"""As ``MainScreen``: the lane goes below the chat under this width."""


class ShellScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]
    AUTO_FOCUS = "#prompt"

    DEFAULT_CSS = """
    ShellScreen {
        & #chat { height: 1fr; padding: 0 1 1 1; background: $background; }
        & #chat > .queued { color: $text-muted; margin-top: 1; }
        & #lane {
            height: 1fr;
            padding: 1 2;
            background: $background;
            border: round $foreground 20%;
            border-title-color: $text-muted;
            color: $text-muted;
        }
        &.-narrow #body { layout: vertical; }
        /* narrow, the main screen folds its empty lane away: so does its first frame */
        &.-narrow #side { display: none; }
    }
    """

    def __init__(self, *, status: ShellStatus, prompt: PromptInput, width: int = 0) -> None:
        """``status`` and ``prompt`` are made by the app, bound to its state. ``width``: the
        terminal's, for the breakpoint class the screen starts with; Textual sets it again on
        the first resize, and finding it set restyles nothing (else the whole shell, in the
        first frame)."""
        wide = [name for least, name in self.HORIZONTAL_BREAKPOINTS if width >= least][-1:]
        super().__init__(classes=" ".join(wide) or None)
        self._status = status
        self._prompt = prompt

    def compose(self) -> ComposeResult:
        yield ShellHeader("◆")  # drawn once: see shell_header
        with Horizontal(id="body"):
            yield VerticalScroll(id="chat")
            with Vertical(id="side"):
                lane = Static("No tool calls yet.", id="lane")
                lane.border_title = "tools"
                yield lane
        yield self._prompt.menu
        yield self._prompt
        yield self._status

    def add_footer(self) -> None:
        """Mount the footer of key bindings (after the first frame: its keys are a widget
        each); not awaited, what is queued after it does not wait for it."""
        from agent_tui.ui.common.steady_footer import SteadyFooter

        if self.is_attached and not self.query(SteadyFooter):
            self.mount(SteadyFooter())

    @property
    def prompt(self) -> PromptInput:
        return self._prompt

    async def show_queued(self, text: str) -> None:
        """List a message sent before the core is ready (the app sends it then)."""
        line = Static(f"› {text}\n  sent when the agent is ready", classes="queued", markup=False)
        await self.query_one("#chat", VerticalScroll).mount(line)
