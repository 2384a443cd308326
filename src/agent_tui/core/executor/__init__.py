"""The tool executor: concurrency partition and the streaming executor (seed 3.4–3.5).

``ToolExecutor.execute`` runs one assistant message's calls: consecutive concurrency-safe
calls in parallel batches (at most ``max_parallel``), anything else alone; each call through
``queued → executing → completed → yielded``; results in request order, progress at once; a
failing shell call cancels its running siblings; an interrupt cancels everything in flight
and still gives every call exactly one result message.
"""

from typing import TYPE_CHECKING

from agent_tui.core import lazy
from agent_tui.core.executor.lifecycle import CallPhase, Lifecycle, Transition
from agent_tui.core.executor.partition import MAX_PARALLEL, CallPlan, partition, plan_calls
from agent_tui.core.executor.runner import ToolExecutor
from agent_tui.core.tools.errors import CANCELLED

if TYPE_CHECKING:  # what runs calls, imported by the first calls (issue 45)
    from agent_tui.core.executor.batch import HELD_MESSAGE, STARTED_MESSAGE, describe_failure
    from agent_tui.core.executor.results import INTERRUPTED
else:
    __getattr__ = lazy.exports(
        __name__,
        {
            "HELD_MESSAGE": "batch",
            "STARTED_MESSAGE": "batch",
            "describe_failure": "batch",
            "INTERRUPTED": "results",
        },
    )

__all__ = [
    "CANCELLED",
    "HELD_MESSAGE",
    "INTERRUPTED",
    "MAX_PARALLEL",
    "STARTED_MESSAGE",
    "CallPhase",
    "CallPlan",
    "Lifecycle",
    "ToolExecutor",
    "Transition",
    "describe_failure",
    "partition",
    "plan_calls",
]
