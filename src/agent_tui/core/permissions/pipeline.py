"""The one decision pipeline every tool call passes through.

validate input (done by the registry) → deny rules → plan mode → ask rules → allow rules →
the mode → the tool's own check. Deny always wins, in every mode; when in doubt, ask.

``decide`` judges one call; ``explain`` runs the same steps for a tool without running
anything and says which step decided (the MCP panel shows it per tool: an MCP tool has no rule
subject, so its decision is the same for every call). ``explain_tool`` does that for any policy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.policy import ApprovalRequest, Decision, PermissionPolicy
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.permissions.shell import ShellAnalysis, SimpleCommand, analyse
from agent_tui.core.tools.base import Tool
from agent_tui.core.transcript import ToolCall


@dataclass
class RuleSet:
    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)

    def extend(self, other: RuleSet) -> None:
        self.allow.extend(other.allow)
        self.ask.extend(other.ask)
        self.deny.extend(other.deny)


@dataclass(frozen=True)
class Subject:
    """What the rules of a call are matched against."""

    kind: str  # "command", "path" or "none"
    command: str = ""
    analysis: ShellAnalysis | None = None
    path: Path | None = None


@dataclass(frozen=True)
class Explanation:
    """Which step of the pipeline decides a tool's calls, and how."""

    decision: Decision
    basis: str
    """The deciding step in a few words: ``rule mcp__gh__*``, ``read-only``, ``plan mode``…"""
    rule: Rule | None = None
    """The rule that decided, when one did."""

    @property
    def kind(self) -> str:
        return self.decision.kind

    @property
    def reason(self) -> str:
        return self.decision.reason

    def __str__(self) -> str:
        return f"{self.decision.kind} — {self.decision.reason}"


def subject_of(tool: Tool[Any], arguments: dict[str, Any], workspace: Path) -> Subject:
    field_name = tool.meta.rule_subject
    value = arguments.get(field_name) if field_name else None
    if tool.meta.rule_kind == "command" and isinstance(value, str):
        return Subject("command", command=value, analysis=analyse(value))
    if tool.meta.rule_kind == "path":
        raw = value if isinstance(value, str) and value else "."
        target = Path(raw).expanduser()
        if not target.is_absolute():
            target = workspace / target
        return Subject("path", path=Path(os.path.realpath(target)))
    return Subject("none")


class PermissionPipeline:
    """Rules + mode -> allow / ask / deny for one call."""

    def __init__(
        self, workspace: Path, rules: RuleSet | None = None, mode: Mode = Mode.DEFAULT
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.rules = rules or RuleSet()
        self.mode = mode
        self.session_allow: list[Rule] = []
        self.on_remember: list[Any] = []

    # -- matching ---------------------------------------------------------------------------

    def _matches(self, rule: Rule, tool: Tool[Any], subject: Subject, *, loose: bool) -> bool:
        if not (rule.names_tool(tool.name) or any(rule.names_tool(a) for a in tool.aliases)):
            return False
        if rule.pattern is None:
            return True
        if subject.kind == "command" and subject.analysis is not None:
            commands = _relevant(subject.analysis.commands)
            if loose:  # deny / ask: any subcommand
                return any(rule.matches_command(c, loose=True) for c in commands)
            return False  # allow rules are applied per subcommand in _allowed_command
        if subject.kind == "path" and subject.path is not None:
            return rule.matches_path(subject.path, self.workspace)
        return False

    def _allowed_command(self, allow: Iterable[Rule], tool: Tool[Any], subject: Subject) -> bool:
        """An allow rule approves a command only if every subcommand is allowed."""
        analysis = subject.analysis
        if analysis is None or analysis.opaque:
            return False
        commands = _relevant(analysis.commands)
        if not commands:
            return False
        rules = [r for r in allow if r.names_tool(tool.name)]
        if any(r.pattern is None for r in rules):
            return True
        for command in commands:
            if command.writes_files or not command.known_prefix(1):
                return False
            if not any(r.matches_command(command, loose=False) for r in rules):
                return False
        return True

    def _inside_workspace(self, path: Path | None) -> bool:
        if path is None:
            return False
        return path == self.workspace or self.workspace in path.parents

    # -- the pipeline -----------------------------------------------------------------------

    def decide(self, request: ApprovalRequest) -> Decision:
        arguments = request.input.model_dump(mode="python")
        return self._judge(request.tool, subject_of(request.tool, arguments, self.workspace))[0]

    def explain(self, tool: Tool[Any], arguments: dict[str, Any] | None = None) -> Explanation:
        """What ``decide`` would say for a call of ``tool`` now, and which step says it.

        A tool without a rule subject (every MCP tool) gets the same decision for every call,
        so ``arguments`` are not needed; for the others they are judged as given."""
        decision, basis, rule = self._judge(tool, subject_of(tool, arguments or {}, self.workspace))
        if basis == "plan mode":  # decide's wording is for the model, after a refused call
            decision = Decision("deny", "plan mode is on: only read-only tools run")
        return Explanation(decision, basis, rule)

    def _judge(self, tool: Tool[Any], subject: Subject) -> tuple[Decision, str, Rule | None]:
        """The pipeline: (decision, the deciding step in a few words, the deciding rule)."""
        for rule in self.rules.deny:
            if self._matches(rule, tool, subject, loose=True):
                return (
                    Decision("deny", f"denied by the rule {rule}{_from(rule)}"),
                    f"rule {rule}",
                    rule,
                )
        if self.mode is Mode.PLAN and not tool.meta.read_only:
            why = (
                f"plan mode is on: only read-only tools run, so {tool.name} was not run. "
                "Describe the change as a plan instead; the user can switch modes to apply it."
            )
            return Decision("deny", why), "plan mode", None
        opaque = subject.analysis.opaque if subject.analysis else None
        if opaque and any(r.names_tool(tool.name) for r in self.rules.deny):
            why = f"the command contains {opaque}, which deny rules cannot see through"
            return Decision("ask", why), "opaque command", None
        for rule in self.rules.ask:
            if self._matches(rule, tool, subject, loose=True):
                if self.mode is Mode.BYPASS:
                    return Decision("allow", "bypass mode"), "bypass mode", None
                why = f"the rule {rule}{_from(rule)} asks for this call"
                return Decision("ask", why), f"rule {rule}", rule
        allow = [*self.rules.allow, *self.session_allow]
        if subject.kind == "command":
            if self._allowed_command(allow, tool, subject):
                why = "every part of the command is allowed by a rule"
                return Decision("allow", why), "allow rules", None
        else:
            for rule in allow:
                if self._matches(rule, tool, subject, loose=False):
                    why = f"allowed by the rule {rule}{_from(rule)}"
                    return Decision("allow", why), f"rule {rule}", rule
        if self.mode is Mode.BYPASS:
            return Decision("allow", "bypass mode"), "bypass mode", None
        if (
            self.mode is Mode.ACCEPT_EDITS
            and subject.kind == "path"
            and not tool.meta.read_only
            and self._inside_workspace(subject.path)
        ):
            why = "accept-edits mode: a file edit inside the workspace"
            return Decision("allow", why), "accept-edits mode", None
        if tool.meta.read_only:
            return Decision("allow", f"{tool.name} is read-only"), "read-only", None
        return Decision("ask", _why_ask(tool, subject, self)), "not read-only", None

    def suggest(self, request: ApprovalRequest) -> list[Rule]:
        """The narrowest useful rules that "always allow" would add for this call."""
        from agent_tui.core.permissions.suggest import suggest_rules

        arguments = request.input.model_dump(mode="python")
        subject = subject_of(request.tool, arguments, self.workspace)
        return suggest_rules(request.tool, subject, self.workspace)

    def remember(self, request: ApprovalRequest) -> None:
        """The user chose "always": allow those rules from now on (and tell the listeners,
        which save them to the local project settings)."""
        rules = self.suggest(request)
        self.session_allow.extend(rules)
        for callback in self.on_remember:
            callback(rules)


def _relevant(commands: list[SimpleCommand]) -> list[SimpleCommand]:
    """``cd`` only moves around; the commands after it are judged on their own."""
    return [c for c in commands if c.argv and c.argv[0] != "cd"]


def _from(rule: Rule) -> str:
    return f" (from {rule.source})" if rule.source else ""


def _why_ask(tool: Tool[Any], subject: Subject, pipeline: PermissionPipeline) -> str:
    if subject.kind == "command":
        if subject.analysis and subject.analysis.opaque:
            return f"the command contains {subject.analysis.opaque}"
        return "run_shell runs commands on your machine"
    if subject.kind == "path" and not pipeline._inside_workspace(subject.path):
        return f"{subject.path} is outside the workspace"
    if subject.kind == "none" and tool.name.startswith("mcp__"):
        return f"{tool.name} is not marked read-only by its MCP server, so it may change things"
    return f"{tool.name} changes files"


def explain_tool(policy: PermissionPolicy, tool: Tool[Any]) -> Explanation:
    """``explain`` for any policy: the pipeline's own, else the policy's decision for a call
    of ``tool`` with empty arguments (``SimplePolicy`` judges by the tool alone)."""
    explain = getattr(policy, "explain", None)
    if callable(explain):
        explained = explain(tool)
        if isinstance(explained, Explanation):
            return explained
    request = ApprovalRequest(
        ToolCall(id="explain", name=tool.name, arguments="{}"),
        tool,
        tool.input_model.model_construct(),
    )
    decision = policy.decide(request)
    basis = decision.reason.removeprefix(f"{tool.name} ") or decision.kind
    return Explanation(decision, basis)
