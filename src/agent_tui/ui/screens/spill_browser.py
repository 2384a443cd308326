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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Header, Input, Static

from agent_tui.core.budget.browse import (
    SpillEntry,
    SpillRefused,
    SpillWindow,
    delete_spill,
    line_start,
    list_spills,
    live_references,
    open_reader,
    window_ending_at,
    window_of,
)
from agent_tui.core.budget.search import Hit, Matcher, SearchCancelled, search_spill
from agent_tui.core.budget.store import SpillStore, is_spill_name
from agent_tui.core.tools.builtin import read_file
from agent_tui.core.transcript import Message
from agent_tui.ui.widgets.spills import (
    LinePrompt,
    SearchStatus,
    SpillHeader,
    SpillList,
    SpillNotice,
    SpillViewer,
)
from agent_tui.ui.widgets.spills.search_status import Tone
from agent_tui.ui.widgets.spills.spill_list import size_text
from agent_tui.ui.widgets.spills.spill_viewer import Highlight

log = logging.getLogger(__name__)

WATCH_DEBOUNCE_MS = 150
MESSAGES_POLL_SECONDS = 1.0
"""How often the "a live message points to it" marks are checked against the transcript."""
PROGRESS_SECONDS = 0.1


class SpillBrowser(Screen[None]):
    AUTO_FOCUS = None  # on_mount focuses the viewer (opened on a spill) or the list
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
        self._search_cancel: threading.Event | None = None
        self._progress = (0, 0)
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
        yield Footer()

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
        self._progress_timer = self.set_interval(PROGRESS_SECONDS, self._show_progress, pause=True)
        self.filter_box.cursor_blink = self.cursor_blink
        target, self.path = self.path, None
        # One focus change and no binding refresh while mounting: each makes the footer
        # rebuild itself, and it reads the keys' state when it is first composed anyway.
        (self.spill_list if target is None else self.viewer).focus()
        self._mounting = True
        self._apply_entries(list_spills(self.store, self._transcript()), auto_open=not target)
        if target is not None:
            self.open_spill(target)
        self._mounting = False
        self.set_interval(MESSAGES_POLL_SECONDS, self._check_messages)
        self._watch()

    def on_unmount(self) -> None:
        self._cancel_search()

    def _transcript(self) -> list[Message]:
        messages = list(self.messages())
        self._messages_seen = len(messages)
        return messages

    # -- the list --------------------------------------------------------------------------

    def _apply_entries(self, entries: list[SpillEntry], auto_open: bool = True) -> None:
        """Show a fresh listing; open the newest spill when none is open (``auto_open``)."""
        self.entries = entries
        self._show_list()
        if self.path is None:
            visible = self.spill_list.entries
            if auto_open and visible:
                self.open_spill(visible[0].path)
            else:
                self._show_nothing()
            return
        listed = any(e.path == self.path for e in entries)
        if not listed and self.window is not None and not self.gone and not self.path.exists():
            self.gone = True
            self._say(f"{self._shown()} was deleted from disk.", "warning")
        self._show_header()

    def _show_nothing(self) -> None:
        """No spill open: say there are none yet (and where they go), or to pick one."""
        self.add_class("-empty")
        self.remove_class("-error")
        notice = self.query_one(SpillNotice)
        if self.entries:
            notice.show_idle(len(self.entries))
            self._say("")
        else:
            notice.show_empty(self.where)
            self._say(f"Watching {self.where}/ for new spills.")
        self._sync_bindings()

    def _filtered(self) -> list[SpillEntry]:
        words = self.filter_box.value.lower().split()
        if not words:
            return self.entries
        return [
            e
            for e in self.entries
            if all(w in f"{e.tool} {e.call_id} {e.name}".lower() for w in words)
        ]

    def _show_list(self) -> None:
        shown = self._filtered()
        keep = self.path.name if self.path is not None else None
        self.spill_list.set_entries(shown, keep)
        total = sum(e.bytes for e in self.entries)
        count = len(self.entries)
        noun = "spill" if count == 1 else "spills"
        if len(shown) != count:
            text = f"{len(shown)} of {count} {noun} shown"
        else:
            text = f"{count} {noun} · {size_text(total)}"
        self.query_one("#spill-summary", Static).update(
            Content.assemble(
                f"{text} in {self.where}/\n",
                ("●", "$text-success"),
                " a live message points to it  ○ none",
            )
        )
        self.sub_title = f"{self.where}/ · {count} {noun}"

    def _entry(self, path: Path | None) -> SpillEntry | None:
        return next((e for e in self.entries if e.path == path), None)

    @work(group="spill-list", exclusive=True, exit_on_error=False, name="list-spills")
    async def refresh_list(self) -> None:
        """Read the spill directory again (in a thread) and show what is there."""
        messages = self._transcript()
        entries = await asyncio.to_thread(list_spills, self.store, messages)
        self._apply_entries(entries)

    def _check_messages(self) -> None:
        if len(self.messages()) != self._messages_seen:
            self.refresh_list()

    @work(group="spill-watch", exclusive=True, exit_on_error=False, name="watch-spills")
    async def _watch(self) -> None:
        """Follow the spill directory; before it exists, the nearest existing parent."""
        from watchfiles import awatch

        root = Path(self.store.root)
        polling = False
        while True:
            target = _nearest_directory(root)
            try:
                async for changes in awatch(
                    target,
                    watch_filter=None,
                    recursive=False,
                    debounce=WATCH_DEBOUNCE_MS,
                    step=50,
                    force_polling=polling or None,
                    poll_delay_ms=300,
                ):
                    if target != root:
                        if _nearest_directory(root) != target:
                            break  # a directory on the way to it appeared: go closer
                        continue
                    gone = _nearest_directory(root) != root
                    if gone or any(is_spill_name(os.path.basename(p)) for _, p in changes):
                        self.refresh_list()
                    if gone:
                        break  # the spill directory was removed: wait for it again
            except (OSError, RuntimeError) as exc:  # e.g. the inotify watch limit
                log.warning("watching %s failed (%s); polling instead", target, exc)
                polling = True
                await asyncio.sleep(1.0)
            self.refresh_list()
            self.set_timer(0.3, self.refresh_list)  # what was written while switching
            await asyncio.sleep(0.1)

    @on(Input.Changed, "#spill-filter")
    def _filter_changed(self) -> None:
        self._show_list()

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
        self._cancel_search()
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
        window = self._ready()
        if window is None:
            return
        if window.at_end:
            self._say(f"End of file: line {window.total:,} is the last.", "warning")
            return
        self.marked = None
        if self._load(window.last + 1):
            self._say(f"{self.window.span if self.window else ''}")

    def action_previous_window(self) -> None:
        window = self._ready()
        if window is None or self.path is None:
            return
        if window.offset <= 1:
            self._say("Start of file: this window begins at line 1.", "warning")
            return
        try:
            with open_reader(self.path, self._shown()) as reader:
                offset = window_ending_at(reader, window.offset - 1, self.limit)
        except SpillRefused as refused:
            self._fail(refused)
            return
        self.marked = None
        if self._load(offset, at="end"):
            self._say(f"{self.window.span if self.window else ''}")

    def action_end(self) -> None:
        if self._ready() is None:
            return
        self.marked = None
        if self._load(1, at="end", end=True) and self.window is not None:
            self._say(f"End of file: {self.window.span}.")

    def go_to_line(self, line: int) -> None:
        window = self._ready()
        if window is None:
            return
        total = window.total
        if total == 0:
            self._say("The file is empty.", "warning")
            return
        note = ""
        if line > total:
            note, line = f" (line {line:,} is past the end)", total
        line = max(line, 1)
        self.marked = line
        if window.contains(line):
            self.viewer.set_highlight(self._highlight(), line)
            self.viewer.bring_line(line - window.offset)
        elif not self._load(line, at=line):
            return
        self._say(f"Line {line:,} of {total:,}{note}.", "warning" if note else "info")

    def action_goto(self) -> None:
        window = self._ready()
        if window is None:
            return
        self.prompt.ask(
            "goto",
            f"Go to line (1–{window.total:,}):",
            placeholder="number or $",
            back_to=self.viewer,
        )

    def action_window_size(self) -> None:
        if self._ready() is None:
            return
        self.prompt.ask(
            "size",
            f"Window size in lines (1–{read_file.MAX_LINES:,}):",
            str(self.limit),
            back_to=self.viewer,
        )

    @on(LinePrompt.Answered)
    def _answered(self, event: LinePrompt.Answered) -> None:
        event.stop()
        value = event.value.strip()
        if event.kind == "goto" and value:
            if value == "$" and self.window is not None:
                self.go_to_line(self.window.total)
                return
            number = _number(value)
            if number is None:
                self._say(f"Not a line number: {value}", "error")
            else:
                self.go_to_line(number)
        elif event.kind == "size" and value:
            number = _number(value)
            if number is None or not 1 <= number <= read_file.MAX_LINES:
                self._say(
                    f"The window size is a number of lines from 1 to {read_file.MAX_LINES:,}.",
                    "error",
                )
                return
            self.limit = number
            if self.window is not None and self._load(self.window.offset):
                self._say(f"Window size: {number:,} lines.")
        elif event.kind in {"search", "search_back"}:
            self._search_from_view(value or self.search_text or "", event.kind == "search_back")

    # -- search ----------------------------------------------------------------------------

    def action_search(self, backward: bool = False) -> None:
        if self._ready() is None:
            return
        kind = "search_back" if backward else "search"
        hint = f"empty: {self.search_text}" if self.search_text else "text (smart case)"
        self.prompt.ask(kind, "?" if backward else "/", placeholder=hint, back_to=self.viewer)

    def action_next_match(self, reverse: bool = False) -> None:
        if self._ready() is None:
            return
        if not self.search_text:
            self._say("No search yet: / searches forward, ? backward.", "warning")
            return
        backward = self.backward != reverse
        if self.hit is None:
            self._search_from_view(self.search_text, backward)
            return
        start = self.hit.byte if backward else self.hit.byte + 1
        self._start_search(self.search_text, backward, start, remember=False)

    def _search_from_view(self, query: str, backward: bool) -> None:
        """Search from the first line in view: forward from its start, backward before it."""
        if not query or self.path is None or self.window is None:
            return
        line = self.viewer.line_at_top() or self.window.offset
        try:
            with open_reader(self.path, self._shown()) as reader:
                start = line_start(reader.index, line)
        except SpillRefused as refused:
            self._fail(refused)
            return
        self._start_search(query, backward, start, remember=True)

    def _start_search(self, query: str, backward: bool, start: int, remember: bool) -> None:
        if self.path is None:
            return
        self._cancel_search()
        if remember:
            self.search_text, self.backward = query, backward
        cancel = threading.Event()
        self._search_cancel = cancel
        self._progress = (0, 0)
        self.status.searching(query, backward)
        self._progress_timer.resume()
        self._search(self.path, self._shown(), query, start, backward, cancel)

    @work(thread=True, group="spill-search", exit_on_error=False, name="search-spill")
    def _search(
        self,
        path: Path,
        shown: str,
        query: str,
        start: int,
        backward: bool,
        cancel: threading.Event,
    ) -> None:
        def progress(done: int, total: int) -> None:
            self._progress = (done, total)

        result: Hit | SpillRefused | str | None
        try:
            result = search_spill(
                path, query, start, backward=backward, cancel=cancel, progress=progress, shown=shown
            )
        except SearchCancelled:
            result = "cancelled"
        except SpillRefused as refused:
            result = refused
        except OSError as exc:
            result = SpillRefused("missing", f"{shown} cannot be read: {exc}.", "")
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.app.call_from_thread(self._search_done, cancel, path, query, backward, result)

    def _show_progress(self) -> None:
        done, total = self._progress
        if total:
            self.status.progress(done, total)

    def _cancel_search(self) -> bool:
        """Stop a running search; True when one was running."""
        cancel, self._search_cancel = self._search_cancel, None
        if cancel is None:
            return False
        cancel.set()
        with contextlib.suppress(Exception):
            self._progress_timer.pause()
        return True

    @property
    def searching(self) -> bool:
        return self._search_cancel is not None

    def _search_done(
        self,
        cancel: threading.Event,
        path: Path,
        query: str,
        backward: bool,
        result: Hit | SpillRefused | str | None,
    ) -> None:
        if cancel is not self._search_cancel or path != self.path:
            return  # a search that was cancelled or replaced meanwhile
        self._search_cancel = None
        self._progress_timer.pause()
        if isinstance(result, SpillRefused):
            self._fail(result)
        elif result == "cancelled":
            self._say("Search cancelled.", "warning")
        elif result is None:
            self._say(f"Not found: {query}", "error")
        elif isinstance(result, Hit):
            self._show_hit(result, backward)

    def _show_hit(self, hit: Hit, backward: bool) -> None:
        self.hit = hit
        self.marked = hit.line
        window = self.window
        if window is not None and window.contains(hit.line):
            self.viewer.set_highlight(self._highlight(), hit.line)
            self.viewer.bring_line(hit.line - window.offset)
        elif not self._load(hit.line, at=hit.line) or self.window is None:
            return
        message = f"Match at line {hit.line:,}, column {hit.column + 1:,}"
        cut = next((chars for line, chars in self.window.cut if line == hit.line), None)
        if cut is not None and hit.column >= read_file.MAX_LINE_CHARS:
            call = read_file.call_text(self._shown(), offset=hit.line, char_offset=hit.column)
            message += (
                f", past the {read_file.MAX_LINE_CHARS:,} characters read_file shows of this "
                f"{cut:,}-character line: {call} reads it"
            )
        if hit.wrapped:
            message += " · search wrapped to the " + ("bottom" if backward else "top")
        self._say(message + ".", "warning" if hit.wrapped else "success")

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
        path = self.path
        if path is None:
            self._say("No spill is open.", "warning")
            return
        entry = self._entry(path)
        shown = self._shown()
        who = live_references(self._transcript()).get(path.name)  # now, not at the last listing
        if who is not None:
            self._refuse_delete(shown, who)
            return
        size = ""
        if entry is not None and entry.lines is not None and entry.chars is not None:
            lines = "line" if entry.lines == 1 else "lines"
            size = f" ({entry.lines:,} {lines}, {entry.chars:,} characters)"

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(path)

        self.app.push_screen(ConfirmDelete(shown, size), answered)

    def _refuse_delete(self, shown: str, who: str) -> None:
        self.notify(
            f"{shown} is still pointed to by a live message ({who}): the model may read it. "
            "It is deleted by itself once no message of the session refers to it.",
            title="Not deleted",
            severity="error",
        )

    def _delete(self, path: Path) -> None:
        visible = [e.name for e in self.spill_list.entries]
        at = visible.index(path.name) if path.name in visible else 0
        try:
            delete_spill(self.store, path, self._transcript())
        except SpillRefused as refused:
            self.notify(str(refused), title="Not deleted", severity="error")
            return
        self.notify(f"Deleted {self.store.shown(path)}.", title="Spill deleted")
        self._cancel_search()
        self.path, self.window, self.hit = None, None, None
        self.viewer.show(None)
        self._apply_entries(list_spills(self.store, self._transcript()), auto_open=False)
        rest = self.spill_list.entries
        if rest:
            self.open_spill(rest[min(at, len(rest) - 1)].path)

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
        elif self._cancel_search():
            self._say("Search cancelled.", "warning")
        elif self.focused is self.filter_box:
            if self.filter_box.value:
                self.filter_box.value = ""
            else:
                self.set_focus(self.spill_list)
        else:
            self.action_close()

    def action_close(self) -> None:
        self._cancel_search()
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


class ConfirmDelete(ModalScreen[bool]):
    """Delete this spill? y / Enter deletes, n / Esc keeps it."""

    DEFAULT_CSS = """
    ConfirmDelete {
        align: center middle;
        background: $background 60%;
        & > #dialog {
            width: 72; max-width: 96%; height: auto; padding: 1 2;
            background: $surface;
            border: round $error;
            border-title-color: $error;
            border-title-style: bold;
            & > #hint { color: $text-muted; margin-top: 1; }
        }
    }
    """

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Delete", id="confirm.delete"),
        Binding("n,escape", "answer(False)", "Keep", id="confirm.keep"),
    ]

    def __init__(self, shown: str, detail: str) -> None:
        super().__init__()
        self.shown = shown
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Delete this spill?"
            yield Static(
                Content.assemble(
                    (self.shown, "bold"),
                    self.detail,
                    "\nNo live message points to it. The file and its index are deleted; this "
                    "cannot be undone.",
                )
            )
            yield Static(
                Content.assemble(("y", "bold $text-error"), " delete   ", ("n", "bold"), " keep"),
                id="hint",
            )

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def _nearest_directory(path: Path) -> Path:
    """``path`` when it is a directory, else its nearest ancestor that is."""
    while not path.is_dir() and path.parent != path:
        path = path.parent
    return path


def _number(text: str) -> int | None:
    cleaned = text.replace(",", "").replace("_", "").strip()
    return int(cleaned) if cleaned.isdigit() else None
