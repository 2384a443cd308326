"""The output budget (seed s04): nothing a tool prints is lost, and the model sees a budget.

- ``store``: spill files written byte for byte and atomically, with a sidecar line index;
- ``raw``: a tool's exact output bytes, which a spill saves instead of the text the model reads;
- ``reader``: windows of a spill file in time proportional to the window (read_file uses it);
- ``excerpt``: head- or tail-heavy excerpts and the three-part pointer;
- ``compress``: importance-based log folding before the budget;
- ``turn``: the per-result / per-turn budget over any tool's results (``apply_budget``);
- ``cleanup``: deleting spills no transcript or saved session refers to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core import lazy
from agent_tui.core.budget.excerpt import count_lines, excerpt  # a submodule's name: eager

if TYPE_CHECKING:
    from agent_tui.core.budget.cleanup import CleanupReport, collect_spills
    from agent_tui.core.budget.compress import Compressed, compress_log
    from agent_tui.core.budget.config import BudgetSettings, LogCompressionSettings
    from agent_tui.core.budget.raw import RawOutput
    from agent_tui.core.budget.reader import SpillReader
    from agent_tui.core.budget.store import SpillRecord, SpillStore
    from agent_tui.core.budget.turn import (
        BudgetedResult,
        PendingResult,
        SpillNotice,
        TurnBudget,
        apply_budget,
        plan_spills,
    )
else:
    __getattr__ = lazy.exports(
        __name__,
        {
            "CleanupReport": "cleanup",
            "collect_spills": "cleanup",
            "Compressed": "compress",
            "compress_log": "compress",
            "BudgetSettings": "config",
            "LogCompressionSettings": "config",
            "RawOutput": "raw",
            "SpillReader": "reader",
            "SpillRecord": "store",
            "SpillStore": "store",
            "BudgetedResult": "turn",
            "PendingResult": "turn",
            "SpillNotice": "turn",
            "TurnBudget": "turn",
            "apply_budget": "turn",
            "plan_spills": "turn",
        },
    )

__all__ = [
    "BudgetSettings",
    "BudgetedResult",
    "CleanupReport",
    "Compressed",
    "LogCompressionSettings",
    "PendingResult",
    "RawOutput",
    "SpillNotice",
    "SpillReader",
    "SpillRecord",
    "SpillStore",
    "TurnBudget",
    "apply_budget",
    "collect_spills",
    "compress_log",
    "count_lines",
    "excerpt",
    "plan_spills",
]
