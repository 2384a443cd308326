"""A tiny app that shows tool cards (and group cards) built from core events, for snapshots of
one render state each: the real widgets, a frozen clock, the shipped theme."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget

from agent_tui.core.events import Event, SpillPointer, ToolGroup, ToolUse
from agent_tui.ui.calls.book import CallBook
from agent_tui.ui.lane.group_card import GroupCard
from agent_tui.ui.lane.tool_card import ToolCard
from agent_tui.ui.shell.themes import install_themes

NOW = 1000.0


def frozen() -> float:
    return NOW


def use(call_id: str, name: str, **input: Any) -> ToolUse:
    return ToolUse(id=call_id, name=name, input=input, raw_arguments="")


def spill(path: str, lines: int) -> SpillPointer:
    return SpillPointer(path=path, chars=lines * 45, lines=lines)


class CardApp(App[None]):
    """Folds ``events`` into call states and shows a card per call (a group card per batch).

    ``expand`` lists the call ids whose cards start expanded; ``fold`` the groups folded."""

    CSS = """
    Screen { background: $background; }
    #cards { padding: 1 1 0 1; }
    """

    def __init__(
        self,
        events: list[Event],
        *,
        expand: tuple[str, ...] = (),
        fold: tuple[str, ...] = (),
        theme: str = "agent-dark",
    ) -> None:
        super().__init__()
        self.book = CallBook(frozen, "never")
        grouped: dict[str, list[str]] = {}
        for event in events:
            self.book.apply(event)
            if isinstance(event, ToolGroup):
                grouped[event.ids[0]] = list(event.ids)
        for call_id in expand:
            self.book.calls[call_id].expanded = True
        members = {i for ids in grouped.values() for i in ids}
        self.widgets: list[Widget] = []
        for call_id, call in self.book.calls.items():
            if call_id in grouped:
                calls = [self.book.calls[i] for i in grouped[call_id]]
                self.widgets.append(GroupCard(calls, frozen, folded=call_id in fold))
            elif call_id not in members and call.parent is None:  # a subagent's: in its card
                self.widgets.append(ToolCard(call, frozen))
        self.chosen_theme = theme

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="cards"):
            yield from self.widgets

    def on_mount(self) -> None:
        install_themes(self, chosen=self.chosen_theme)
