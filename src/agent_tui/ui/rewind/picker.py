"""The rewind picker (``/rewind``, the palette): the turns of the conversation, newest last; the
highlighted turn's preview (what going back to before it does to each file and to the
conversation), read from disk as the highlight moves; then the choice — code and conversation,
the conversation only, or the code only. Files someone else changed since are kept unless
``o`` says to overwrite them too. Enter goes from the list to the choices and picks one; Esc
goes back, then closes; PgUp/PgDn scroll a long preview."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.core.conversation.rewind import RewindError, RewindPreview, RewindWhat, TurnSummary
from agent_tui.ui.rewind.choices import RewindChoices
from agent_tui.ui.rewind.preview_view import RewindPreviewView
from agent_tui.ui.rewind.turn_list import TurnList

PreviewLoader = Callable[[str], Awaitable[RewindPreview]]


@dataclass(frozen=True)
class RewindChoice:
    """What the user chose: go back to before ``turn``, restoring ``what``; ``overwrite``:
    the files changed since by someone else that may be overwritten (absolute paths)."""

    turn: TurnSummary
    what: RewindWhat
    overwrite: tuple[str, ...] = ()


class RewindPicker(ModalScreen[RewindChoice | None]):
    DEFAULT_CSS = """
    RewindPicker {
        align: center middle;
        background: $background 60%;
    }
    RewindPicker > #dialog {
        width: 110;
        max-width: 96%;
        height: auto;
        max-height: 96%;
        background: $surface;
        border: round $primary;
        border-title-color: $primary;
        border-title-style: bold;
        border-subtitle-color: $foreground-muted;
        padding: 0;
        & > .rule { color: $panel-lighten-2; height: 1; padding: 0 1; }
    }
    /* A tall screen: the dialog is as high as what it shows; a short one gives the preview
       whatever the list and the choices leave. */
    RewindPicker.-tall RewindPreviewView { height: auto; max-height: 40vh; }
    """
    VERTICAL_BREAKPOINTS = [(0, "-short"), (28, "-tall")]

    BINDINGS = [
        Binding("escape", "back", "Back", id="rewind.back"),
        Binding("o", "toggle_overwrite", "Overwrite changed files", id="rewind.overwrite"),
        Binding("pageup", "scroll_preview(-1)", "Scroll the preview", show=False),
        Binding("pagedown", "scroll_preview(1)", "Scroll the preview", show=False),
    ]

    def __init__(self, turns: Sequence[TurnSummary], load: PreviewLoader) -> None:
        super().__init__()
        self.turns = list(turns)
        self.load = load
        self.preview: RewindPreview | None = None
        """The preview of the highlighted turn, once read."""
        self.overwrite = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Rewind · go back to before a prompt"
            dialog.border_subtitle = "↑↓ turn · enter choose · o overwrite changed · esc back"
            yield TurnList(self.turns, id="turns")
            yield Static("─" * 200, classes="rule")
            yield RewindPreviewView(id="preview")
            yield Static("─" * 200, classes="rule")
            yield RewindChoices(id="choices")

    @property
    def turn_list(self) -> TurnList:
        return self.query_one("#turns", TurnList)

    @property
    def choices(self) -> RewindChoices:
        return self.query_one("#choices", RewindChoices)

    @property
    def preview_view(self) -> RewindPreviewView:
        return self.query_one("#preview", RewindPreviewView)

    def on_mount(self) -> None:
        self.turn_list.focus()
        if self.turns:
            self._pick(self.turns[-1])

    def _pick(self, turn: TurnSummary) -> None:
        self.preview = None
        self.overwrite = False
        self.preview_view.show(None)
        self.choices.offer(turn)
        self._load(turn)

    @work(exclusive=True, group="rewind-preview", exit_on_error=False)
    async def _load(self, turn: TurnSummary) -> None:
        try:
            preview = await self.load(turn.id)
        except RewindError as exc:
            self.preview_view.show_error(str(exc))
            return
        except OSError as exc:
            self.preview_view.show_error(f"Cannot read the files: {exc.strerror or exc}")
            return
        self.preview = preview
        self.preview_view.show(preview, overwrite=self.overwrite)

    @on(TurnList.Picked)
    def _picked(self, event: TurnList.Picked) -> None:
        self._pick(event.turn)

    @on(TurnList.Entered)
    def _entered(self, event: TurnList.Entered) -> None:
        current = self.preview
        if current is None or current.turn.id != event.turn.id:
            self._pick(event.turn)
        self.choices.focus()

    @on(RewindChoices.Chosen)
    def _chosen(self, event: RewindChoices.Chosen) -> None:
        turn = self.turn_list.current
        if turn is None:
            return
        preview = self.preview
        overwrite: tuple[str, ...] = ()
        if self.overwrite and preview is not None and preview.turn.id == turn.id:
            overwrite = tuple(f.path for f in preview.conflicts)
        self.dismiss(RewindChoice(turn, event.what, overwrite))

    def action_back(self) -> None:
        if self.focused is self.choices:
            self.turn_list.focus()
        else:
            self.dismiss(None)

    def action_scroll_preview(self, direction: int) -> None:
        view = self.preview_view
        if direction < 0:
            view.scroll_page_up(animate=False)
        else:
            view.scroll_page_down(animate=False)

    def action_toggle_overwrite(self) -> None:
        preview = self.preview
        if preview is None or not preview.conflicts:
            self.notify("No file was changed since by someone else.")
            return
        self.overwrite = not self.overwrite
        self.preview_view.show(preview, overwrite=self.overwrite)
