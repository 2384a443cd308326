"""What the spill browser's model (``model.SpillView``) answers its actions with: a ``Step``
for the screen to show (what the status line says, a window to draw or a line to mark), the
questions its prompt asks, the searches it starts, what ``y`` copies and what ``d`` would
delete. Pure Python: no Textual."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_tui.core.browse import SpillRefused
from agent_tui.core.browse.search import Hit

Tone = Literal["info", "success", "warning", "error"]

SearchResult = Hit | SpillRefused | Literal["cancelled"] | None
"""What a search found: the hit, a refusal, ``"cancelled"``, or None (not found)."""


@dataclass(frozen=True)
class Say:
    """A line for the status bar under the viewer."""

    text: str
    tone: Tone = "info"


@dataclass(frozen=True)
class Step:
    """What one action changed, for the screen to show."""

    say: Say | None = None
    """What the status line says now; None leaves it as it is."""
    redraw: bool = False
    """The window changed: draw ``SpillView.window`` (or the notice of ``SpillView.error``)."""
    at: int | str | None = None
    """With ``redraw``: the line to bring into view, ``"end"``, or None (the top)."""
    line: int | None = None
    """Without ``redraw``: the line of the window in view to mark and bring into view."""


NOTHING = Step()
CLEARED = Step(say=Say(""), redraw=True)
"""A spill opened, or one that failed to read (its notice then says what happened)."""


@dataclass(frozen=True)
class Highlight:
    """The current search: its pattern over text and the current match (line, column, chars)."""

    pattern: re.Pattern[str] | None = None
    line: int = 0
    column: int = 0
    length: int = 0


@dataclass(frozen=True)
class Question:
    """What the one-line prompt asks: ``kind`` is goto, size, search or search_back."""

    kind: str
    label: str
    value: str = ""
    placeholder: str = ""


@dataclass(frozen=True)
class SearchJob:
    """One search to run: ``query`` in the spill at ``path`` from byte ``start``."""

    path: Path
    shown: str
    query: str
    backward: bool
    start: int
    moves: int
    """``SpillView.moves`` when it started: a move meanwhile wins over its hit."""


@dataclass(frozen=True)
class Listed:
    """What a fresh listing asks of the screen."""

    open: Path | None = None
    """No spill was open: open this one (the newest shown)."""
    idle: bool = False
    """No spill is open: say there are none yet, or to pick one."""
    say: Say | None = None


@dataclass(frozen=True)
class Copied:
    """What ``y`` puts on the clipboard, and what the notification says about it (how it was
    copied is said after it)."""

    text: str
    note: str


@dataclass(frozen=True)
class Deletion:
    """The spill ``d`` would delete: its path, as the model sees it, and its size in words."""

    path: Path
    shown: str
    size: str
