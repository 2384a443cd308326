"""The first frame: the main screen's frame (header, an empty chat and tool lane, the prompt,
the status bar) while the core is built in a worker. It imports only Textual and the prompt
and status bar widgets, so it paints about as soon as a bare Textual app does. It is the app's
first screen (``first``), not one pushed over Textual's empty default screen.

Its status bar is one widget (``ShellStatus``); its prompt is first a stand-in that looks the
same (``PromptStandIn``, a ``Static``), the real ``PromptInput`` (a ``TextArea``) swapped in
right after the first frame (``swap_prompt``, what was typed meanwhile handed to it), and the
footer of key bindings comes after it (``add_footer``): fewer and lighter widgets to style and
lay out before the first frame (``benchmarks/bench_startup.py``).

What is typed is kept: the prompt works as on the main screen, and a message sent before the
core is ready is listed here ("sent when the agent is ready") and sent by the app then. The
main screen replaces this one when the core is ready, with the prompt's text carried over.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Self

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Static

from agent_tui.ui.shell.prompt_stand_in import PromptStandIn
from agent_tui.ui.shell.shell_header import ShellHeader
from agent_tui.ui.shell.shell_status import ShellStatus

if TYPE_CHECKING:  # imported after the first frame, with the prompt (``swap_prompt``)
    from agent_tui.ui.shell.prompt_input import PromptInput

NARROW_BELOW = 100
"""As ``MainScreen``: the lane goes below the chat under this width."""


class ShellScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]
    AUTO_FOCUS = "#prompt-stand-in"

    DEFAULT_CSS = """
    ShellScreen {
        & #chat { height: 1fr; padding: 0 1 1 1; background: $background; }
        & #chat > .queued { color: $text-muted; margin-top: 1; }
        & #side {
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

    def __init__(self, *, status: ShellStatus, width: int = 0) -> None:
        """``status`` is made by the app, bound to its state (the prompt too, later: see
        ``swap_prompt``). ``width``: the
        terminal's, for the breakpoint class the screen starts with; Textual sets it again on
        the first resize, and finding it set restyles nothing (else the whole shell, in the
        first frame)."""
        wide = [name for least, name in self.HORIZONTAL_BREAKPOINTS if width >= least][-1:]
        super().__init__(classes=" ".join(wide) or None)
        self._status = status
        self._prompt: PromptInput | None = None
        self._stand_in = PromptStandIn()
        self._swapped = asyncio.Event()
        self._mounted = asyncio.Event()
        self._resumed = False
        self._painting_all = False
        """Set by the first resume when Textual's handler lays out and paints the whole shell:
        its ``refresh`` just after asks for nothing more."""

    def compose(self) -> ComposeResult:
        yield ShellHeader("◆")  # drawn once: see shell_header
        with Horizontal(id="body"):
            yield VerticalScroll(id="chat")
            # the lane's look where the main screen has its side column (``#side``, sized by
            # app.tcss) and the lane in it: one widget, not two, in the first frame
            lane = Static("No tool calls yet.", id="side")
            lane.border_title = "tools"
            yield lane
        yield self._stand_in  # the prompt's look, until ``swap_prompt``
        yield self._status

    @classmethod
    def first(cls, app: App[Any], status: ShellStatus) -> ShellScreen:
        """The shell as ``app``'s first screen (its ``get_default_screen``: not pushed over an
        empty one, whose mount, layouts and CSS cost the first frame ~10 ms), as wide as the
        terminal; with the result callback ``push_screen`` gives a screen, which
        ``switch_screen`` takes back as the main screen replaces the shell."""
        shell = cls(status=status, width=app.size.width)
        shell._push_result_callback(app, None)
        return shell

    def on_mount(self) -> None:
        self._mounted.set()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """The first resume restyles nothing: each node was styled as it mounted, a moment
        before, with every rule that can match it (``tests/ui/test_shell_styles.py``); Textual's
        handler, which runs after this one, would style them all again. Nor does it paint the
        whole shell twice: that handler lays the shell out at the terminal's size and paints
        it all (the first frame), but the layout first asks for the screen to be painted again
        (its virtual size set: ``refresh(layout=True)``) and so does the handler after it
        (``refresh()``), the same cells once more a few milliseconds later
        (``tests/ui/test_first_frame.py``). A later resume (a screen popped off the shell)
        restyles and repaints as Textual does."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False
            self._painting_all = self.is_current and self.outer_size != self.app.size

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        if self._painting_all and not (regions or recompose):
            if layout:  # the first layout, which paints it all at once: the layout only
                return super().refresh(repaint=False, layout=True)
            self._painting_all = False  # the handler's, after painting it all
            return self
        self._painting_all = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def on_resize(self, event: events.Resize) -> None:
        """A resize to the size the shell is laid out at lays nothing out again (Textual's
        handler reflows the whole screen for it: the driver's first report of the terminal's
        size, and the screen's own resize as it first lays out, arrive as the first frame is
        built). What changes inside the shell lays itself out (a mount, a display)."""
        if event.size == self.outer_size:
            event.prevent_default()

    async def mounted(self) -> None:
        """Wait until the shell is mounted, with its widgets (it is the app's first screen)."""
        await self._mounted.wait()

    async def swap_prompt(self, prompt: PromptInput) -> None:
        """Put the real prompt (and its completion menu) where the stand-in is, with the focus
        and what was typed in the stand-in; the stand-in goes. In one step, between two
        frames: the prompt is mounted hidden, then shown as the stand-in is hidden."""
        stand_in = self._stand_in
        if self._prompt is not None or not stand_in.is_attached:
            self._swapped.set()
            return
        self._prompt = prompt
        prompt.display = False
        await self.mount(prompt.menu, prompt, before=stand_in)
        # the last keys queued at the stand-in before the hand-over are kept before it
        stand_in.call_later(self._hand_over)

    def _hand_over(self) -> None:
        self._stand_in.hand_over(self.prompt, then=self._show_prompt)

    def _show_prompt(self) -> None:
        prompt, stand_in = self.prompt, self._stand_in
        focus = self.focused in (stand_in, None)  # a click may have moved it: it stays there
        prompt.display = True
        stand_in.display = False
        if focus:
            self.set_focus(prompt)  # at once: the next key goes to the prompt
        self.call_after_refresh(stand_in.remove)  # once what is queued there followed
        self._swapped.set()

    async def prompt_swapped(self) -> None:
        """Wait until the real prompt has taken the stand-in's place (``swap_prompt``)."""
        await self._swapped.wait()

    def add_footer(self) -> None:
        """Mount the footer of key bindings (after the first frame: its keys are a widget
        each); not awaited, what is queued after it does not wait for it."""
        from agent_tui.ui.common.steady_footer import SteadyFooter

        if self.is_attached and not self.query(SteadyFooter):
            self.mount(SteadyFooter())

    @property
    def prompt(self) -> PromptInput:
        """The real prompt (there once ``swap_prompt`` began)."""
        assert self._prompt is not None, "the prompt comes after the first frame"
        return self._prompt

    async def show_queued(self, text: str) -> None:
        """List a message sent before the core is ready (the app sends it then)."""
        line = Static(f"› {text}\n  sent when the agent is ready", classes="queued", markup=False)
        await self.query_one("#chat", VerticalScroll).mount(line)
