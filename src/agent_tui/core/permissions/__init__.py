"""Permissions: one pipeline decides allow / ask / deny for every tool call.

``PermissionPipeline`` applies deny → plan mode → ask → allow rules → the mode → the tool's
own check; ``SimplePolicy`` is the minimal policy used where no rules are configured.
"""

from agent_tui.core.permissions.modes import Mode, parse_mode
from agent_tui.core.permissions.pipeline import PermissionPipeline, RuleSet
from agent_tui.core.permissions.policy import (
    Approval,
    ApprovalRequest,
    Asker,
    Decision,
    PermissionPolicy,
    SimplePolicy,
)
from agent_tui.core.permissions.rules import Rule, RuleError

__all__ = [
    "Approval",
    "ApprovalRequest",
    "Asker",
    "Decision",
    "Mode",
    "PermissionPipeline",
    "PermissionPolicy",
    "Rule",
    "RuleError",
    "RuleSet",
    "SimplePolicy",
    "parse_mode",
]
