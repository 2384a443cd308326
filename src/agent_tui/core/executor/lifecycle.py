"""The per-call state machine of the executor (seed 3.5): queued → executing → completed →
yielded.

``queued``: waiting for its batch (and its approval). ``executing``: running in its own task.
``completed``: its outcome is known but not yet emitted — results are emitted in request
order, so a fast call waits for the slower calls before it. ``yielded``: its final event was
emitted and its message is in the transcript. A call that never runs (invalid input, denied,
interrupted or cancelled before it started) goes straight from ``queued`` to ``completed``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

log = logging.getLogger(__name__)


class CallPhase(StrEnum):
    """Where a call is in the executor (queued → executing → completed → yielded); the UI's
    render state of a call is another thing, ``ui.calls.state.CallState``."""

    QUEUED = "queued"
    EXECUTING = "executing"
    COMPLETED = "completed"
    YIELDED = "yielded"


_NEXT: dict[CallPhase, frozenset[CallPhase]] = {
    CallPhase.QUEUED: frozenset({CallPhase.EXECUTING, CallPhase.COMPLETED}),
    CallPhase.EXECUTING: frozenset({CallPhase.COMPLETED}),
    CallPhase.COMPLETED: frozenset({CallPhase.YIELDED}),
    CallPhase.YIELDED: frozenset(),
}


@dataclass(frozen=True)
class Transition:
    """Call ``index`` (id ``call_id``) entered ``state`` at ``at`` (``time.monotonic``)."""

    index: int
    call_id: str
    state: CallPhase
    at: float


Listener = Callable[[Transition], None]


class Lifecycle:
    """The states of one request's calls, by request index, with their history."""

    def __init__(self, call_ids: Sequence[str], listener: Listener | None = None) -> None:
        self.call_ids = list(call_ids)
        self._states = [CallPhase.QUEUED] * len(self.call_ids)
        self._listener = listener
        now = time.monotonic()
        self.history = [
            Transition(i, call_id, CallPhase.QUEUED, now) for i, call_id in enumerate(call_ids)
        ]

    def __len__(self) -> int:
        return len(self._states)

    def state(self, index: int) -> CallPhase:
        return self._states[index]

    @property
    def states(self) -> dict[str, CallPhase]:
        """Each call id's current state (ids are unique in any sane request)."""
        return dict(zip(self.call_ids, self._states, strict=True))

    def count(self, state: CallPhase) -> int:
        return sum(1 for s in self._states if s is state)

    def advance(self, index: int, state: CallPhase) -> None:
        """Move call ``index`` to ``state``; re-entering the current state is a no-op."""
        current = self._states[index]
        if state is current:
            return
        if state not in _NEXT[current]:
            raise ValueError(f"call {self.call_ids[index]!r} cannot go from {current} to {state}")
        self._states[index] = state
        transition = Transition(index, self.call_ids[index], state, time.monotonic())
        self.history.append(transition)
        if self._listener is not None:
            try:
                self._listener(transition)
            except Exception:  # an observer must not break the run it observes
                log.exception("executor lifecycle listener failed")
