"""The model's plan, pinned above the tool lane (``PlanPanel``)."""

from agent_tui.ui.plan.plan_panel import PlanPanel

__all__ = ["PlanPanel"]
