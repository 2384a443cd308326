"""The spill browser's state, and what each of its keys does to it. Pure Python: no Textual.

``SpillView`` holds what the browser shows — the listing and its filter, the spill open, the
window of it in view (offset and size), the marked line, the search and its last hit — and
answers each action with a ``Step``: whether there is a new window to draw (or none, when the
spill cannot be shown: ``error`` says why), or a line of the window in view to bring forward,
and what the status line says. The screen (``browser``) routes key presses, prompt answers
and worker results to it and shows the steps through its widgets, the way ``calls.book``
folds tool events into the states the cards draw.

Windows are read through the spill's line index (``core.browse``), so a step costs what one
window costs, never the file (the steps, questions and jobs it answers with are in
``steps``). The search is a collaborator (``finder.Finder``): ``search`` / ``next_match`` say
where a search starts (a ``SearchJob``, run in a thread by ``search.SpillSearch``), and
``found`` takes what it found, bringing the match into view through ``load``. Each move (a
page, a line, the end) counts in ``moves``, so a search that ends after the user moved does
not jump away.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from agent_tui.core.browse import (
    COPY_MAX_BYTES,
    SpillEntry,
    SpillRefused,
    SpillWindow,
    last_segment,
    open_reader,
    segment_of,
    window_ending_at,
    window_of,
    window_text,
)
from agent_tui.core.browse.search import Hit
from agent_tui.core.budget.store import SpillStore
from agent_tui.core.tools.builtin import read_file
from agent_tui.ui.spills.finder import Finder
from agent_tui.ui.spills.steps import (
    CLEARED,
    NOTHING,
    Copied,
    Deletion,
    Highlight,
    Listed,
    Question,
    Say,
    SearchJob,
    SearchResult,
    Step,
)


class SpillView:
    """The state of one spill browser (see the module docstring)."""

    def __init__(self, store: SpillStore, *, limit: int = read_file.MAX_LINES) -> None:
        self.store = store
        self.entries: list[SpillEntry] = []
        """The last listing of the spill directory, newest first."""
        self.filter = ""
        """The words the list is narrowed to (all must appear in a spill's description)."""
        self.path: Path | None = None
        """The spill being viewed."""
        self.window: SpillWindow | None = None
        self.limit = limit
        """The window size in lines (``w``)."""
        self.error: SpillRefused | None = None
        """Why the spill being viewed cannot be shown."""
        self.gone = False
        """The spill being viewed was deleted from disk (its last window still shows)."""
        self.marked: int | None = None
        """The line drawn marked: a goto target, or the line of the current match."""
        self.moves = 0
        """How many times the user moved (paged, went to a line or the end)."""
        self.find = Finder(self)
        """The search: what was searched, which way, the match in view."""

    # -- what is shown ---------------------------------------------------------------------

    @property
    def where(self) -> str:
        """The spill directory as the model sees it."""
        return self.store.shown(self.store.root)

    @property
    def shown(self) -> str:
        """The spill being viewed, as the model sees it (empty when none is)."""
        return self.store.shown(self.path) if self.path is not None else ""

    def entry(self, path: Path | None = None) -> SpillEntry | None:
        """The listing's entry of ``path`` (by default the spill being viewed)."""
        wanted = self.path if path is None else path
        return next((e for e in self.entries if e.path == wanted), None)

    @property
    def hidden(self) -> bool:
        """The filter hides the spill in view (listed, but not shown): it is not drawn, and
        nothing acts on it (``d`` above all) until the filter shows it again or another is
        picked."""
        entry = self.entry()
        return entry is not None and entry not in self.visible()

    def visible(self) -> list[SpillEntry]:
        """The entries the filter lets through."""
        words = self.filter.lower().split()
        if not words:
            return self.entries
        return [
            e
            for e in self.entries
            if all(w in f"{e.tool} {e.call_id} {e.summary} {e.name}".lower() for w in words)
        ]

    # -- the listing -----------------------------------------------------------------------

    def listed(self, entries: Sequence[SpillEntry], *, auto_open: bool = True) -> Listed:
        """Take a fresh listing: open the newest spill shown when none is open
        (``auto_open``), and notice when the one in view was deleted from disk."""
        self.entries = list(entries)
        if self.path is None:
            visible = self.visible()
            if auto_open and visible:
                return Listed(open=visible[0].path)
            if self.entries:
                return Listed(idle=True, say=Say(""))
            return Listed(idle=True, say=Say(f"Watching {self.where}/ for new spills."))
        listed = any(e.path == self.path for e in self.entries)
        if not listed and self.window is not None and not self.gone and not self.path.exists():
            self.gone = True
            return Listed(say=Say(f"{self.shown} was deleted from disk.", "warning"))
        return Listed()

    # -- opening and reading windows -------------------------------------------------------

    def open(self, path: Path, offset: int = 1) -> Step:
        """View ``path`` from line ``offset`` (a card's spill lands at line 1)."""
        self.path = path
        self.window = None
        self.error = None
        self.gone = False
        self.find.hit = None
        self.marked = None
        self.load(offset)
        return CLEARED

    def load(self, offset: int, *, end: bool = False, char_offset: int = 0) -> bool:
        """Read the window from ``offset`` (``end``: the window that ends the file, or the
        last segment of its last line when that line is cut; ``char_offset``: the segment of
        line ``offset`` from there); False when it cannot be read (``error`` says why)."""
        if self.path is None:
            return False
        shown = self.shown
        try:
            with open_reader(self.path, shown) as reader:
                if char_offset:
                    window = segment_of(reader, shown, offset, char_offset, self.limit)
                else:
                    if end:
                        offset = window_ending_at(reader, reader.lines, self.limit)
                    window = window_of(reader, shown, offset, self.limit)
                    cut = window.last_cut
                    if end and cut is not None:  # the end of the file is the end of that line
                        window = segment_of(reader, shown, window.last, last_segment(cut))
        except SpillRefused as refused:
            self.fail(refused)
            return False
        except OSError as exc:
            self.fail(SpillRefused("missing", f"{shown} cannot be read: {exc}.", ""))
            return False
        self.window = window
        self.error = None
        return True

    def fail(self, refused: SpillRefused) -> None:
        """The spill in view cannot be shown (``refused`` says why): no window."""
        self.error = refused
        self.window = None
        self.gone = False

    def not_ready(self) -> Step | None:
        """Why there is no window to act on, or None when there is one."""
        if self.hidden:
            return Step(say=Say(self.hidden_text(), "warning"))
        if self.window is not None:
            return None
        what = "No spill is open." if self.error is None else self.error.what
        return Step(say=Say(what, "warning"))

    # -- paging ----------------------------------------------------------------------------

    def next_window(self) -> Step:
        """PgDn: what read_file's footer says to read next — the window after this one, or,
        when this one's last line is cut, the rest of that line a segment at a time (then the
        line after it)."""
        if (blocked := self.not_ready()) is not None:
            return blocked
        window = self.window
        assert window is not None
        if window.segment and window.segment_end < window.line_chars:
            return self._segment_step(window.offset, window.segment_end)
        cut = window.last_cut
        if cut is not None:
            return self._segment_step(window.last, read_file.MAX_LINE_CHARS)
        if window.at_end:
            return Step(say=Say(f"End of file: line {window.total:,} is the last.", "warning"))
        self.marked = None
        self.moves += 1
        return self._moved(window.last + 1, None, lambda w: w.span)

    def _segment_step(self, line: int, char_offset: int) -> Step:
        """Read on in ``line`` from ``char_offset``."""
        self.marked = None
        self.moves += 1
        if not self.load(line, char_offset=char_offset) or self.window is None:
            return CLEARED
        return Step(say=Say(self.window.span), redraw=True)

    def previous_window(self) -> Step:
        """PgUp: the window that ends just before this one (before a segment: the one before
        it in its line, or the window of lines that ends with the line)."""
        if (blocked := self.not_ready()) is not None:
            return blocked
        window = self.window
        assert window is not None
        assert self.path is not None
        if window.segment and window.char_offset > read_file.MAX_LINE_CHARS:
            back = max(read_file.MAX_LINE_CHARS, window.char_offset - read_file.SEGMENT_CHARS)
            return self._segment_step(window.offset, back)
        if window.offset <= 1 and not window.segment:
            return Step(say=Say("Start of file: this window begins at line 1.", "warning"))
        end_line = window.offset if window.segment else window.offset - 1
        try:
            with open_reader(self.path, self.shown) as reader:
                offset = window_ending_at(reader, end_line, self.limit)
        except SpillRefused as refused:
            self.fail(refused)
            return CLEARED
        self.marked = None
        self.moves += 1
        return self._moved(offset, "end", lambda w: w.span)

    def end(self) -> Step:
        """G: the window that ends the file (the last segment of its last line, when that
        line is too long for a row: the last characters of the file)."""
        if (blocked := self.not_ready()) is not None:
            return blocked
        self.marked = None
        self.moves += 1
        if not self.load(1, end=True) or self.window is None:
            return CLEARED
        return Step(say=Say(f"End of file: {self.window.span}."), redraw=True, at="end")

    def _moved(self, offset: int, at: int | str | None, say: Callable[[SpillWindow], str]) -> Step:
        """Read the window from ``offset``; the status line says ``say(window)``."""
        if not self.load(offset) or self.window is None:
            return CLEARED
        return Step(say=Say(say(self.window)), redraw=True, at=at)

    def go_to_line(self, line: int) -> Step:
        """Mark ``line`` and bring it into view (past the end: the last line)."""
        if (blocked := self.not_ready()) is not None:
            return blocked
        window = self.window
        assert window is not None
        total = window.total
        if total == 0:
            return Step(say=Say("The file is empty.", "warning"))
        note = ""
        if line > total:
            note, line = f" (line {line:,} is past the end)", total
        line = max(line, 1)
        self.marked = line
        self.moves += 1
        say = Say(f"Line {line:,} of {total:,}{note}.", "warning" if note else "info")
        if window.contains(line) and not window.segment:
            return Step(say=say, line=line)
        if not self.load(line):
            return CLEARED
        return Step(say=say, redraw=True, at=line)

    def line_question(self) -> Question | Step:
        """``g``: the prompt for a line to go to (answered by ``answer_line``)."""
        if (blocked := self.not_ready()) is not None:
            return blocked
        assert self.window is not None
        return Question(
            "goto",
            f"Go to line (1–{self.window.total:,}):",
            placeholder="number, $, or line:char",
        )

    def size_question(self) -> Question | Step:
        """``w``: the prompt for the window size (answered by ``answer_size``)."""
        if (blocked := self.not_ready()) is not None:
            return blocked
        return Question(
            "size", f"Window size in lines (1–{read_file.MAX_LINES:,}):", str(self.limit)
        )

    def answer_line(self, value: str) -> Step:
        """Go to the line typed (``$``: the last one); ``LINE:CHAR`` goes to a character of a
        line, as ``read_file(path, offset=LINE, char_offset=CHAR)`` reads on in it."""
        if value == "$" and self.window is not None:
            return self.go_to_line(self.window.total)
        line, _, char = value.partition(":")
        number = _number(line)
        if number is None or (char and _number(char) is None):
            return Step(say=Say(f"Not a line number (LINE or LINE:CHAR): {value}", "error"))
        column = _number(char) if char else None
        if column is not None and column >= read_file.MAX_LINE_CHARS:
            return self.go_to_char(number, column)
        return self.go_to_line(number)

    def go_to_char(self, line: int, char: int) -> Step:
        """The segment of ``line`` from ``char`` (a character past read_file's row)."""
        if (blocked := self.not_ready()) is not None:
            return blocked
        assert self.window is not None
        total = self.window.total
        if not 1 <= line <= total:
            return Step(say=Say(f"Line {line:,} is not in the file (1–{total:,}).", "error"))
        step = self._segment_step(line, char)
        window = self.window
        if window is not None and not window.segment:  # the line is short: no such character
            chars = dict(window.cut).get(line, len(window.texts[0]) if window.texts else 0)
            say = Say(f"Line {line:,} has no character {char:,} (it has {chars:,}).", "warning")
            return Step(say=say, redraw=True, at=line)
        return step

    def answer_size(self, value: str) -> Step:
        """Use the window size typed, and read the window in view again with it."""
        number = _number(value)
        if number is None or not 1 <= number <= read_file.MAX_LINES:
            return Step(
                say=Say(
                    f"The window size is a number of lines from 1 to {read_file.MAX_LINES:,}.",
                    "error",
                )
            )
        self.limit = number
        if self.window is None:
            return NOTHING
        return self._moved(self.window.offset, None, lambda _: f"Window size: {number:,} lines.")

    # -- which keys act --------------------------------------------------------------------

    def allows(self, action: str) -> bool | None:
        """Whether the browser's key ``action`` acts now: True, or None (shown dimmed): the
        window keys need a window shown, ``d`` a spill in view (neither hidden by the
        filter)."""
        if action in {"goto", "end", "search", "copy", "next_match", "window_size"}:
            return True if self.window is not None and not self.hidden else None
        if action == "delete":
            return True if self.path is not None and not self.hidden else None
        return True

    @property
    def keys_state(self) -> tuple[bool, bool]:
        """What ``allows`` depends on: a window shown, a spill in view (the screen refreshes
        its keys when this changes)."""
        return (self.window is not None and not self.hidden, self.path is not None)

    # -- search (``finder``) ---------------------------------------------------------------

    @property
    def search_text(self) -> str | None:
        """What was searched last."""
        return self.find.text

    @property
    def hit(self) -> Hit | None:
        """The match in view."""
        return self.find.hit

    def highlight(self) -> Highlight:
        """The search's matches and its current one, for the viewer."""
        return self.find.highlight()

    def search_question(self, backward: bool) -> Question | Step:
        return self.find.question(backward)

    def search(self, query: str, backward: bool, top_line: int | None) -> SearchJob | Step:
        return self.find.search(query, backward, top_line)

    def next_match(self, reverse: bool, top_line: int | None) -> SearchJob | Step:
        return self.find.next_match(reverse, top_line)

    def found(self, job: SearchJob, result: SearchResult) -> Step:
        return self.find.found(job, result)

    # -- copy and delete -------------------------------------------------------------------

    def copy(self) -> Copied | Step:
        """``y``: the lines of the window as the file has them — not read_file's numbered
        rows, nor the viewer's gutter; cut lines whole (up to ``COPY_MAX_BYTES``); of a
        segment, its characters. A byte that is not UTF-8 is copied as ``\\xNN``."""
        if (blocked := self.not_ready()) is not None:
            return blocked
        window = self.window
        assert window is not None
        assert self.path is not None
        if window.empty:
            return Step(say=Say("The file is empty: nothing to copy.", "warning"))
        try:
            with open_reader(self.path, self.shown) as reader:
                copied = window_text(reader, window)
        except SpillRefused as refused:
            self.fail(refused)
            return CLEARED
        lines = window.span if window.segment else f"lines {window.offset:,}–{window.last:,}"
        if not copied.complete:
            note = (
                f"Copied the first {len(copied.text):,} characters of {lines} (they hold more "
                f"than a copy takes: {COPY_MAX_BYTES // (1 << 20)} MB)"
            )
        else:
            note = f"Copied {lines} as the file has them ({len(copied.text):,} characters)"
        return Copied(copied.text, note)

    def hidden_text(self) -> str:
        return (
            f"The filter hides {self.shown}: pick a spill from the list, or clear the "
            "filter to see it again."
        )

    def deletion(self) -> Deletion | Step:
        """``d``: the spill it would delete (asked first; ``why_not_delete`` may refuse).
        Never one the filter hides: the user does not see what would be deleted."""
        if self.path is None:
            return Step(say=Say("No spill is open.", "warning"))
        if self.hidden:
            return Step(say=Say(f"Not deleted. {self.hidden_text()}", "warning"))
        entry = self.entry()
        size = ""
        if entry is not None and entry.lines is not None and entry.chars is not None:
            lines = "line" if entry.lines == 1 else "lines"
            size = f" ({entry.lines:,} {lines}, {entry.chars:,} characters)"
        return Deletion(self.path, self.shown, size)

    def forget(self, path: Path) -> int:
        """``path`` was deleted: view nothing; its place in the list shown (for ``after``)."""
        names = [e.name for e in self.visible()]
        place = names.index(path.name) if path.name in names else 0
        if self.path == path:
            self.path, self.window, self.find.hit, self.error = None, None, None, None
        return place

    def after(self, place: int) -> Path | None:
        """The spill to view in place of a deleted one: the one now at its ``place``."""
        rest = self.visible()
        return rest[min(place, len(rest) - 1)].path if rest else None


def _number(text: str) -> int | None:
    cleaned = text.replace(",", "").replace("_", "").strip()
    return int(cleaned) if cleaned.isdigit() else None
