"""Permissions: one pipeline decides allow / ask / deny for every tool call.

``PermissionPipeline`` applies deny → plan mode → the every-mode checks → ask → allow rules →
the mode → the tool's own default, and answers with a typed ``Decision``; ``SimplePolicy`` is
the minimal policy used where no rules are configured. Shell commands are analysed by
``permissions.shell`` (tree-sitter-bash, fail closed).

Layers, each importing only the ones below it: the vocabulary (``decision``, ``modes``,
``rules``, ``policy``, ``asking`` — what an ask is made of: the request, the answer, and the
ask's own future (``PendingApproval``), which the front end settles and the executor judges
again when the mode changes —, ``judging`` — the ``Judging`` protocol, what a judge sees of
the pipeline) and the analysis (``shell``, ``shell_paths``, ``matching``…); the judges
(``shell_judge``, ``domains``, ``outside``, ``outside_shell``, ``read_check``, ``git_judge``,
``deny_static``, ``sandbox_judge``, ``suggest``), handed a ``Judging`` and never importing the
pipeline; ``pipeline``, which composes them; then ``setup``, ``config`` and ``report`` around
it. It imports core helpers (``tools``, ``sandbox``, ``state``, ``workspace``, ``transcript``),
never the executor, the agent or any UI.
"""

from agent_tui.core.permissions.asking import (
    Approval,
    ApprovalRequest,
    Asker,
    PendingApproval,
    Scope,
)
from agent_tui.core.permissions.decision import Decision, Step
from agent_tui.core.permissions.modes import Mode, parse_mode
from agent_tui.core.permissions.pipeline import PermissionPipeline
from agent_tui.core.permissions.policy import PermissionPolicy, SimplePolicy
from agent_tui.core.permissions.rules import Rule, RuleError, RuleSet

__all__ = [
    "Approval",
    "ApprovalRequest",
    "Asker",
    "Decision",
    "Mode",
    "PendingApproval",
    "PermissionPipeline",
    "PermissionPolicy",
    "Rule",
    "RuleError",
    "RuleSet",
    "Scope",
    "SimplePolicy",
    "Step",
    "parse_mode",
]
