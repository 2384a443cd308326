"""The list of configured servers: a status glyph, the name, and a tool count or the status.

The highlighted server stays highlighted (by name) when the list is redrawn; a redraw that only
changes labels keeps the scroll position too.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import OptionList
from textual.widgets.option_list import Option

from agent_tui.core.mcp.client.overview import ServerRow
from agent_tui.ui.mcp.first_width import content_width
from agent_tui.ui.mcp.look import list_label, list_summary


class ServerList(OptionList):
    DEFAULT_CSS = """
    ServerList {
        height: 1fr;
        border: round $panel-lighten-2;
        border-title-color: $foreground-muted;
        padding: 0;
        background: $surface;
        & > .option-list--option-highlighted { background: $panel-lighten-1; }
        &:focus {
            border: round $primary;
            border-title-color: $primary;
            background-tint: transparent;
            & > .option-list--option-highlighted {
                background: $primary 30%; color: $foreground; text-style: bold;
            }
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: tuple[ServerRow, ...] = ()
        self._key: tuple[tuple[str, str, str], ...] = ()
        self._width = 0

    @property
    def selected(self) -> str | None:
        """The highlighted server's name."""
        option = self.highlighted_option
        return option.id if option is not None else None

    def show(self, rows: Sequence[ServerRow], *, select: str | None = None) -> None:
        """Show ``rows``; keep the highlighted server (or highlight ``select``)."""
        keep = select or self.selected
        rows = tuple(rows)
        self.border_title = f"Servers ({len(rows)})"
        width = self._label_width(len(rows))
        key = tuple((r.name, r.state.status, list_summary(r)) for r in rows)
        names = [row.name for row in rows]
        same_names = names == [k[0] for k in self._key] and self.option_count == len(rows)
        if key != self._key or width != self._width:
            if same_names:  # labels only: keep the options (and the scroll position)
                for index, row in enumerate(rows):
                    self.replace_option_prompt_at_index(index, list_label(row, width))
            else:
                self.set_options(Option(list_label(row, width), id=row.name) for row in rows)
        self.rows, self._key, self._width = rows, key, width
        if names and (not same_names or select is not None):
            self.highlighted = names.index(keep) if keep in names else 0

    def _label_width(self, rows: int) -> int:
        """The labels' width; before the first layout, the width the list will get (so the
        first frame has the real labels)."""
        return max(12, content_width(self, scrollbar=rows > self.app.size.height // 3))

    def on_resize(self) -> None:
        if self.rows and self._label_width(len(self.rows)) != self._width:
            self.show(self.rows)
