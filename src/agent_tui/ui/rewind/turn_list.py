"""The turns a rewind can go back to: number, time, the prompt's first line, what changed.

The newest turn is last and highlighted first; an undoable code rewind, when there is one,
heads the list. Rows are cut to the list's width (again when it changes).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from agent_tui.core.conversation.rewind import TurnSummary
from agent_tui.ui.common.format import one_line
from agent_tui.ui.rewind.words import turn_files, when


def row(turn: TurnSummary, width: int | None) -> Content:
    """One turn on one line of ``width`` cells (None: not cut)."""
    stamp = when(turn.at)
    right = turn_files(turn)
    if turn.kind == "rewind":
        head = Content.assemble(("↶ ", "bold $warning"), (f"{stamp:>5}  " if stamp else ""))
        text = "undo the last code rewind"
    else:
        head = Content.assemble(
            (f"{turn.number:>3} ", "bold"), (f"{stamp:>5}  " if stamp else "       ", "dim")
        )
        text = one_line(turn.prompt, 500)
    room = (width - head.cell_length - cell_len(right) - 2) if width is not None else 500
    prompt = one_line(text, max(8, room))
    gap = max(2, (width or 0) - head.cell_length - cell_len(prompt) - cell_len(right))
    style = "$text-muted" if right in ("—", "no checkpoint") else "$text-accent"
    return Content.assemble(head, prompt, " " * gap, (right, style))


class TurnList(OptionList):
    DEFAULT_CSS = """
    TurnList {
        height: auto;
        max-height: 30vh;
        border: none;
        padding: 0;
        background: $surface;
        &:focus { border: none; background-tint: transparent; }
        & > .option-list--option { padding: 0 1; }
        & > .option-list--option-highlighted { background: $panel-lighten-1; }
        &:focus > .option-list--option-highlighted {
            background: $primary 30%; color: $foreground; text-style: bold;
        }
    }
    """

    class Picked(Message):
        """The highlight moved to ``turn``."""

        def __init__(self, turn: TurnSummary) -> None:
            super().__init__()
            self.turn = turn

    class Entered(Message):
        """Enter on ``turn``: go on to the choices."""

        def __init__(self, turn: TurnSummary) -> None:
            super().__init__()
            self.turn = turn

    def __init__(self, turns: Sequence[TurnSummary], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.turns = list(turns)
        self._width: int | None = None

    def _row_width(self) -> int | None:
        padding = self.get_component_styles("option-list--option").padding.width
        width = self.scrollable_content_region.width - padding
        return width if width > 0 else None

    def on_mount(self) -> None:
        self._fill(len(self.turns) - 1)

    def _fill(self, highlight: int | None) -> None:
        self._width = width = self._row_width()
        with self.prevent(OptionList.OptionHighlighted):
            self.set_options(Option(row(turn, width), id=turn.id) for turn in self.turns)
            if highlight is not None and self.turns:
                self.highlighted = highlight
        if highlight is not None:
            self.call_after_refresh(self.scroll_to_highlight)

    def on_resize(self) -> None:
        if self.turns and self._row_width() != self._width:
            self._fill(self.highlighted)

    @property
    def current(self) -> TurnSummary | None:
        index = self.highlighted
        return self.turns[index] if index is not None and 0 <= index < len(self.turns) else None

    def _on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.turns):
            self.post_message(self.Picked(self.turns[event.option_index]))

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.turns):
            self.post_message(self.Entered(self.turns[event.option_index]))
