"""The next step of a turn: what each phase of the loop decides, typed.

The turn loop (``turn``) runs in phases: the prompt's opening, then rounds (one model request
and the tool calls it made). Each phase yields its events and ends with one ``NextStep``:
``RunAgain`` (send the next model request) or ``EndTurn`` (the turn is over: why, after how
many requests, its final text, and the error to show first, if any). The loop turns an
``EndTurn`` into the ``turn_end`` event, in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent_tui.core.events import ErrorEvent, TurnEnd

EndReason = Literal["completed", "max_turns", "interrupted", "error"]


@dataclass(frozen=True)
class RunAgain:
    """Send the turn's next model request."""


@dataclass(frozen=True)
class EndTurn:
    """The turn is over. ``error``: an ``error`` event to show before its ``turn_end``."""

    reason: EndReason
    turns: int
    text: str = ""
    error: ErrorEvent | None = None

    def event(self) -> TurnEnd:
        """The ``turn_end`` event that says so."""
        return TurnEnd(reason=self.reason, turns=self.turns, text=self.text)


NextStep = RunAgain | EndTurn

__all__ = ["EndReason", "EndTurn", "NextStep", "RunAgain"]
