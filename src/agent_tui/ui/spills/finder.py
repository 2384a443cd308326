"""The spill browser's search: what was searched, which way, and the match in view.
Pure Python: no Textual.

``Finder.search`` / ``next_match`` say where a search starts (a ``SearchJob``, run in a thread
by ``search.SpillSearch``) and ``found`` takes what it found: the match is brought into view
through the browser's state (``model.SpillView``, what ``SearchedView`` names), in the window
shown when it holds it, else in the window (or the segment of a long line) that does. A
search that ends after the user moved (``moves``) does not jump away.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from agent_tui.core.browse import SpillRefused, SpillWindow, open_reader
from agent_tui.core.browse.search import Hit, Matcher
from agent_tui.core.tools.builtin import read_file
from agent_tui.ui.spills.steps import (
    CLEARED,
    NOTHING,
    Highlight,
    Question,
    Say,
    SearchJob,
    SearchResult,
    Step,
)


class SearchedView(Protocol):
    """What of the browser's state (``SpillView``) the search reads and moves: the spill
    and window in view, the marked line, the count of moves, and reading a window."""

    path: Path | None
    window: SpillWindow | None
    marked: int | None
    moves: int

    @property
    def shown(self) -> str: ...

    def not_ready(self) -> Step | None: ...

    def load(self, offset: int, *, end: bool = False, char_offset: int = 0) -> bool: ...

    def fail(self, refused: SpillRefused) -> None: ...


class Finder:
    """The search of one spill browser (``view``: its state)."""

    def __init__(self, view: SearchedView) -> None:
        self.view = view
        self.text: str | None = None
        """What was searched last (``n`` / ``N`` search it again)."""
        self.backward = False
        self.hit: Hit | None = None
        """The match in view (``n`` goes on from it)."""

    def highlight(self) -> Highlight:
        """The search's matches and its current one, for the viewer."""
        pattern = Matcher(self.text).text_pattern() if self.text else None
        hit = self.hit
        if hit is None:
            return Highlight(pattern)
        window = self.view.window
        column = hit.column
        if window is not None and window.segment and hit.line == window.offset:
            column -= window.char_offset  # where it is in the segment's text
            if not 0 <= column < len(window.segment_text):
                return Highlight(pattern)
        return Highlight(pattern, hit.line, column, hit.length)

    def question(self, backward: bool) -> Question | Step:
        """``/`` (forward) or ``?`` (backward): the prompt for the text to search."""
        if (blocked := self.view.not_ready()) is not None:
            return blocked
        kind = "search_back" if backward else "search"
        hint = f"empty: {self.text}" if self.text else "text (smart case)"
        return Question(kind, "?" if backward else "/", placeholder=hint)

    def search(self, query: str, backward: bool, top_line: int | None) -> SearchJob | Step:
        """Search from the first line in view (``top_line``, else the window's first; in a
        segment, from its first character): forward from there, backward before it.
        Remembered for ``n`` / ``N``."""
        if not query or self.view.path is None or self.view.window is None:
            return NOTHING
        window = self.view.window
        line = window.offset if window.segment else (top_line or window.offset)
        try:
            with open_reader(self.view.path, self.view.shown) as reader:
                if window.segment:
                    start = reader.char_byte(line, window.char_offset)
                else:
                    start = reader.line_start(line)
        except SpillRefused as refused:
            self.view.fail(refused)
            return CLEARED
        self.text, self.backward = query, backward
        return self._job(query, backward, start)

    def next_match(self, reverse: bool, top_line: int | None) -> SearchJob | Step:
        """``n``: the next match in the search's direction (``reverse``, ``N``: the other
        way), on from the last match, or from the view when there is none yet."""
        if (blocked := self.view.not_ready()) is not None:
            return blocked
        if not self.text:
            return Step(say=Say("No search yet: / searches forward, ? backward.", "warning"))
        backward = self.backward != reverse
        if self.hit is None:
            return self.search(self.text, backward, top_line)
        start = self.hit.byte if backward else self.hit.byte + 1
        return self._job(self.text, backward, start)

    def _job(self, query: str, backward: bool, start: int) -> SearchJob:
        assert self.view.path is not None
        return SearchJob(self.view.path, self.view.shown, query, backward, start, self.view.moves)

    def found(self, job: SearchJob, result: SearchResult) -> Step:
        """What the search ``job`` found (nothing changes when another spill is open now)."""
        if job.path != self.view.path:
            return NOTHING
        if isinstance(result, SpillRefused):
            self.view.fail(result)
            return CLEARED
        if result == "cancelled":
            return Step(say=Say("Search cancelled.", "warning"))
        if result is None:
            return Step(say=Say(f"Not found: {job.query}", "error"))
        if self.view.moves != job.moves:
            # The user moved while it ran (keys typed after Enter): the move wins.
            self.hit = result
            return Step(
                say=Say(
                    f"Match at line {result.line:,}, not shown: you moved meanwhile "
                    f"(g {result.line} goes there, n to the next one).",
                    "warning",
                )
            )
        return self._show_hit(result, job.backward)

    def _show_hit(self, hit: Hit, backward: bool) -> Step:
        """Bring ``hit`` into view: in the window shown when it holds it, else the window of
        lines from its line, or — a match past the characters read_file shows of a long line —
        the segment of that line that holds it (segments start where PgDn's do)."""
        self.hit = hit
        self.view.marked = hit.line
        window = self.view.window
        shown_here = window is not None and (
            window.offset == hit.line and window.char_offset <= hit.column < window.segment_end
            if window.segment
            else window.contains(hit.line) and hit.column < read_file.MAX_LINE_CHARS
        )
        if shown_here:
            redraw, at, line = False, None, hit.line
        else:
            char_offset = 0
            if hit.column >= read_file.MAX_LINE_CHARS:
                past = hit.column - read_file.MAX_LINE_CHARS
                char_offset = read_file.MAX_LINE_CHARS + past - past % read_file.SEGMENT_CHARS
            if not self.view.load(hit.line, char_offset=char_offset) or self.view.window is None:
                return CLEARED
            redraw, at, line = True, hit.line, None
        window = self.view.window
        assert window is not None
        message = f"Match at line {hit.line:,}, column {hit.column + 1:,}"
        if window.segment:
            call = read_file.call_text(self.view.shown, offset=hit.line, char_offset=hit.column)
            message += (
                f", past the {read_file.MAX_LINE_CHARS:,} characters read_file shows of this "
                f"{window.line_chars:,}-character line: {call} reads it"
            )
        if hit.wrapped:
            message += " · search wrapped to the " + ("bottom" if backward else "top")
        say = Say(message + ".", "warning" if hit.wrapped else "success")
        return Step(say=say, redraw=redraw, at=at, line=line)
