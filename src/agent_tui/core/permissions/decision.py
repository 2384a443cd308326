"""The typed answer of the permission pipeline.

Every front end — the TUI's prompt and cards, headless mode, the MCP panel, ``permissions
check`` — reads a ``Decision``'s fields, never its English: what was decided (``kind``), by
which step (``step``) and rule (``rule``), whether the command was fully understood, and which
rules "always allow" may save (``suggestions``; empty with ``no_suggestion`` saying why).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.core.permissions.rules import Rule
from agent_tui.core.sandbox import Shelter

if TYPE_CHECKING:
    from agent_tui.core.tools.base import Tool

Kind = Literal["allow", "ask", "deny"]


class Step(StrEnum):
    """The step of the pipeline that decided."""

    DENY_RULE = "deny rule"
    PLAN_MODE = "plan mode"
    OPAQUE = "opaque command"
    """A command the analysis cannot see through that could run a denied program."""
    ENVIRONMENT = "environment"
    """A variable (or option) that makes programs run other code."""
    PROTECTED = "protected path"
    OUTSIDE = "outside the workspace"
    """A read or write of a path outside the workspace (and the session's temp dir) that no
    rule names (``permissions.outside``)."""
    READ_DENY = "read-deny"
    """The command names a file a read_file deny/ask rule protects."""
    ASK_RULE = "ask rule"
    ALLOW_RULE = "allow rule"
    BYPASS = "bypass mode"
    ACCEPT_EDITS = "accept-edits mode"
    SANDBOX = "sandbox"
    """``sandbox.auto_allow``: the OS sandbox confines the command."""
    READ_ONLY = "read-only"
    DEFAULT = "default"
    """Nothing allows it: a tool that may change things asks."""
    NETWORK = "network"
    """Nothing allows it: a tool that reaches other machines (``web_fetch``) asks."""
    HOOK = "hook"
    """A PreToolUse hook asked, or (a hook of the user's own settings) allowed."""
    INVALID = "invalid input"
    """The permission check could not judge the input (a path it cannot resolve…)."""


EVERY_MODE = frozenset(
    {
        Step.DENY_RULE,
        Step.OPAQUE,
        Step.ENVIRONMENT,
        Step.PROTECTED,
        Step.OUTSIDE,
        Step.READ_DENY,
        Step.INVALID,
    }
)
"""Steps whose answer no mode changes (bypass included)."""


@dataclass(frozen=True)
class Decision:
    kind: Kind
    reason: str = ""
    """For people and the model: what was decided and why, in one sentence."""
    step: Step = Step.DEFAULT
    rule: Rule | None = None
    """The rule that decided, when one did."""
    understood: bool = True
    """False when the shell analysis found constructs it does not understand."""
    suggestions: tuple[Rule, ...] = ()
    """What "always allow" would save for this call (asks only)."""
    no_suggestion: str | None = None
    """Why "always allow" is not offered (an opaque command, a protected path…)."""
    path: Path | None = field(default=None, compare=False)
    """The resolved path that was judged (file tools): the tool opens exactly this."""
    shelter: Shelter | None = field(default=None, compare=False)
    """How the command would run (shell tools): sandboxed or not, with or without network."""

    @property
    def basis(self) -> str:
        """The deciding step in a few words: ``rule mcp__gh__*``, ``read-only``…"""
        if self.rule is not None and self.step in (Step.DENY_RULE, Step.ASK_RULE, Step.ALLOW_RULE):
            return f"rule {self.rule}"
        if self.step is Step.DEFAULT:
            return "not read-only"
        if self.step is Step.ALLOW_RULE:
            return "allow rules"
        if self.step is Step.SANDBOX:
            return "the sandbox"
        return self.step.value

    @property
    def every_mode(self) -> bool:
        """No permission mode would change this answer."""
        return self.step in EVERY_MODE

    def with_(self, **changes: object) -> Decision:
        return replace(self, **changes)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return f"{self.kind} — {self.reason}"


def plan_mode(tool: Tool[Any]) -> Decision:
    """The denial of a tool that may change things while plan mode is on."""
    why = (
        f"plan mode is on: only read-only tools run, so {tool.name} was not run. "
        "Describe the change as a plan instead and propose it with exit_plan_mode: the user "
        "approves it and switches modes to apply it."
    )
    return Decision("deny", why, Step.PLAN_MODE)
