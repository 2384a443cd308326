"""Final call outcomes of one request, budgeted and released in request order as events.

The executor hands each finished call to ``OrderedResults.add`` with a *maker* that turns the
budgeted result into its event and transcript message. ``drain`` returns the spill events
written so far, then every result that is decided, in request order, appending the messages.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from agent_tui.core.budget.turn import BudgetedResult, PendingResult, SpillNotice, TurnBudget
from agent_tui.core.events import Event, Spill, SpillPointer, SpillReason
from agent_tui.core.transcript import Message

log = logging.getLogger(__name__)
Maker = Callable[[BudgetedResult], tuple[Event, Message]]


def spill_pointer(result: BudgetedResult) -> SpillPointer | None:
    if result.spill is None:
        return None
    reason: SpillReason = (
        "budget" if result.spilled_by_budget or result.compressed is None else "log_compression"
    )
    return SpillPointer(
        path=result.spill.shown, chars=result.spill.chars, lines=result.spill.lines, reason=reason
    )


def spill_event(notice: SpillNotice) -> Spill:
    record = notice.record
    return Spill(
        id=record.call_id,
        name=record.tool,
        path=record.shown,
        abs_path=str(record.path),
        chars=record.chars,
        lines=record.lines,
        bytes=record.bytes,
        reason=notice.reason,
    )


@dataclass
class OrderedResults:
    """The final outcomes of one request's calls: budgeted, then released in request order."""

    budget: TurnBudget
    out: list[Message]
    makers: dict[int, Maker] = field(default_factory=dict)
    notices: list[SpillNotice] = field(default_factory=list)

    async def add(self, index: int, pending: PendingResult, make: Maker) -> None:
        self.makers[index] = make
        self.notices += await asyncio.to_thread(self.budget.add, index, pending)

    async def finish(self) -> None:
        self.notices += await asyncio.to_thread(self.budget.finish)

    def drain(self) -> list[Event]:
        """Spill events, then every result now decided, in order (messages appended)."""
        return [event for _, event in self.drain_indexed()]

    def drain_indexed(self) -> list[tuple[int | None, Event]]:
        """``drain``, each event with the request index of its call (None for a spill)."""
        events: list[tuple[int | None, Event]] = [(None, spill_event(n)) for n in self.notices]
        self.notices.clear()
        for index, result in self.budget.pop_ready():
            event, message = self.makers.pop(index)(result)
            self.out.append(message)
            events.append((index, event))
        return events

    def flush(self) -> None:
        """Hard stop (the consumer went away): decide the rest and record their messages."""
        try:
            self.budget.finish()
        except Exception:  # a failing disk must not hide the messages
            log.exception("output budget failed while stopping")
        self.drain()
