"""What the viewer area says when there is nothing to show: no spills yet, or why the chosen
spill cannot be shown and what to do instead."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from agent_tui.core.browse import SpillRefused


class SpillNotice(Static):
    DEFAULT_CSS = """
    SpillNotice {
        height: 1fr;
        padding: 1 2;
        background: $background;
        color: $foreground;
    }
    """

    def show_empty(self, where: str) -> None:
        self.update(
            Content.assemble(
                ("No spills yet\n\n", "bold $text-primary"),
                "When a tool's output is larger than the output budget, the full text is saved "
                "byte for byte in ",
                (f"{where}/", "bold"),
                " and the model gets an excerpt with a pointer to it: it pages the rest with "
                "read_file(path, offset, limit).\n\n",
                "Spills appear in this list as they are written. On the main screen, ",
                ("o", "bold $text-accent"),
                " on a card with a spilled output opens it here.",
            )
        )

    def show_idle(self, count: int) -> None:
        noun = "spill" if count == 1 else "spills"
        self.update(
            Content.assemble(
                ("No spill open\n\n", "bold $text-primary"),
                f"Pick one of the {count} {noun} from the list (the filter may hide some).",
            )
        )

    def show_hidden(self, shown: str, words: str) -> None:
        """The filter hides the spill that was in view: say which, and how to see it again."""
        self.update(
            Content.assemble(
                ("The filter hides the spill in view\n\n", "bold $text-warning"),
                (shown, "bold"),
                " does not match ",
                (f"“{words.strip()}”", "bold $text-accent"),
                ". Nothing acts on it while it is hidden.\n\n",
                (
                    "Pick a spill from the list, or clear the filter (Esc in it) to see it again.",
                    "$text-muted",
                ),
            )
        )

    def show_error(self, shown: str, refused: SpillRefused) -> None:
        self.update(
            Content.assemble(
                (f"Cannot show {shown}\n\n", "bold $text-error"),
                (refused.what, ""),
                "\n\n",
                (refused.hint, "$text-muted"),
            )
        )
