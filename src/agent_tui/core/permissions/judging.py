"""The vocabulary of a judgement: what a judge sees of the pipeline.

``PermissionPipeline`` composes the judges (``shell_judge``, ``domains``, ``outside``,
``read_check``, ``git_judge``, ``deny_static``, ``sandbox_judge``, ``suggest``…): it imports
them, and they import only this module to name what they are handed. ``Judging`` is that
view — the workspace, the rules, the mode, the session's sandbox and the rule look-ups — so a
judge never imports the pipeline back.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent_tui.core.permissions.modes import Mode
    from agent_tui.core.permissions.rules import Rule, RuleSet
    from agent_tui.core.sandbox import SessionSandbox
    from agent_tui.core.tools.base import Tool
    from agent_tui.core.tools.reads import ReadGuard

__all__ = ["Judging", "source_of"]


def source_of(rule: Rule) -> str:
    """`` (from FILE)`` for a rule read from a file, as decisions quote it; else nothing."""
    return f" (from {rule.source})" if rule.source else ""


class Judging(Protocol):
    """The pipeline as a judge sees it (``PermissionPipeline`` is the one implementation)."""

    @property
    def workspace(self) -> Path:
        """The workspace, resolved."""

    @property
    def rules(self) -> RuleSet:
        """The saved rules (deny, ask, allow)."""

    @property
    def mode(self) -> Mode: ...

    @property
    def sandbox(self) -> SessionSandbox | None:
        """Where the session's commands run, if in a sandbox."""

    @property
    def reads(self) -> ReadGuard:
        """What file tools withhold from every listing."""

    @property
    def allow_rules(self) -> list[Rule]:
        """The allow rules: saved, remembered, allowed for this session, and the request's
        grant (a custom command's ``allowed-tools``)."""

    @property
    def standing_allow_rules(self) -> list[Rule]:
        """The allow rules without the request's grant: what may name a protected path or a
        place outside the workspace."""

    def rules_for(self, kind: str, tool: Tool[Any]) -> list[Rule]:
        """The ``kind`` rules that name ``tool`` (or an alias)."""

    def path_rule(
        self, kind: str, tool_name: str, path: Path, named: Path | None = None
    ) -> Rule | None:
        """The first ``kind`` rule of ``tool_name`` whose pattern matches ``path``."""

    def first_matching(
        self, kind: str, tool: Tool[Any], path: Path, named: Path | None = None
    ) -> Rule | None:
        """The first ``kind`` rule naming ``tool`` whose pattern matches ``path``."""

    def inside_workspace(self, path: Path | None) -> bool: ...

    def explicit_allow(self, tool_name: str, path: Path, key: str) -> Rule | None:
        """An allow rule of ``tool_name`` that matches ``path`` and names it literally."""

    def shown(self, path: Path) -> str:
        """``path`` as a decision shows it (relative inside the workspace)."""
