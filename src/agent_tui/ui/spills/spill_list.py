"""The list of spill files, newest first: per spill the tool and call that made it, what the
call was (its input in one line: the command, path or pattern; cut to the list's width), and
when, its size in lines and characters and whether a live message points to it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from agent_tui.core.browse import SpillEntry

DISPLAY_TZ: tzinfo | None = None
"""The time zone spill times are shown in (None: the local one; tests pin it)."""


def count(value: int) -> str:
    """A compact count: 950, 12.3k, 4.5M, 1.1G."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= size * 0.9995 and value >= 1000:
            scaled = value / size
            return f"{scaled:.1f}{unit}" if scaled < 100 else f"{scaled:.0f}{unit}"
    return str(value)


def size_text(value: int) -> str:
    """Bytes as B / KB / MB / GB (decimal, like the benchmarks)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if value >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value} B"


def when_text(entry: SpillEntry) -> str:
    return entry.when.astimezone(DISPLAY_TZ).strftime("%b %d %H:%M:%S")


def describe(entry: SpillEntry, width: int | None = None) -> Content:
    """The lines of one spill in the list: ``● tool call`` (● when a live message points to
    it, ○ when none does); what the call was, cut to ``width`` cells (spills written before
    it was kept have no such line); then when, lines and characters."""
    mark = ("● ", "$text-success") if entry.referenced else ("○ ", "$text-muted")
    head = Content.assemble(mark, (entry.tool, "bold"), "  ", (entry.call_id, "$text-secondary"))
    lines = [head]
    if entry.summary:
        summary = Content("  " + entry.summary)
        lines.append(summary.truncate(width, ellipsis=True) if width is not None else summary)
    if entry.lines is None or entry.chars is None:
        size = Content.styled(f"{size_text(entry.bytes)} · no valid index", "$text-error")
    else:
        line_word = "line" if entry.lines == 1 else "lines"
        char_word = "char" if entry.chars == 1 else "chars"
        size = Content.styled(
            f"{count(entry.lines)} {line_word} · {count(entry.chars)} {char_word}", "$text-muted"
        )
    details = Content.assemble(("  " + when_text(entry), "$text-muted"), ("  ·  ", "$text-muted"))
    lines.append(details + size)
    return Content("\n").join(lines)


def summary_content(entries: Sequence[SpillEntry], shown: int, where: str) -> Content:
    """The line under the list: how many spills (of how many, when the filter hides some),
    their size, where, and what the marks mean."""
    total = len(entries)
    noun = "spill" if total == 1 else "spills"
    if shown != total:
        text = f"{shown} of {total} {noun} shown"
    else:
        text = f"{total} {noun} · {size_text(sum(e.bytes for e in entries))}"
    return Content.assemble(
        f"{text} in {where}/\n",
        ("●", "$text-success"),
        " a live message points to it  ○ none",
    )


class SpillList(OptionList):
    """Spill entries; the highlighted one is the one the viewer shows."""

    DEFAULT_CSS = """
    SpillList {
        height: 1fr;
        border: none;
        padding: 0;
        background: $surface;
        &:focus { border: none; }
        & > .option-list--option { padding: 0 1; }
    }
    """

    class Picked(Message):
        """The highlight moved to ``entry`` (keys or mouse)."""

        def __init__(self, entry: SpillEntry) -> None:
            super().__init__()
            self.entry = entry

    class Entered(Message):
        """Enter on ``entry``: look at it (focus the viewer)."""

        def __init__(self, entry: SpillEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[SpillEntry] = []
        self._width: int | None = None
        """The width the rows were cut to (None: not laid out yet, not cut)."""

    def _row_width(self) -> int | None:
        """Cells a row's line may take: the list's width, less its scrollbar when it shows
        one (a change of either is a ``Resize``) and the rows' padding."""
        padding = self.get_component_styles("option-list--option").padding.width
        width = self.scrollable_content_region.width - padding
        return width if width > 0 else None

    def set_entries(self, entries: Sequence[SpillEntry], keep: str | None) -> None:
        """Show ``entries``, keeping the highlight on the spill named ``keep`` when listed
        (no ``Picked`` is posted for it) and the scroll position."""
        scroll = self.scroll_y
        self.entries = list(entries)
        self._width = width = self._row_width()
        with self.prevent(OptionList.OptionHighlighted):
            self.set_options(
                Option(describe(entry, width), id=entry.name) for entry in self.entries
            )
            names = [entry.name for entry in self.entries]
            if keep in names:
                self.highlighted = names.index(keep)
        self.scroll_to(y=scroll, animate=False)
        if keep in names:
            self.call_after_refresh(self.scroll_to_highlight)

    def on_resize(self) -> None:
        """Cut the rows to the new width (the screen narrowed or widened, the scrollbar came
        or went)."""
        if self.entries and self._row_width() != self._width:
            highlighted = self.highlighted
            keep = self.entries[highlighted].name if highlighted is not None else None
            self.set_entries(self.entries, keep)

    def entry(self, name: str) -> SpillEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    def select_name(self, name: str) -> None:
        """Highlight the spill ``name`` without posting ``Picked``."""
        names = [entry.name for entry in self.entries]
        if name in names:
            with self.prevent(OptionList.OptionHighlighted):
                self.highlighted = names.index(name)
            self.scroll_to_highlight()

    def _on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.entries):
            self.post_message(self.Picked(self.entries[event.option_index]))

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.entries):
            self.post_message(self.Entered(self.entries[event.option_index]))
