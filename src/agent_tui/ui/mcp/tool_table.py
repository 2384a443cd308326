"""The tools of the selected server, one line each: full name (``mcp__server__tool``), disclosure
mark, access (read-only / writes / destructive), the permission step that decides its calls,
and the description; Enter opens the tool (its input schema). The highlighted tool stays
highlighted, by name, across redraws."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.core.mcp.client.overview import ServerRow, ToolRow
from agent_tui.ui.mcp.first_width import content_width
from agent_tui.ui.mcp.look import Columns, columns_for, header_line, tool_line


def _empty_text(row: ServerRow | None) -> str:
    if row is None:
        return "No server selected."
    state = row.state
    if state.status == "connected":
        return f"{state.name} offers no tools."
    if state.status == "connecting":
        return f"{state.name} is connecting; its tools appear when it is ready."
    if state.status == "lazy":
        return f"{state.name} is lazy and its cached tool list is empty; r starts it."
    return f"No tools: {state.name} is {state.status}."


class ToolTable(Vertical):
    DEFAULT_CSS = """
    ToolTable {
        height: 1fr;
        border: round $panel-lighten-2;
        border-title-color: $foreground-muted;
        padding: 0 1;
        &:focus-within { border: round $primary; border-title-color: $primary; }
        & > #tool-header { height: 1; }
        & > #tool-rows {
            height: 1fr; border: none; padding: 0; background: transparent;
            & > .option-list--option-highlighted { background: $panel-lighten-1; }
            &:focus {
                border: none; background-tint: transparent;
                & > .option-list--option-highlighted {
                    background: $primary 30%; color: $foreground; text-style: none;
                }
            }
        }
        & > #no-tools { color: $foreground-muted; display: none; }
        &.-empty > #no-tools { display: block; }
        &.-empty > #tool-header, &.-empty > #tool-rows { display: none; }
    }
    """

    class Highlighted(Message):
        def __init__(self, tool: ToolRow | None) -> None:
            super().__init__()
            self.tool = tool

    class Opened(Message):
        def __init__(self, tool: ToolRow) -> None:
            super().__init__()
            self.tool = tool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.server: ServerRow | None = None
        self.rows: tuple[ToolRow, ...] = ()
        self._drawn: tuple[tuple[ToolRow, ...], Columns | None] = ((), None)

    def compose(self) -> ComposeResult:
        yield Static(id="tool-header")
        yield OptionList(id="tool-rows")
        yield Static(id="no-tools")

    @property
    def options(self) -> OptionList:
        return self.query_one("#tool-rows", OptionList)

    @property
    def selected(self) -> ToolRow | None:
        index = self.options.highlighted
        return self.rows[index] if index is not None and index < len(self.rows) else None

    def show(self, server: ServerRow | None) -> None:
        """Show the tools of ``server``; the highlighted tool stays (by name) when it is still
        there; another server starts at its first tool."""
        keep = self.selected.name if self.selected is not None else None
        if server is None or self.server is None or server.name != self.server.name:
            keep = None
        self.server = server
        rows = server.tools if server is not None else ()
        name = server.name if server is not None else ""
        self.border_title = f"Tools of {name} ({len(rows)})" if server is not None else "Tools"
        self.set_class(not rows, "-empty")
        self.query_one("#no-tools", Static).update(_empty_text(server))
        self._draw(rows, keep)

    def _draw(self, rows: tuple[ToolRow, ...], keep: str | None) -> None:
        options = self.options
        # before the first layout, the width it will get: the first frame has the real columns
        width = max(20, content_width(options, scrollbar=len(rows) > self.app.size.height // 3))
        columns = columns_for(rows, width)
        if (rows, columns) == self._drawn:
            return
        old = [r.name for r in self.rows]
        self.rows = rows
        self._drawn = (rows, columns)
        self.query_one("#tool-header", Static).update(header_line(columns))
        names = [r.name for r in rows]
        if names == old and options.option_count == len(rows):  # keep the scroll position
            for index, row in enumerate(rows):
                options.replace_option_prompt_at_index(index, tool_line(row, columns))
            return
        options.set_options(Option(tool_line(row, columns), id=row.name) for row in rows)
        if names:
            options.highlighted = names.index(keep) if keep in names else 0
        else:
            self.post_message(self.Highlighted(None))

    def on_resize(self) -> None:
        if self.server is not None:
            self._draw(self.rows, self.selected.name if self.selected else None)

    @on(OptionList.OptionHighlighted, "#tool-rows")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(self.Highlighted(self.selected))

    @on(OptionList.OptionSelected, "#tool-rows")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if (tool := self.selected) is not None:
            self.post_message(self.Opened(tool))

    def focus_rows(self) -> bool:
        if not self.rows:
            return False
        self.options.focus()
        return True
