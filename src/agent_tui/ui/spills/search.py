"""Running the spill browser's searches: one at a time, in a worker thread, cancellable.

``SpillView.search`` / ``next_match`` say what to search and from where (a ``SearchJob``);
``SpillSearch.start`` streams the file in a thread (``search_spill``, never loaded whole),
reports its progress while it runs, and hands the result to the ``done`` callback on the
app's thread — unless the search was cancelled or replaced meanwhile (Esc, another search,
another spill): then its result is dropped.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from functools import partial

from textual.dom import DOMNode
from textual.timer import Timer

from agent_tui.core.browse import SpillRefused
from agent_tui.core.browse.search import SearchCancelled, search_spill
from agent_tui.ui.spills.steps import SearchJob, SearchResult

PROGRESS_SECONDS = 0.1

Done = Callable[[SearchJob, SearchResult], None]
Progress = Callable[[int, int], None]


class SpillSearch:
    """The searches of one screen (``owner``: its workers and timer stop with it)."""

    def __init__(self, owner: DOMNode, done: Done, progress: Progress) -> None:
        self.owner = owner
        self.done = done
        """Called with each search's result (on the app's thread)."""
        self.progress = progress
        """Called with (bytes done, bytes to do) while a search runs."""
        self._cancel: threading.Event | None = None
        self._progress = (0, 0)
        self._timer: Timer | None = None

    def start_timer(self) -> None:
        """Create the (paused) timer that shows a running search's progress (on mount)."""
        self._timer = self.owner.set_interval(PROGRESS_SECONDS, self._show_progress, pause=True)

    @property
    def _progress_timer(self) -> Timer:
        assert self._timer is not None, "start_timer() runs on mount"
        return self._timer

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, job: SearchJob) -> None:
        """Run ``job`` (a running search is cancelled first)."""
        self.cancel()
        cancel = threading.Event()
        self._cancel = cancel
        self._progress = (0, 0)
        self._progress_timer.resume()
        self.owner.run_worker(
            partial(self._search, job, cancel),
            name="search-spill",
            group="spill-search",
            description=f"search {job.query!r} in {job.shown} from byte {job.start}",
            exit_on_error=False,
            thread=True,
        )

    def _search(self, job: SearchJob, cancel: threading.Event) -> None:
        """The worker (a thread): stream the file, then hand the result to ``_done``."""

        def progress(done: int, total: int) -> None:
            self._progress = (done, total)

        result: SearchResult
        try:
            result = search_spill(
                job.path,
                job.query,
                job.start,
                backward=job.backward,
                cancel=cancel,
                progress=progress,
                shown=job.shown,
            )
        except SearchCancelled:
            result = "cancelled"
        except SpillRefused as refused:
            result = refused
        except OSError as exc:
            result = SpillRefused("missing", f"{job.shown} cannot be read: {exc}.", "")
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.owner.app.call_from_thread(self._done, cancel, job, result)

    def _show_progress(self) -> None:
        done, total = self._progress
        if total:
            self.progress(done, total)

    def cancel(self) -> bool:
        """Stop a running search; True when one was running."""
        cancel, self._cancel = self._cancel, None
        if cancel is None:
            return False
        cancel.set()
        with contextlib.suppress(Exception):
            self._progress_timer.pause()
        return True

    def _done(self, cancel: threading.Event, job: SearchJob, result: SearchResult) -> None:
        if cancel is not self._cancel:
            return  # a search that was cancelled or replaced meanwhile
        self._cancel = None
        self._progress_timer.pause()
        self.done(job, result)
