"""Permission decisions for tool calls.

This is the first, simple policy: read-only tools are allowed, others are allowed only when
named in ``allowed`` (``--allow NAME``) and asked about otherwise. The full pipeline (rules,
modes, shell-smuggling checks) replaces ``SimplePolicy`` behind the same ``decide`` call.
"""

from agent_tui.core.permissions.policy import (
    Approval,
    ApprovalRequest,
    Asker,
    Decision,
    PermissionPolicy,
    SimplePolicy,
)

__all__ = ["Approval", "ApprovalRequest", "Asker", "Decision", "PermissionPolicy", "SimplePolicy"]
