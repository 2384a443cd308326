"""The line that heads one user turn in the lane; folded, it is the whole turn in one line:
the prompt, how many calls, how they ended. Enter folds / unfolds the turn."""

from __future__ import annotations

from collections import Counter

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from agent_tui.ui.calls.state import STATUS_STYLE, CallState, batch_status
from agent_tui.ui.common.format import format_elapsed, one_line, plural
from agent_tui.ui.lane.tool_card import ToolCard


def turn_line(prompt: str, calls: list[CallState], folded: bool, width: int) -> Content:
    marker = "▸ " if folded else "▾ "
    right = plural(len(calls), "call")
    style = "$foreground-muted"
    if folded and calls:
        counts = Counter(c.status for c in calls)
        right += ": " + ", ".join(f"{n} {s.label}" for s, n in counts.items())
        right += f" · {format_elapsed(sum(c.elapsed for c in calls))}"
        style = STATUS_STYLE[batch_status(calls)]
    left = Content.assemble(
        (marker, "$foreground-muted"), (one_line(prompt) or "tool calls", "italic")
    )
    room = max(1, width - len(right) - 1)
    return left.truncate(room, ellipsis=True, pad=True) + Content.styled(f" {right}", style)


class TurnHeader(Widget, can_focus=True):
    DEFAULT_CSS = """
    TurnHeader {
        height: 1;
        color: $text-muted;
        &:focus { background: $primary 14%; }
    }
    """

    BINDINGS = [
        Binding("enter,space", "fold", "Fold turn", id="turn.toggle"),
        Binding("up,k", "move(-1)", "Previous", show=False, id="turn.previous"),
        Binding("down,j", "move(1)", "Next", show=False, id="turn.next"),
    ]

    class Toggle(Message):
        """Enter on a turn's header: fold or unfold the turn."""

        def __init__(self, header: TurnHeader) -> None:
            super().__init__()
            self.header = header

    def __init__(self, prompt: str, calls: list[CallState]) -> None:
        super().__init__()
        self.prompt = prompt
        self.calls = calls
        self.folded = False

    def render(self) -> Content:
        return turn_line(self.prompt, self.calls, self.folded, self.size.width)

    def action_fold(self) -> None:
        self.post_message(self.Toggle(self))

    def action_move(self, step: int) -> None:
        self.post_message(ToolCard.Move(self, step))
