"""What to rewind: code and conversation, the conversation only, the code only (as Claude
Code offers); only the code when undoing a rewind, only the conversation without a
checkpoint."""

from __future__ import annotations

from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from agent_tui.core.conversation.rewind import RewindWhat, TurnSummary

CHOICES: tuple[tuple[RewindWhat, str], ...] = (
    ("both", "Restore code and conversation"),
    ("conversation", "Restore the conversation only (files stay as they are)"),
    ("code", "Restore the code only (the conversation stays)"),
)


def choices_for(turn: TurnSummary) -> list[tuple[RewindWhat, str]]:
    if turn.kind == "rewind":
        return [("code", "Undo it: put the files back as they were before the rewind")]
    if not turn.checkpointed:
        return [("conversation", "Restore the conversation (no checkpoint for the code)")]
    return list(CHOICES)


class RewindChoices(OptionList):
    DEFAULT_CSS = """
    RewindChoices {
        height: auto;
        border: none;
        padding: 0;
        background: $surface;
        &:focus { border: none; background-tint: transparent; }
        & > .option-list--option { padding: 0 1; }
        & > .option-list--option-highlighted { background: transparent; }
        &:focus > .option-list--option-highlighted {
            background: $primary 30%; color: $foreground; text-style: bold;
        }
    }
    """

    class Chosen(Message):
        def __init__(self, what: RewindWhat) -> None:
            super().__init__()
            self.what = what

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.kinds: list[RewindWhat] = []

    def offer(self, turn: TurnSummary) -> None:
        """The choices that make sense for ``turn``."""
        offered = choices_for(turn)
        self.kinds = [kind for kind, _ in offered]
        self.set_options(Option(label, id=kind) for kind, label in offered)
        self.highlighted = 0

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.kinds):
            self.post_message(self.Chosen(self.kinds[event.option_index]))
