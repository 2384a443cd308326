"""Searching a spill in the spill browser: ``/`` and ``?`` from the first line in view, ``n`` /
``N`` on from the last match, wrapping around like vim. The file is streamed in a worker thread
(``search_spill``, never loaded whole), the progress shows while it runs and Esc cancels it."""

from __future__ import annotations

import contextlib
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.timer import Timer

from agent_tui.core.budget.browse import SpillRefused, line_start, open_reader
from agent_tui.core.budget.search import Hit, SearchCancelled, search_spill
from agent_tui.core.tools.builtin import read_file

if TYPE_CHECKING:
    from agent_tui.ui.spills.browser import SpillBrowser

PROGRESS_SECONDS = 0.1

Result = Hit | SpillRefused | str | None
"""What a search found: the hit, a refusal, ``"cancelled"``, or None (not found)."""


class SpillSearch:
    """The search of one spill browser: at most one runs at a time. The query, its direction
    and the last hit stay on the browser (``search_text``, ``backward``, ``hit``), which
    highlights them."""

    def __init__(self, browser: SpillBrowser) -> None:
        self.browser = browser
        self._cancel: threading.Event | None = None
        self._progress = (0, 0)
        self._timer: Timer | None = None
        self._moves = 0
        """``browser.moves`` when the running search started."""

    def start_timer(self) -> None:
        """Create the (paused) timer that shows a running search's progress (on mount)."""
        self._timer = self.browser.set_interval(PROGRESS_SECONDS, self._show_progress, pause=True)

    @property
    def _progress_timer(self) -> Timer:
        assert self._timer is not None, "start_timer() runs on mount"
        return self._timer

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def ask(self, backward: bool) -> None:
        """Open the prompt for a search forward (``/``) or backward (``?``)."""
        browser = self.browser
        if browser._ready() is None:
            return
        kind = "search_back" if backward else "search"
        hint = f"empty: {browser.search_text}" if browser.search_text else "text (smart case)"
        browser.prompt.ask(kind, "?" if backward else "/", placeholder=hint, back_to=browser.viewer)

    def next_match(self, reverse: bool = False) -> None:
        """The next match in the search's direction (``reverse``: the other way)."""
        browser = self.browser
        if browser._ready() is None:
            return
        if not browser.search_text:
            browser._say("No search yet: / searches forward, ? backward.", "warning")
            return
        backward = browser.backward != reverse
        if browser.hit is None:
            self.from_view(browser.search_text, backward)
            return
        start = browser.hit.byte if backward else browser.hit.byte + 1
        self._start(browser.search_text, backward, start, remember=False)

    def from_view(self, query: str, backward: bool) -> None:
        """Search from the first line in view: forward from its start, backward before it."""
        browser = self.browser
        if not query or browser.path is None or browser.window is None:
            return
        line = browser.viewer.line_at_top() or browser.window.offset
        try:
            with open_reader(browser.path, browser._shown()) as reader:
                start = line_start(reader.index, line)
        except SpillRefused as refused:
            browser._fail(refused)
            return
        self._start(query, backward, start, remember=True)

    def _start(self, query: str, backward: bool, start: int, remember: bool) -> None:
        browser = self.browser
        if browser.path is None:
            return
        self.cancel()
        if remember:
            browser.search_text, browser.backward = query, backward
        cancel = threading.Event()
        self._cancel = cancel
        self._progress = (0, 0)
        self._moves = browser.moves
        browser.status.searching(query, backward)
        self._progress_timer.resume()
        path, shown = browser.path, browser._shown()
        browser.run_worker(
            partial(self._search, path, shown, query, start, backward, cancel),
            name="search-spill",
            group="spill-search",
            description=f"_search({path!r}, {shown!r}, {query!r}, {start!r}, {backward!r})",
            exit_on_error=False,
            thread=True,
        )

    def _search(
        self,
        path: Path,
        shown: str,
        query: str,
        start: int,
        backward: bool,
        cancel: threading.Event,
    ) -> None:
        """The worker (a thread): stream the file, then hand the result to ``_done``."""

        def progress(done: int, total: int) -> None:
            self._progress = (done, total)

        result: Result
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
            self.browser.app.call_from_thread(self._done, cancel, path, query, backward, result)

    def _show_progress(self) -> None:
        done, total = self._progress
        if total:
            self.browser.status.progress(done, total)

    def cancel(self) -> bool:
        """Stop a running search; True when one was running."""
        cancel, self._cancel = self._cancel, None
        if cancel is None:
            return False
        cancel.set()
        with contextlib.suppress(Exception):
            self._progress_timer.pause()
        return True

    def _done(
        self,
        cancel: threading.Event,
        path: Path,
        query: str,
        backward: bool,
        result: Result,
    ) -> None:
        browser = self.browser
        if cancel is not self._cancel or path != browser.path:
            return  # a search that was cancelled or replaced meanwhile
        self._cancel = None
        self._progress_timer.pause()
        if isinstance(result, SpillRefused):
            browser._fail(result)
        elif result == "cancelled":
            browser._say("Search cancelled.", "warning")
        elif result is None:
            browser._say(f"Not found: {query}", "error")
        elif isinstance(result, Hit) and browser.moves != self._moves:
            # The user moved while it ran (keys typed after Enter): the move wins.
            browser.hit = result
            browser._say(
                f"Match at line {result.line:,}, not shown: you moved meanwhile "
                f"(g {result.line} goes there, n to the next one).",
                "warning",
            )
        elif isinstance(result, Hit):
            self._show_hit(result, backward)

    def _show_hit(self, hit: Hit, backward: bool) -> None:
        browser = self.browser
        browser.hit = hit
        browser.marked = hit.line
        window = browser.window
        if window is not None and window.contains(hit.line):
            browser.viewer.set_highlight(browser._highlight(), hit.line)
            browser.viewer.bring_line(hit.line - window.offset)
        elif not browser._load(hit.line, at=hit.line) or browser.window is None:
            return
        message = f"Match at line {hit.line:,}, column {hit.column + 1:,}"
        window = browser.window
        assert window is not None  # loaded just above
        cut = next((chars for line, chars in window.cut if line == hit.line), None)
        if cut is not None and hit.column >= read_file.MAX_LINE_CHARS:
            call = read_file.call_text(browser._shown(), offset=hit.line, char_offset=hit.column)
            message += (
                f", past the {read_file.MAX_LINE_CHARS:,} characters read_file shows of this "
                f"{cut:,}-character line: {call} reads it"
            )
        if hit.wrapped:
            message += " · search wrapped to the " + ("bottom" if backward else "top")
        browser._say(message + ".", "warning" if hit.wrapped else "success")
