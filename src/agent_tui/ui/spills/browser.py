"""The spill browser: the session's spill files on the left, a window of the chosen one on the
right — exactly the rows ``read_file(path, offset, limit)`` returns, so the user sees what the
model can page.

Keys: PgDn / PgUp the next / previous window (PgDn continues where read_file's footer says),
``g`` a line, ``G`` the end, ``/`` and ``?`` search forward / backward (``n`` / ``N`` the next /
previous match, wrapping around like vim), ``y`` copies the window as read_file returns it,
``w`` sets the window size, ``d`` deletes the spill (asks; refused while a live message points
to it), ``f`` the filter, Esc cancels a search or closes. Nothing loads a whole file: a window
is read through the spill's line index, a search streams the file in a worker thread (with
progress, cancellable), and the list follows the spill directory live (``watchfiles``).

The screen holds the state and the viewer; the listing is shown by ``spill_listing``, paging
and the line prompts are in ``spill_paging``, the search in ``spill_search``, deleting in
``spill_deletion`` (asking with ``confirm_delete``) and the live watch in ``spill_watch``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Header, Input, Static

from agent_tui.core.budget.browse import (
    SpillEntry,
    SpillRefused,
    SpillWindow,
    list_spills,
    open_reader,
    window_ending_at,
    window_of,
)
from agent_tui.core.budget.search import Hit, Matcher
from agent_tui.core.budget.store import SpillStore
from agent_tui.core.tools.builtin import read_file
from agent_tui.core.transcript import Message
from agent_tui.ui.common.steady_footer import SteadyFooter
from agent_tui.ui.spills import deletion as spill_deletion
from agent_tui.ui.spills import listing as spill_listing
from agent_tui.ui.spills import paging as spill_paging
from agent_tui.ui.spills.confirm_delete import ConfirmDelete
from agent_tui.ui.spills.search import SpillSearch
from agent_tui.ui.spills.search_status import Tone
from agent_tui.ui.spills.spill_viewer import Highlight
from agent_tui.ui.spills.watch import follow_spill_directory
from agent_tui.ui.spills.widgets import (
    LinePrompt,
    SearchStatus,
    SpillHeader,
    SpillList,
    SpillNotice,
    SpillViewer,
)

__all__ = ["ConfirmDelete", "SpillBrowser"]  # ConfirmDelete: still importable from here

NARROW_BELOW = 110
"""Terminal columns under which the list gets a fixed narrow width (the viewer keeps the rest)."""
MESSAGES_POLL_SECONDS = 1.0
"""How often the "a live message points to it" marks are checked against the transcript."""


class SpillBrowser(Screen[None]):
    AUTO_FOCUS = None  # on_mount focuses the viewer (opened on a spill) or the list
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]
    DEFAULT_CSS = """
    SpillBrowser {
        & #spill-body { height: 1fr; }
        & #spill-side {
            width: 40%; min-width: 36; max-width: 60;
            background: $surface;
            border-right: vkey $primary 30%;
        }
        & #spill-filter { margin: 0 1; }
        & #spill-summary { height: auto; padding: 0 1; color: $text-muted; }
        & #spill-main { width: 1fr; }
        &.-narrow #spill-side { width: 28; min-width: 0; }
        & SpillNotice { display: none; }
        &.-empty SpillNotice, &.-error SpillNotice { display: block; }
        &.-empty SpillViewer, &.-error SpillViewer { display: none; }
        &.-empty SpillHeader { display: none; }
    }
    """

    BINDINGS = [
        Binding("escape", "back", "Close", id="spills.back"),
        Binding("q", "close", "Close", show=False, id="spills.close"),
        Binding("pagedown", "next_window", "Next", key_display="PgDn", id="spills.next"),
        Binding("pageup", "previous_window", "Prev", key_display="PgUp", id="spills.previous"),
        # The keys that open a prompt are priority bindings: they act as the app reads them,
        # so what is typed right after them (a burst, a paste) lands in the prompt. They give
        # way to a focused input (check_action), where they are just characters.
        Binding("g", "goto", "Line", priority=True, id="spills.goto"),
        Binding("G,shift+g", "end", "End", key_display="G", id="spills.end"),
        Binding(
            "slash", "search(False)", "Search", key_display="/", priority=True, id="spills.search"
        ),
        Binding(
            "question_mark",
            "search(True)",
            "Search back",
            show=False,
            priority=True,
            id="spills.back_search",
        ),
        Binding("n", "next_match(False)", "Next match", id="spills.next_match"),
        Binding("N,shift+n", "next_match(True)", "Prev match", show=False, id="spills.prev_match"),
        Binding("y", "copy", "Copy", id="spills.copy"),
        Binding("w", "window_size", "Size", priority=True, id="spills.size"),
        Binding("d,delete", "delete", "Delete", key_display="d", id="spills.delete"),
        Binding("f,ctrl+f", "filter", "Filter", show=False, priority=True, id="spills.filter"),
        Binding("r", "refresh", "Refresh", show=False, id="spills.refresh"),
        Binding("ctrl+l", "nothing", show=False),  # the main screen's "clear chat"
    ]

    def __init__(
        self,
        store: SpillStore,
        messages: Callable[[], Sequence[Message]],
        *,
        path: Path | None = None,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.store = store
        self.messages = messages
        """The live transcript (read on each refresh: the agent may add to it meanwhile)."""
        self.cursor_blink = cursor_blink
        self.entries: list[SpillEntry] = []
        self.path: Path | None = path
        """The spill being viewed."""
        self.window: SpillWindow | None = None
        self.limit = read_file.MAX_LINES
        self.error: SpillRefused | None = None
        self.gone = False
        self.search_text: str | None = None
        self.backward = False
        self.hit: Hit | None = None
        self.marked: int | None = None
        self.moves = 0
        """How many times the user moved (paged, went to a line or the end) in this spill."""
        self.searcher = SpillSearch(self)
        self._messages_seen = -1
        self._window_keys = (False, False)
        self._mounting = False
        self.title = "Spill browser"

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(id="spill-body"):
            with Vertical(id="spill-side"):
                yield Input(placeholder="filter: tool, call or name  (f)", id="spill-filter")
                yield SpillList(id="spill-list")
                yield Static(id="spill-summary", markup=False)
            with Vertical(id="spill-main"):
                yield SpillHeader(id="spill-header")
                yield SpillViewer(id="spill-viewer")
                yield SpillNotice(id="spill-notice")
                yield SearchStatus(id="spill-status")
                yield LinePrompt(cursor_blink=self.cursor_blink, id="spill-prompt")
        yield SteadyFooter()

    @property
    def where(self) -> str:
        """The spill directory as the model sees it."""
        return self.store.shown(self.store.root)

    @property
    def spill_list(self) -> SpillList:
        return self.query_one(SpillList)

    @property
    def viewer(self) -> SpillViewer:
        return self.query_one(SpillViewer)

    @property
    def status(self) -> SearchStatus:
        return self.query_one(SearchStatus)

    @property
    def prompt(self) -> LinePrompt:
        return self.query_one(LinePrompt)

    @property
    def filter_box(self) -> Input:
        return self.query_one("#spill-filter", Input)

    def on_mount(self) -> None:
        self.searcher.start_timer()
        self.filter_box.cursor_blink = self.cursor_blink
        target, self.path = self.path, None
        # One focus change and no binding refresh while mounting: each makes the footer
        # rebuild itself, and it reads the keys' state when it is first composed anyway.
        (self.spill_list if target is None else self.viewer).focus()
        self._mounting = True
        entries = list_spills(self.store, self._transcript())
        spill_listing.apply_entries(self, entries, auto_open=not target)
        if target is not None:
            self.open_spill(target)
        self._mounting = False
        self.set_interval(MESSAGES_POLL_SECONDS, self._check_messages)
        self._watch()

    def on_unmount(self) -> None:
        self.searcher.cancel()

    def _transcript(self) -> list[Message]:
        messages = list(self.messages())
        self._messages_seen = len(messages)
        return messages

    # -- the list --------------------------------------------------------------------------

    def _entry(self, path: Path | None) -> SpillEntry | None:
        return next((e for e in self.entries if e.path == path), None)

    @work(group="spill-list", exclusive=True, exit_on_error=False, name="list-spills")
    async def refresh_list(self) -> None:
        """Read the spill directory again (in a thread) and show what is there."""
        messages = self._transcript()
        entries = await asyncio.to_thread(list_spills, self.store, messages)
        spill_listing.apply_entries(self, entries)

    def _check_messages(self) -> None:
        if len(self.messages()) != self._messages_seen:
            self.refresh_list()

    @work(group="spill-watch", exclusive=True, exit_on_error=False, name="watch-spills")
    async def _watch(self) -> None:
        """Follow the spill directory (``spill_watch``) and list it again when it changes."""
        await follow_spill_directory(Path(self.store.root), self.refresh_list, self.set_timer)

    @on(Input.Changed, "#spill-filter")
    def _filter_changed(self) -> None:
        spill_listing.show_list(self)

    @on(Input.Submitted, "#spill-filter")
    def _filter_done(self) -> None:
        self.set_focus(self.spill_list)

    @on(SpillList.Picked)
    def _picked(self, event: SpillList.Picked) -> None:
        if event.entry.path != self.path or self.error is not None:
            self.open_spill(event.entry.path)

    @on(SpillList.Entered)
    def _entered(self, event: SpillList.Entered) -> None:
        if event.entry.path != self.path:
            self.open_spill(event.entry.path)
        if self.window is not None:
            self.set_focus(self.viewer)

    # -- the viewer ------------------------------------------------------------------------

    def open_spill(self, path: Path, offset: int = 1) -> None:
        """View ``path`` from line ``offset`` (a card's spill lands at line 1)."""
        self.searcher.cancel()
        self.path = path
        self.window = None
        self.error = None
        self.gone = False
        self.hit = None
        self.marked = None
        self.remove_class("-empty")
        self.spill_list.select_name(path.name)
        self.status.say("")
        self._load(offset)

    def _shown(self) -> str:
        return self.store.shown(self.path) if self.path is not None else ""

    def _highlight(self) -> Highlight:
        pattern = Matcher(self.search_text).text_pattern() if self.search_text else None
        hit = self.hit
        if hit is None:
            return Highlight(pattern)
        return Highlight(pattern, hit.line, hit.column, hit.length)

    def _load(self, offset: int, *, at: int | str | None = None, end: bool = False) -> bool:
        """Read the window from ``offset`` (``end``: the window that ends the file)."""
        if self.path is None:
            return False
        shown = self._shown()
        try:
            with open_reader(self.path, shown) as reader:
                if end:
                    offset = window_ending_at(reader, reader.lines, self.limit)
                window = window_of(reader, shown, offset, self.limit)
        except SpillRefused as refused:
            self._fail(refused)
            return False
        except OSError as exc:
            self._fail(SpillRefused("missing", f"{shown} cannot be read: {exc}.", ""))
            return False
        self.window = window
        self.error = None
        self.remove_class("-error")
        self.viewer.show(window, marked=self.marked, highlight=self._highlight(), at=at)
        self._show_header()
        self._sync_bindings()
        return True

    def _fail(self, refused: SpillRefused) -> None:
        self.error = refused
        self.window = None
        self.gone = False
        self.add_class("-error")
        self.query_one(SpillNotice).show_error(self._shown(), refused)
        self.viewer.show(None)
        self._show_header()
        self.status.say("")  # the notice above says what happened
        self._sync_bindings()

    def _show_header(self) -> None:
        if self.path is None:
            return
        self.query_one(SpillHeader).show(
            self._shown(), self._entry(self.path), self.window, self.gone
        )

    # -- paging ----------------------------------------------------------------------------

    def _say(self, message: str, tone: Tone = "info") -> None:
        self.status.say(message, tone)

    def _ready(self) -> SpillWindow | None:
        if self.window is None:
            self._say("No spill is open." if self.error is None else self.error.what, "warning")
        return self.window

    def action_next_window(self) -> None:
        spill_paging.next_window(self)

    def action_previous_window(self) -> None:
        spill_paging.previous_window(self)

    def action_end(self) -> None:
        spill_paging.end(self)

    def go_to_line(self, line: int) -> None:
        spill_paging.go_to_line(self, line)

    def action_goto(self) -> None:
        spill_paging.ask_line(self)

    def action_window_size(self) -> None:
        spill_paging.ask_size(self)

    @on(LinePrompt.Answered)
    def _answered(self, event: LinePrompt.Answered) -> None:
        event.stop()
        value = event.value.strip()
        if event.kind == "goto" and value:
            spill_paging.answer_line(self, value)
        elif event.kind == "size" and value:
            spill_paging.answer_size(self, value)
        elif event.kind in {"search", "search_back"}:
            self.searcher.from_view(value or self.search_text or "", event.kind == "search_back")

    # -- search ----------------------------------------------------------------------------

    def action_search(self, backward: bool = False) -> None:
        self.searcher.ask(backward)

    def action_next_match(self, reverse: bool = False) -> None:
        self.searcher.next_match(reverse)

    @property
    def searching(self) -> bool:
        return self.searcher.running

    # -- copy, delete, filter, close --------------------------------------------------------

    def action_copy(self) -> None:
        window = self._ready()
        if window is None:
            return
        text = window.text()
        self.app.copy_to_clipboard(text)
        self.notify(
            f"Copied {window.span} ({len(text):,} characters), as {window.call} returns them.",
            title="Copied",
        )

    def action_delete(self) -> None:
        spill_deletion.ask_to_delete(self)

    def action_filter(self) -> None:
        self.set_focus(self.filter_box)

    def action_nothing(self) -> None:
        """Keys of the main screen that mean nothing here."""

    def action_refresh(self) -> None:
        self.refresh_list()

    def action_back(self) -> None:
        """Esc: close the prompt, else cancel the search, else leave the filter, else close."""
        if self.prompt.is_open:
            self.prompt.close()
        elif self.searcher.cancel():
            self._say("Search cancelled.", "warning")
        elif self.focused is self.filter_box:
            if self.filter_box.value:
                self.filter_box.value = ""
            else:
                self.set_focus(self.spill_list)
        else:
            self.action_close()

    def action_close(self) -> None:
        self.searcher.cancel()
        self.dismiss()

    def _sync_bindings(self) -> None:
        """Enable or dim the window keys when a window appears or goes (only then: the footer
        is rebuilt on each refresh)."""
        state = (self.window is not None, self.path is not None)
        if state != self._window_keys:
            self._window_keys = state
            if not self._mounting:
                self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"goto", "search", "window_size", "filter"} and isinstance(
            self.focused, Input
        ):
            return False  # typed into the input instead
        if action in {"next_window", "previous_window", "goto", "end", "search", "copy"}:
            return True if self.window is not None else None
        if action in {"next_match", "window_size"}:
            return True if self.window is not None else None
        if action == "delete":
            return True if self.path is not None else None
        return True
