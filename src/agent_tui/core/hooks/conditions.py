"""A hook's ``"if"`` condition: a permission rule the call must match for the hook to run.

Claude Code (2.1.85 on) lets a handler say ``"if": "Bash(git *)"``: its process starts only for
a call that rule matches, instead of on every call its matcher names. The rule is read as
Claude Code's rule syntax (``core.claude.rules``; our own ``run_shell(git *)`` is read too) and
judged by our permission engine **as a deny rule would be**: deny rules match loosely, so a
spelling cannot dodge them (``git -C x push`` and ``ls && git push`` both match
``Bash(git push *)``, each part of a compound command is judged). A condition is a filter on a
guard, so whatever is not fully understood runs the hook: a condition that cannot be read (or
translated exactly) is dropped with a notice and the hook runs on every call, and a call the
engine cannot judge for certain (a command it cannot see through) runs the hook too. Only a
call the rule clearly does not match skips it.

On events that have no tool call (``Stop``, ``SessionStart``…) a condition means nothing: Claude
Code ignores it there, and so does this (with a notice).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.permissions.decision import Step
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.pipeline import PermissionPipeline
from agent_tui.core.permissions.rules import Rule, RuleSet
from agent_tui.core.tools.base import Tool


@dataclass(frozen=True)
class Condition:
    """One ``"if"`` condition, read: the rules a call must match (any of them), or why it
    cannot be used (``problem``: the hook then runs on every call its matcher names)."""

    text: str
    rules: tuple[Rule, ...] = ()
    problem: str | None = None


def read_condition(text: str, root: Path) -> Condition:
    """The condition ``text`` (a Claude Code rule string, or one of ours) for the project
    ``root``; never raises."""
    from agent_tui.core.claude.rules import translate

    translation = translate(text, "deny", root=root, source="if")
    if not translation.rules:  # not a rule, or a tool with no counterpart here
        return Condition(text, (), translation.note or f"{text!r} names no tool here")
    # a translation that is wider than written (its note says so) runs the hook more
    # often, never less: fine for a filter on a guard
    return Condition(text, translation.rules)


def holds(condition: Condition, tool: Tool[Any], arguments: dict[str, Any], root: Path) -> bool:
    """Whether the hook runs for this call: the condition's rules, as deny rules in bypass
    mode, deny it — or the engine is not sure they do not (an ask, an invalid input, a command
    it cannot see through): run."""
    if condition.problem is not None:
        return True
    pipeline = PermissionPipeline(root, RuleSet(deny=list(condition.rules)), Mode.BYPASS)
    decision = pipeline.judge(tool, arguments)
    if decision.kind == "allow" and decision.step in (Step.BYPASS, Step.SANDBOX):
        return False
    if decision.kind == "deny" and decision.step is Step.DENY_RULE:
        return True
    # Something else decided (a protected path, a path outside the workspace, a command the
    # analysis cannot see through): not a clear "the rule does not match". Ask a pipeline
    # without the rules whether it decides the same; if so, the rules did not matter.
    bare = PermissionPipeline(root, RuleSet(), Mode.BYPASS).judge(tool, arguments)
    return (bare.kind, bare.step) != (decision.kind, decision.step)


__all__ = ["Condition", "holds", "read_condition"]
