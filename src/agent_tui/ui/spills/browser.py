"""The spill browser: the session's spill files on the left, a window of the chosen one on the
right — exactly the rows ``read_file(path, offset, limit)`` returns, so the user sees what the
model can page.

Keys: PgDn / PgUp the next / previous window (PgDn continues where read_file's footer says),
``g`` a line, ``G`` the end, ``/`` and ``?`` search forward / backward (``n`` / ``N`` the next /
previous match, wrapping around like vim), ``y`` copies the window's lines as the file has
them (no line numbers), ``w`` sets the window size, ``d`` deletes the spill (asks; refused
while a live message or a saved session points to it), ``f`` the filter, Esc cancels a
search or closes. Nothing loads a whole file: a window is read through the spill's line
index, a search streams the file in a worker thread (with progress, cancellable), and the
list follows the spill directory live (``watchfiles``).

The state and what each key does to it are the model's (``model.SpillView``); this screen
routes the keys, the widgets' messages and the workers' results to it and shows what it
answers (``Step``) in the widgets. Searches run in ``search.SpillSearch``, the directory
watch in ``watch``, and a deletion (``deleting.SpillDeletion``) is checked against the saved
sessions in a worker thread (they may be many and long), then asked with ``confirm_delete``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Header, Input, Static

from agent_tui.core.browse import (
    SpillEntry,
    list_spills,
)
from agent_tui.core.budget.store import SpillStore
from agent_tui.core.transcript import Message
from agent_tui.ui.common.clipboard import copy
from agent_tui.ui.common.messages import TranscriptChanged
from agent_tui.ui.common.steady_footer import SteadyFooter
from agent_tui.ui.common.styled_once import StyledOnce
from agent_tui.ui.common.width_class import width_class
from agent_tui.ui.spills.confirm_delete import ConfirmDelete
from agent_tui.ui.spills.deleting import SpillDeletion
from agent_tui.ui.spills.model import SpillView
from agent_tui.ui.spills.search import SpillSearch
from agent_tui.ui.spills.spill_list import summary_content
from agent_tui.ui.spills.steps import (
    Copied,
    Listed,
    Question,
    SearchJob,
    SearchResult,
    Step,
)
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
"""How often the "a live message points to it" marks are checked against the transcript."""


class SpillBrowser(StyledOnce, Screen[None]):
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
        &.-empty SpillNotice, &.-error SpillNotice, &.-hidden SpillNotice { display: block; }
        &.-empty SpillViewer, &.-error SpillViewer, &.-hidden SpillViewer { display: none; }
        &.-empty SpillHeader, &.-hidden SpillHeader { display: none; }
    }
    """

    BINDINGS = [
        Binding("escape", "back", "Close", id="spills.back"),
        Binding("q", "close", "Close", show=False, id="spills.close"),
        # PgDn / PgUp are the viewer's (the list pages itself with them).
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
        session_files: Callable[[], Iterable[Path]] | None = None,
        path: Path | None = None,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__(classes=width_class(NARROW_BELOW))
        self.store = store
        self.messages = messages
        """The live transcript (read on each refresh: the agent may add to it meanwhile)."""
        self.session_files = session_files
        """The saved session files (``SessionStore.all``): a spill one of them points to is
        not deleted. Called in a worker thread, when ``d`` is pressed."""
        self.cursor_blink = cursor_blink
        self.view = SpillView(store)
        """The state: what is listed, open, in view, searched."""
        self.searcher = SpillSearch(self, self._found, self._search_progress)
        self.deletion = SpillDeletion(self, self)
        """``d``: checked, asked, then deleted (``deleting``)."""
        self._target = path
        """The spill to open on mount."""
        self._window_keys = (False, False)
        self._mounting = False
        self.title = "Spill browser"

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(id="spill-body"):
            with Vertical(id="spill-side"):
                yield Input(placeholder="filter: tool, call, input or name  (f)", id="spill-filter")
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

    @property
    def searching(self) -> bool:
        return self.searcher.running

    def on_mount(self) -> None:
        self.searcher.start_timer()
        self.filter_box.cursor_blink = self.cursor_blink
        target = self._target
        # One focus change and no binding refresh while mounting: each makes the footer
        # rebuild itself, and it reads the keys' state when it is first composed anyway.
        (self.spill_list if target is None else self.viewer).focus()
        self._mounting = True
        self._listed(
            list_spills(self.store, self.transcript()), auto_open=target is None, opening=target
        )
        if target is not None:
            self.open_spill(target)
        self._mounting = False
        self._watch()

    def on_unmount(self) -> None:
        self.searcher.cancel()

    def transcript(self) -> list[Message]:
        """The live transcript, as it is now."""
        messages = list(self.messages())
        return messages

    # -- showing what the model answers ----------------------------------------------------

    def _show(self, step: Step) -> None:
        """Show one step: the new window (or why there is none), or a line of the window in
        view brought forward; then what the status line says."""
        view = self.view
        if step.redraw:
            self._draw(step.at)
        elif step.line is not None and view.window is not None:
            self.viewer.set_highlight(view.highlight(), view.marked)
            index = view.window.row_index(step.line)
            if index is not None:
                self.viewer.bring_line(index)
        if step.say is not None:
            self.status.say(step.say.text, step.say.tone)

    def _draw(self, at: int | str | None = None) -> None:
        view = self.view
        self._show_hidden()
        if view.error is not None:
            self.add_class("-error")
            self.query_one(SpillNotice).show_error(view.shown, view.error)
            self.viewer.show(None)
        else:
            self.remove_class("-error")
            self.viewer.show(view.window, marked=view.marked, highlight=view.highlight(), at=at)
        self._show_header()
        self._sync_bindings()

    def _show_header(self) -> None:
        view = self.view
        if view.path is not None:
            self.query_one(SpillHeader).show(view.shown, view.entry(), view.window, view.gone)

    def _ask(self, question: Question | Step) -> None:
        if isinstance(question, Step):
            self._show(question)
            return
        self.prompt.ask(
            question.kind,
            question.label,
            question.value,
            question.placeholder,
            back_to=self.viewer,
        )

    # -- the list --------------------------------------------------------------------------

    @work(group="spill-list", exclusive=True, exit_on_error=False, name="list-spills")
    async def refresh_list(self) -> None:
        """Read the spill directory again (in a thread) and show what is there."""
        messages = self.transcript()
        entries = await asyncio.to_thread(list_spills, self.store, messages)
        self._listed(entries)

    def _listed(
        self, entries: list[SpillEntry], *, auto_open: bool = True, opening: Path | None = None
    ) -> None:
        """Show ``entries``; ``opening``: a spill about to be opened (so no "pick one" notice
        in between: each of its class changes restyles the screen)."""
        listed: Listed = self.view.listed(entries, auto_open=auto_open)
        self._show_list()
        if listed.open is not None:
            self.open_spill(listed.open)
        elif listed.idle and opening is None:
            self._show_nothing()
        else:
            self._show_header()
        if listed.say is not None:
            self.status.say(listed.say.text, listed.say.tone)

    def _show_list(self) -> None:
        """The entries the filter lets through, the summary line and the subtitle."""
        view = self.view
        shown = view.visible()
        self.spill_list.set_entries(shown, view.path.name if view.path is not None else None)
        self.query_one("#spill-summary", Static).update(
            summary_content(view.entries, len(shown), view.where)
        )
        count = len(view.entries)
        self.sub_title = f"{view.where}/ · {count} {'spill' if count == 1 else 'spills'}"
        if self._show_hidden():
            self._sync_bindings()

    def _show_nothing(self) -> None:
        """No spill open: say there are none yet (and where they go), or to pick one."""
        self.add_class("-empty")
        self.remove_class("-error")
        notice = self.query_one(SpillNotice)
        if self.view.entries:
            notice.show_idle(len(self.view.entries))
        else:
            notice.show_empty(self.view.where)
        self._sync_bindings()

    @on(TranscriptChanged)
    def _transcript_changed(self) -> None:
        """The app says the transcript changed: which spills are referenced may have too."""
        self.refresh_list()

    @work(group="spill-watch", exclusive=True, exit_on_error=False, name="watch-spills")
    async def _watch(self) -> None:
        """Follow the spill directory (``watch``) and list it again when it changes."""
        await follow_spill_directory(Path(self.store.root), self.refresh_list, self.set_timer)

    @on(Input.Changed, "#spill-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        """Show what the filter lets through; the spill in view is shown only while it is
        among them (the viewer and the list agree: nothing acts on a spill not shown)."""
        self.view.filter = event.value
        self._show_list()

    def _show_hidden(self) -> bool:
        """Hide the viewer while the filter hides its spill (a notice says so and how to see
        it again); True when that changed."""
        hidden = self.view.hidden
        if hidden:  # the words may have changed since
            self.query_one(SpillNotice).show_hidden(self.view.shown, self.view.filter)
        if hidden == self.has_class("-hidden"):
            return False
        self.set_class(hidden, "-hidden")
        if not hidden and self.view.error is not None:
            self.query_one(SpillNotice).show_error(self.view.shown, self.view.error)
        return True

    @on(Input.Submitted, "#spill-filter")
    def _filter_done(self) -> None:
        self.set_focus(self.spill_list)

    @on(SpillList.Picked)
    def _picked(self, event: SpillList.Picked) -> None:
        if event.entry.path != self.view.path or self.view.error is not None:
            self.open_spill(event.entry.path)

    @on(SpillList.Entered)
    def _entered(self, event: SpillList.Entered) -> None:
        if event.entry.path != self.view.path:
            self.open_spill(event.entry.path)
        if self.view.window is not None:
            self.set_focus(self.viewer)

    # -- the viewer ------------------------------------------------------------------------

    def open_spill(self, path: Path, offset: int = 1) -> None:
        """View ``path`` from line ``offset`` (a card's spill lands at line 1)."""
        self.searcher.cancel()
        self.remove_class("-empty")
        step = self.view.open(path, offset)
        self.spill_list.select_name(path.name)
        self._show(step)

    @on(SpillViewer.Paged)
    def _paged(self, event: SpillViewer.Paged) -> None:
        event.stop()
        self._show(self.view.next_window() if event.forward else self.view.previous_window())

    def action_end(self) -> None:
        self._show(self.view.end())

    def go_to_line(self, line: int) -> None:
        self._show(self.view.go_to_line(line))

    def action_goto(self) -> None:
        self._ask(self.view.line_question())

    def action_window_size(self) -> None:
        self._ask(self.view.size_question())

    @on(LinePrompt.Answered)
    def _answered(self, event: LinePrompt.Answered) -> None:
        event.stop()
        value = event.value.strip()
        view = self.view
        if event.kind == "goto" and value:
            self._show(view.answer_line(value))
        elif event.kind == "size" and value:
            self._show(view.answer_size(value))
        elif event.kind in {"search", "search_back"}:
            query = value or view.search_text or ""
            backward = event.kind == "search_back"
            self._search(view.search(query, backward, self.viewer.line_at_top()))

    # -- search ----------------------------------------------------------------------------

    def action_search(self, backward: bool = False) -> None:
        self._ask(self.view.search_question(backward))

    def action_next_match(self, reverse: bool = False) -> None:
        self._search(self.view.next_match(reverse, self.viewer.line_at_top()))

    def _search(self, job: SearchJob | Step) -> None:
        if isinstance(job, Step):
            self._show(job)
            return
        self.searcher.start(job)
        self.status.searching(job.query, job.backward)

    def _found(self, job: SearchJob, result: SearchResult) -> None:
        self._show(self.view.found(job, result))

    def _search_progress(self, done: int, total: int) -> None:
        self.status.progress(done, total)

    # -- copy, delete, filter, close --------------------------------------------------------

    def action_copy(self) -> None:
        copied: Copied | Step = self.view.copy()
        if isinstance(copied, Step):
            self._show(copied)
            return
        copy(self.app, copied.text, copied.note, title="Copied")

    def action_delete(self) -> None:
        """Delete the spill in view, once the user says yes (``SpillDeletion``: refused while a
        live message or a saved session points to it)."""
        deletion = self.view.deletion()
        if isinstance(deletion, Step):
            self._show(deletion)
            return
        self.deletion.check(deletion)

    def show_deleted(self, path: Path) -> None:
        """``path`` was deleted: the list without it, the spill after it opened in its
        place."""
        self.searcher.cancel()
        place = self.view.forget(path)
        self.viewer.show(None)
        self._listed(list_spills(self.store, self.transcript()), auto_open=False)
        following = self.view.after(place)
        if following is not None:
            self.open_spill(following)

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
            self.status.say("Search cancelled.", "warning")
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
        state = self.view.keys_state
        if state != self._window_keys:
            self._window_keys = state
            if not self._mounting:
                self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"goto", "search", "window_size", "filter"} and isinstance(
            self.focused, Input
        ):
            return False  # typed into the input instead
        return self.view.allows(action)
