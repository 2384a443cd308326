"""The earlier turns of a resumed session in the lane, one folded line each, with no widget per
turn: only the lines on screen are rendered (Textual's line API), so a session of 500 turns
costs the lane one widget. Up/down move a cursor over the lines (past either end, to the
lane's neighbouring item); Enter opens the turn under it: the lane mounts that turn as a block
of its own between the folded lines before and after it (``ToolLane``)."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual
from textual.widget import Widget

from agent_tui.ui.lane.lane_entries import HiddenTurn
from agent_tui.ui.lane.tool_card import ToolCard
from agent_tui.ui.lane.turn_header import turn_line


class FoldedTurns(Widget, can_focus=True):
    DEFAULT_CSS = """
    FoldedTurns {
        height: auto;
        color: $text-muted;
        & > .folded-turns--cursor { background: $primary 14%; }
    }
    """

    COMPONENT_CLASSES = {"folded-turns--cursor"}

    BINDINGS = [
        Binding("enter,space", "open", "Open turn", id="turns.open"),
        Binding("up,k", "move(-1)", "Previous", show=False, id="turns.previous"),
        Binding("down,j", "move(1)", "Next", show=False, id="turns.next"),
    ]

    cursor: reactive[int] = reactive(0, layout=False)

    class Open(Message):
        """Enter on a line: the lane mounts the turn at ``index`` as a block."""

        def __init__(self, turns: FoldedTurns, index: int) -> None:
            super().__init__()
            self.turns = turns
            self.index = index

    def __init__(self, turns: list[HiddenTurn]) -> None:
        super().__init__()
        self._turns = turns
        self._strips: dict[tuple[int, int, bool], Strip] = {}
        """Rendered lines by (line, width, under the cursor): the turns are finished."""
        self._drawn_with: object = None
        """The styles and theme the cached lines were rendered with (``_styles``)."""

    @property
    def turns(self) -> list[HiddenTurn]:
        return self._turns

    @turns.setter
    def turns(self, turns: list[HiddenTurn]) -> None:
        self._turns = turns
        self._strips.clear()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.turns)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if not 0 <= y < len(self.turns):
            return Strip.blank(width)
        cursor = self.has_focus and y == self.cursor
        key = (y, width, cursor)
        styles = self._styles()
        if styles != self._drawn_with:
            self._strips.clear()
            self._drawn_with = styles
        if (strip := self._strips.get(key)) is not None:
            return strip
        turn = self.turns[y]
        style = styles[1] if cursor else styles[0]
        line = turn_line(turn.prompt, turn.calls, True, width)
        strips = Visual.to_strips(self, line, width, 1, style)
        strip = strips[0].extend_cell_length(width, style.rich_style) if strips else None
        self._strips[key] = strip = strip or Strip.blank(width)
        return strip

    def _styles(self) -> tuple[Style, Style, str]:
        """What the lines are rendered with: the line and cursor styles and the theme. A
        restyle that leaves them as they were (a class set on the screen as a turn starts)
        keeps the rendered lines; a theme or colour change renders them again."""
        return (
            self.visual_style,
            self.get_visual_style("folded-turns--cursor"),
            self.app.theme,
        )

    def set_cursor(self, index: int) -> None:
        """Put the cursor on line ``index`` (clamped) and scroll the lane to it."""
        self.cursor = max(0, min(len(self.turns) - 1, index))
        self.show_cursor()

    def show_cursor(self) -> None:
        parent = self.parent
        if isinstance(parent, Widget) and self.turns:
            region = self.virtual_region
            parent.scroll_to_region(
                Region(region.x, region.y + self.cursor, max(1, region.width), 1),
                animate=False,
                immediate=True,
            )

    def watch_cursor(self) -> None:
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        if 0 <= event.y < len(self.turns):
            self.cursor = event.y
            self.action_open()

    def action_move(self, step: int) -> None:
        target = self.cursor + step
        if 0 <= target < len(self.turns):
            self.set_cursor(target)
        else:
            self.post_message(ToolCard.Move(self, step))

    def action_open(self) -> None:
        if self.turns:
            self.post_message(self.Open(self, self.cursor))
