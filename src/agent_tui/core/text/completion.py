"""What the prompt's completion menu offers, UI-free: a completer looks at the text and the
cursor and says which span it would replace and with what.

Two completers exist: slash commands (``/`` at the start of the prompt, ``core.commands``) and
mentions (``@`` anywhere after a space, ``core.mentions``). The prompt asks each in turn; the
first that answers owns the menu. A completer is called on every keystroke in the UI thread,
so it answers from memory (an index built in a worker), never from the disk or the network.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Completion:
    """One entry of the menu."""

    label: str
    """What the menu shows first (``/review``, ``src/app.py``)."""
    insert: str
    """What replaces the span when chosen (``/review `` with the space, ``@src/app.py ``)."""
    description: str = ""
    """One line beside the label (a command's description, a file's size)."""
    source: str = ""
    """Where it comes from, shown dimmed (``built-in``, ``project``, ``user``, ``mcp: git``)."""
    hint: str = ""
    """The arguments it takes (``[spec]``, ``<file> [focus]``)."""
    matched: tuple[int, ...] = field(default=(), compare=False)
    """Indices into ``label`` the query matched (highlighted)."""


@dataclass(frozen=True)
class Completions:
    """The menu's content: ``items`` would replace ``text[start:end]``."""

    start: int
    end: int
    items: tuple[Completion, ...]
    total: int = 0
    """How many matched before the list was cut to what the menu shows (0: all shown)."""


class Completer(Protocol):
    def complete(self, text: str, cursor: int) -> Completions | None:
        """The completions for ``text`` with the cursor at offset ``cursor`` (characters), or
        None when this completer has nothing to say there (the menu closes)."""
        ...
