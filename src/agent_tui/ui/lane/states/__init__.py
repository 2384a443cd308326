"""The state part of a tool card: one widget class per render state of a call."""

from __future__ import annotations

from agent_tui.ui.calls.state import CallState, CallStatus
from agent_tui.ui.lane.states.base import StateView
from agent_tui.ui.lane.states.error import ErrorView
from agent_tui.ui.lane.states.interrupted import InterruptedView
from agent_tui.ui.lane.states.progress import ProgressView
from agent_tui.ui.lane.states.queued import QueuedView
from agent_tui.ui.lane.states.rejected import RejectedView
from agent_tui.ui.lane.states.result import ResultView

AnyView = StateView | ProgressView

VIEWS: dict[CallStatus, type[AnyView]] = {
    CallStatus.QUEUED: QueuedView,
    CallStatus.APPROVAL: QueuedView,
    CallStatus.RUNNING: ProgressView,
    CallStatus.OK: ResultView,
    CallStatus.FAILED: ResultView,
    CallStatus.REJECTED: RejectedView,
    CallStatus.ERROR: ErrorView,
    CallStatus.INTERRUPTED: InterruptedView,
}


def view_for(call: CallState, now: float) -> AnyView:
    """A new view of ``call``'s current state."""
    return VIEWS[call.status](call, now)


__all__ = [
    "VIEWS",
    "AnyView",
    "ErrorView",
    "InterruptedView",
    "ProgressView",
    "QueuedView",
    "RejectedView",
    "ResultView",
    "StateView",
    "view_for",
]
