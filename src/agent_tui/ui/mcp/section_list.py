"""The frame of the panel's Resources, Prompts and Server log sections: a heading line, one
option per item, a line saying why the list is empty, and under the list what is known in full
about the highlighted item. Subclasses say how an item is keyed and drawn; the highlight stays
on the same item (by key) across redraws, and ``follow`` keeps it on the newest (the log)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.core.mcp.client.overview import ServerRow


class SectionList(Vertical):
    DEFAULT_CSS = """
    SectionList {
        height: 1fr;
        padding: 0 1;
        & > .section-heading { height: auto; max-height: 2; color: $foreground-muted; }
        & > .section-rows {
            height: 1fr; border: none; padding: 0; background: transparent;
            & > .option-list--option-highlighted { background: $panel-lighten-1; }
            &:focus {
                border: none; background-tint: transparent;
                & > .option-list--option-highlighted {
                    background: $primary 30%; color: $foreground; text-style: none;
                }
            }
        }
        & > .section-detail { height: auto; max-height: 6; padding: 0 1; }
        & > .section-empty { color: $foreground-muted; display: none; }
        &.-empty > .section-empty { display: block; }
        &.-empty > .section-rows, &.-empty > .section-detail { display: none; }
    }
    """
    follow: ClassVar[bool] = False
    """Keep the highlight on the last item while it is there (new items arrive at the end)."""

    class Opened(Message):
        """Enter on an item."""

        def __init__(self, section: SectionList, item: Any, server: ServerRow) -> None:
            super().__init__()
            self.section = section
            self.item = item
            self.server = server

        @property
        def control(self) -> SectionList:
            return self.section

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.server: ServerRow | None = None
        self.items: tuple[Any, ...] = ()
        self._keys: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(classes="section-heading")
        yield OptionList(classes="section-rows")
        yield Static(classes="section-detail")
        yield Static(classes="section-empty")

    # -- what subclasses say ---------------------------------------------------------------

    def items_of(self, server: ServerRow) -> Sequence[Any]:
        raise NotImplementedError

    def key(self, item: Any) -> str:
        raise NotImplementedError

    def line(self, item: Any) -> Content:
        raise NotImplementedError

    def detail(self, item: Any) -> Content | str:
        return ""

    def heading(self, server: ServerRow | None) -> Content | str:
        return ""

    def empty_text(self, server: ServerRow | None) -> str:
        return "No server selected."

    # -- drawing ------------------------------------------------------------------------

    @property
    def options(self) -> OptionList:
        return self.query_one(".section-rows", OptionList)

    @property
    def selected(self) -> Any | None:
        index = self.options.highlighted
        return self.items[index] if index is not None and index < len(self.items) else None

    def show(self, server: ServerRow | None) -> None:
        same_server = server is not None and self.server is not None
        same_server = same_server and server.name == self.server.name  # type: ignore[union-attr]
        keep = self.key(self.selected) if same_server and self.selected is not None else None
        at_end = self.options.highlighted in (None, len(self.items) - 1)
        self.server = server
        items = tuple(self.items_of(server)) if server is not None else ()
        self.set_class(not items, "-empty")
        heading = self.heading(server)
        widget = self.query_one(".section-heading", Static)
        widget.display = bool(str(heading))
        widget.update(heading)
        self.query_one(".section-empty", Static).update(self.empty_text(server))
        if items == self.items and same_server:
            self._show_detail()
            return
        keys = [self.key(item) for item in items]
        options = self.options
        self.items = items
        if keys == self._keys and options.option_count == len(items):  # keep the scroll
            for index, item in enumerate(items):
                options.replace_option_prompt_at_index(index, self.line(item))
        else:
            options.set_options(Option(self.line(item)) for item in items)
            self._keys = keys
            if keys:
                if self.follow and (at_end or not same_server):
                    options.highlighted = len(keys) - 1
                else:
                    options.highlighted = keys.index(keep) if keep in keys else 0
        self._show_detail()

    def _show_detail(self) -> None:
        item = self.selected
        self.query_one(".section-detail", Static).update(
            self.detail(item) if item is not None else ""
        )

    @on(OptionList.OptionHighlighted, ".section-rows")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_detail()

    @on(OptionList.OptionSelected, ".section-rows")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        item = self.selected
        if item is not None and self.server is not None:
            self.post_message(self.Opened(self, item, self.server))

    def focus_rows(self) -> bool:
        if not self.items:
            return False
        self.options.focus()
        return True
