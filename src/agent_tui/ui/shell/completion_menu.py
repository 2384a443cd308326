"""The prompt's completion menu: what the completers offer for the text at the cursor.

The prompt owns it (``PromptInput.menu``) and drives it: ``show`` with a ``Completions``,
``move`` the highlight, ``selected`` to insert, ``hide``. Each row shows the label (the
matched characters highlighted), the arguments it takes, the description and, dimmed on the
right, where it comes from. At most ``ROWS`` rows show; the window follows the highlight.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from agent_tui.core.text.completion import Completion, Completions

ROWS = 8


class CompletionMenu(Widget):
    DEFAULT_CSS = """
    CompletionMenu {
        display: none;
        height: auto;
        max-height: 10;
        border: round $primary 60%;
        background: $surface;
        padding: 0 1;
        &.-open { display: block; }
    }
    CompletionMenu > .completion-menu--highlight { background: $primary 30%; }
    CompletionMenu > .completion-menu--match { color: $accent; text-style: bold; }
    CompletionMenu > .completion-menu--hint { color: $text-muted; }
    CompletionMenu > .completion-menu--source { color: $text-muted; text-style: italic; }
    """
    COMPONENT_CLASSES = {
        "completion-menu--highlight",
        "completion-menu--match",
        "completion-menu--hint",
        "completion-menu--source",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.completions: Completions | None = None
        self.index = 0

    @property
    def is_open(self) -> bool:
        return self.completions is not None

    @property
    def selected(self) -> Completion | None:
        if self.completions is None or not self.completions.items:
            return None
        return self.completions.items[self.index]

    def show(self, completions: Completions) -> None:
        """Open (or update) the menu: the highlight goes to the best item, unless the items are
        the same as before (the cursor moved), where it stays."""
        before = self.completions
        same = before is not None and [i.label for i in before.items] == [
            i.label for i in completions.items
        ]
        self.index = self.index if same else 0
        self.completions = completions
        self.add_class("-open")
        self.refresh(layout=True)

    def hide(self) -> None:
        if self.completions is None:
            return
        self.completions = None
        self.index = 0
        self.remove_class("-open")
        self.refresh(layout=True)

    def move(self, step: int) -> None:
        if self.completions is None or not self.completions.items:
            return
        self.index = (self.index + step) % len(self.completions.items)
        self.refresh()

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        items = self.completions.items if self.completions is not None else ()
        more = 1 if self.completions is not None and self.completions.total else 0
        return max(1, min(len(items), ROWS) + more)

    def render(self) -> Text:
        if self.completions is None:
            return Text()
        items = self.completions.items
        start = min(max(0, self.index - ROWS + 1), max(0, len(items) - ROWS))
        shown = items[start : start + ROWS]
        width = self.content_region.width or 80
        label_width = min(max(len(item.label) + len(item.hint) + 1 for item in shown), 40)
        lines = [
            self._row(item, start + offset == self.index, width, label_width)
            for offset, item in enumerate(shown)
        ]
        if self.completions.total:
            lines.append(
                Text(
                    f"… {self.completions.total - len(items)} more: type to narrow",
                    style=self.get_component_rich_style("completion-menu--hint"),
                )
            )
        return Text("\n").join(lines)

    def _row(self, item: Completion, highlighted: bool, width: int, label_width: int) -> Text:
        match = self.get_component_rich_style("completion-menu--match", partial=True)
        dim = self.get_component_rich_style("completion-menu--hint", partial=True)
        source_style = self.get_component_rich_style("completion-menu--source", partial=True)
        row = Text(no_wrap=True, overflow="ellipsis")
        label = Text(item.label)
        for index in item.matched:
            if 0 <= index < len(item.label):
                label.stylize(match, index, index + 1)
        row.append_text(label)
        if item.hint:
            row.append(" " + item.hint, style=dim)
        row.pad_right(max(1, label_width - row.cell_len + 2))
        source = f"  {item.source}" if item.source else ""
        room = max(0, width - row.cell_len - len(source))
        description = item.description
        if len(description) > room:
            description = description[: max(0, room - 1)] + "…" if room > 1 else ""
        row.append(description)
        if source:
            row.pad_right(max(0, width - row.cell_len - len(source)))
            row.append(source, style=source_style)
        if highlighted:
            row.stylize(
                self.get_component_rich_style("completion-menu--highlight", partial=True)
                + Style(bold=True)
            )
            row.pad_right(max(0, width - row.cell_len))
            row.stylize(self.get_component_rich_style("completion-menu--highlight", partial=True))
        return row
