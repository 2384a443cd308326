"""The one decision pipeline every tool call passes through.

validate input (the registry) → deny rules → plan mode → the checks no mode skips (an opaque
command that could run a denied program, a dangerous environment variable, a protected path, a
file a read rule protects, a read or write outside the workspace: ``outside``) → ask rules →
allow rules → the mode → the tool's own default. Deny always wins, in every mode; what the
analysis does not fully understand is never allowed by a rule; when in doubt, ask.

``decide`` judges one call and returns a typed ``Decision`` (with the rules "always allow"
would save); ``explain`` runs the same steps for a tool without running anything (the MCP
panel shows it per tool).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_tui.core.permissions.asking import ApprovalRequest, Scope
from agent_tui.core.permissions.decision import Decision, Step, plan_mode
from agent_tui.core.permissions.judging import source_of
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.outside import free_to_write, outside_path
from agent_tui.core.permissions.protected import names_explicitly, protection
from agent_tui.core.permissions.rules import Rule, RuleSet
from agent_tui.core.permissions.subject import Subject, SubjectError, subject_of
from agent_tui.core.sandbox import SessionSandbox
from agent_tui.core.state.trust import TrustItem
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.hosts import HostRules
from agent_tui.core.tools.reads import ReadGuard

READ_TOOL = "read_file"
WRITE_TOOL = "write_file"
CONTENT_READERS = frozenset({"read_file", "grep"})
"""Tools whose call returns a file's content: ``read_file`` deny/ask rules judge them too."""

__all__ = ["PermissionPipeline", "RuleSet"]


def _names(kind: str, path: Path, named: Path | None) -> list[Path]:
    """What a ``kind`` rule is matched against: the resolved path; for deny and ask rules
    also every name the path as written goes by (an allow rule must not follow a link's
    innocent name)."""
    if kind == "allow" or named is None:
        return [path]
    from agent_tui.core.permissions.link_names import spellings

    return [path, *(n for n in spellings(named) if n != path)]


def names(rule: Rule, tool: Tool[Any]) -> bool:
    return rule.names_tool(tool.name) or any(rule.names_tool(a) for a in tool.aliases)


class PermissionPipeline:
    """Rules + mode → a ``Decision`` for one call."""

    def __init__(
        self, workspace: Path, rules: RuleSet | None = None, mode: Mode = Mode.DEFAULT
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.rules = rules or RuleSet()
        self.mode = mode
        self.session_allow: list[Rule] = []
        """Rules the user allowed at the prompt "for this session": in memory, until the
        conversation ends (``forget_session``)."""
        self.remembered: list[Rule] = []
        """Rules the user allowed at the prompt "always": saved to the local settings by the
        listeners, and kept in memory for as long as this pipeline lives."""
        self.on_remember: list[Any] = []
        """Called with the rules of each "always" (``setup`` saves them to a file)."""
        self.mode_chosen = False
        """The mode was chosen on the command line: a trusted project mode does not replace it."""
        self.sandbox: SessionSandbox | None = None
        """Where the session's commands run (``use_sandbox``): decisions say so, and
        ``sandbox.auto_allow`` relies on it."""
        self.granted: tuple[Rule, ...] = ()
        """The allow rules of the request being judged (``ApprovalRequest.grant``: a custom
        command's ``allowed-tools``, for its turn). Only set on the copy ``decide`` judges
        such a request with (``decide`` runs in worker threads): the session's pipeline never
        holds them, so they cannot outlive the call."""

    # -- the policy protocol ------------------------------------------------------------------

    @property
    def saves_rules(self) -> bool:
        return bool(self.on_remember)

    def set_mode(self, mode: Mode) -> None:
        self.mode = mode

    def use_sandbox(self, sandbox: SessionSandbox) -> None:
        self.sandbox = sandbox

    def trusted(self, items: Sequence[TrustItem]) -> None:
        for item in items:
            if item.kind == "allow_rule":
                rule = Rule.parse(item.name, source=str(item.source))
                if rule not in self.rules.allow:
                    self.rules.allow.append(rule)
            elif item.kind == "mode" and not self.mode_chosen:
                self.mode = Mode(item.name)

    @property
    def reads(self) -> ReadGuard:
        """The read guard of these rules: what file tools withhold from every listing."""
        from agent_tui.core.permissions.outside import outside_guard
        from agent_tui.core.permissions.read_guard import RuleReadGuard

        return outside_guard(self, RuleReadGuard(self.rules, self.workspace))

    @property
    def hosts(self) -> HostRules:
        """The hosts the allow rules (saved, remembered, for this session) name literally."""
        from agent_tui.core.permissions.domains import WEB_TOOLS, RuleHosts

        return RuleHosts(self.allow_rules, sorted(WEB_TOOLS))

    def decide(self, request: ApprovalRequest) -> Decision:
        arguments = request.input.model_dump(mode="python")
        judge = self.granting(request.grant) if request.grant else self
        return judge.judge(request.tool, arguments)

    def granting(self, rules: Sequence[Rule]) -> PermissionPipeline:
        """This pipeline with ``rules`` allowed too: a copy sharing its rules, mode and
        sandbox, for judging one request (the session's pipeline is left as it is)."""
        view = copy.copy(self)
        view.granted = tuple(rules)
        return view

    def judge(
        self, tool: Tool[Any], arguments: dict[str, Any], *, suggest: bool = True
    ) -> Decision:
        """``decide`` for a tool and its arguments (``suggest=False``: without the rules "always
        allow" would save, which only an approval prompt shows)."""
        try:
            subject = subject_of(tool, arguments, self.workspace)
        except SubjectError as exc:
            return Decision(
                "deny", f"the permission check cannot judge this call: {exc}", Step.INVALID
            )
        decision = self._judge(tool, subject)
        server = arguments.get(tool.meta.acts_on_server) if tool.meta.acts_on_server else None
        if isinstance(server, str) and decision.kind != "deny":
            decision = self._server_rules(tool, server, decision)
        if subject.kind == "command" and self.sandbox is not None:
            decision = decision.with_(shelter=self.sandbox.state.shelter)
        if decision.kind == "ask" and suggest:
            from agent_tui.core.permissions.suggest import suggestions_for

            rules, why_not = suggestions_for(self, tool, subject, decision)
            decision = decision.with_(suggestions=tuple(rules), no_suggestion=why_not)
        return decision

    def explain(
        self, tool: Tool[Any], arguments: dict[str, Any] | None = None, *, suggest: bool = True
    ) -> Decision:
        """What ``decide`` would say for a call of ``tool`` now. A tool without a rule subject
        (every MCP tool) gets the same decision for every call, so ``arguments`` are not
        needed; for the others they are judged as given."""
        decision = self.judge(tool, arguments or {}, suggest=suggest)
        if decision.step is Step.PLAN_MODE:  # decide's wording is for the model
            decision = decision.with_(reason="plan mode is on: only read-only tools run")
        return decision

    def remember(self, request: ApprovalRequest, scope: Scope = Scope.ALWAYS) -> list[Rule]:
        """The user chose "allow for this session" or "always": allow the decision's suggested
        rules from now on, in memory (``session_allow`` or ``remembered``: checked after every
        deny rule, like any allow rule). Only ``ALWAYS`` tells the listeners, which save the
        rules to the local project settings; ``SESSION`` writes nothing and ends with the
        conversation (``forget_session``)."""
        rules = list(self.decide(request).suggestions)
        if not rules:
            return []
        if scope is Scope.ALWAYS:
            self.remembered.extend(rules)
            for callback in self.on_remember:
                callback(rules)
        else:
            self.session_allow.extend(rules)
        return rules

    def forget_session(self) -> None:
        """The conversation ended (a new one, another session resumed): what was allowed "for
        this session" asks again; what was allowed "always" stays."""
        self.session_allow.clear()

    # -- rules --------------------------------------------------------------------------------

    @property
    def allow_rules(self) -> list[Rule]:
        return [*self.standing_allow_rules, *self.granted]

    @property
    def standing_allow_rules(self) -> list[Rule]:
        """The allow rules beyond one request (saved, remembered, for this session): only
        these name a protected path or a place outside the workspace (a command's grant,
        ``granted``, never does)."""
        return [*self.rules.allow, *self.remembered, *self.session_allow]

    def rules_for(self, kind: str, tool: Tool[Any]) -> list[Rule]:
        pool = self.allow_rules if kind == "allow" else getattr(self.rules, kind)
        return [rule for rule in pool if names(rule, tool)]

    def path_rule(
        self, kind: str, tool_name: str, path: Path, named: Path | None = None
    ) -> Rule | None:
        """The first ``kind`` rule of ``tool_name`` whose pattern matches ``path`` (resolved)
        or, for deny and ask rules, a name ``named`` (as written) goes by (``link_names``)."""
        pool = self.allow_rules if kind == "allow" else getattr(self.rules, kind)
        names = _names(kind, path, named)
        for rule in pool:
            if rule.names_tool(tool_name) and (
                rule.pattern is None or any(rule.matches_path(n, self.workspace) for n in names)
            ):
                return rule
        return None

    def first_matching(
        self, kind: str, tool: Tool[Any], path: Path, named: Path | None = None
    ) -> Rule | None:
        """The first ``kind`` rule naming ``tool`` (or an alias) whose pattern matches
        ``path`` (resolved) or, for deny and ask rules, a name of ``named`` (as written: a
        link a rule names, a path through a linked folder); ``mcp serve`` refuses calls with
        it too."""
        names = _names(kind, path, named)
        for rule in self.rules_for(kind, tool):
            if rule.pattern is None or any(rule.matches_path(n, self.workspace) for n in names):
                return rule
        return None

    def inside_workspace(self, path: Path | None) -> bool:
        return path is not None and (path == self.workspace or self.workspace in path.parents)

    def explicit_allow(self, tool_name: str, path: Path, key: str) -> Rule | None:
        """An allow rule of ``tool_name`` that matches ``path`` and names it literally (a
        standing one: a command's grant never lifts a protection)."""
        for rule in self.standing_allow_rules:
            if (
                rule.names_tool(tool_name)
                and rule.pattern is not None
                and names_explicitly(rule.pattern, key)
                and rule.matches_path(path, self.workspace)
            ):
                return rule
        return None

    # -- the pipeline -------------------------------------------------------------------------

    def _judge(self, tool: Tool[Any], subject: Subject) -> Decision:
        if subject.kind == "command" and subject.analysis is not None:
            from agent_tui.core.permissions.shell_judge import judge_command

            return judge_command(self, tool, subject.analysis)
        if subject.kind == "path" and subject.path is not None:
            return self._judge_path(tool, subject.path, subject.named)
        if subject.kind == "domain":
            from agent_tui.core.permissions.domains import judge_domain

            return judge_domain(self, tool, subject.host)
        return self._judge_plain(tool)

    def _server_rules(self, tool: Tool[Any], server: str, decision: Decision) -> Decision:
        """The rules of the MCP server ``server`` for a call that acts on it: a deny rule for
        the server denies it, an ask rule makes an allowed call ask. The server is named as
        in its tools' names (``mcp__ev_1__`` for ``ev.1``: ``mcp_names``), so one rule covers
        its tools and its resources alike."""
        from agent_tui.core.permissions.mcp_names import server_prefix

        acting = f"{server_prefix(server)}{tool.name}"
        for rule in self.rules.deny:
            if rule.pattern is None and rule.names_tool(acting):
                return Decision(
                    "deny",
                    f"denied by the rule {rule}{source_of(rule)}: the call acts on the MCP "
                    f"server {server!r}",
                    Step.DENY_RULE,
                    rule,
                )
        if decision.kind == "allow" and self.mode is not Mode.BYPASS:
            for rule in self.rules.ask:
                if rule.pattern is None and rule.names_tool(acting):
                    return Decision(
                        "ask",
                        f"the rule {rule}{source_of(rule)} asks for calls on the MCP server "
                        f"{server!r}",
                        Step.ASK_RULE,
                        rule,
                    )
        return decision

    def _judge_plain(self, tool: Tool[Any]) -> Decision:
        for rule in self.rules_for("deny", tool):
            if rule.pattern is None:
                return Decision(
                    "deny", f"denied by the rule {rule}{source_of(rule)}", Step.DENY_RULE, rule
                )
        if self.mode is Mode.PLAN and not tool.meta.read_only:
            return plan_mode(tool)
        if self.mode is not Mode.BYPASS:
            for rule in self.rules_for("ask", tool):
                if rule.pattern is None:
                    return Decision(
                        "ask",
                        f"the rule {rule}{source_of(rule)} asks for this call",
                        Step.ASK_RULE,
                        rule,
                    )
        for rule in self.rules_for("allow", tool):
            if rule.pattern is None:
                return Decision(
                    "allow", f"allowed by the rule {rule}{source_of(rule)}", Step.ALLOW_RULE, rule
                )
        return self._by_mode(tool, None)

    def _judge_path(self, tool: Tool[Any], path: Path, named: Path | None = None) -> Decision:
        shown = self.shown(path)
        content = tool.name in CONTENT_READERS
        denying = self.first_matching("deny", tool, path, named)
        if denying is not None:
            return Decision(
                "deny",
                f"denied by the rule {denying}{source_of(denying)}",
                Step.DENY_RULE,
                denying,
                path=path,
            )
        if content and tool.name != READ_TOOL:
            protecting = self.path_rule("deny", READ_TOOL, path, named)
            if protecting is not None:
                return Decision(
                    "deny",
                    f"{shown} is protected by the rule {protecting}"
                    f"{source_of(protecting)}: its content cannot be read by any tool",
                    Step.DENY_RULE,
                    protecting,
                    path=path,
                )
        if self.mode is Mode.PLAN and not tool.meta.read_only:
            return plan_mode(tool).with_(path=path)
        if not tool.meta.read_only:
            guarded = protection(path)
            if guarded is not None and self.explicit_allow(tool.name, path, guarded.key) is None:
                return Decision(
                    "ask",
                    f"{shown} is a protected path: {guarded.what}. It asks in every mode "
                    "unless a rule names it",
                    Step.PROTECTED,
                    path=path,
                )
        outside = outside_path(self, tool, path)
        if outside is not None:
            return Decision("ask", outside, Step.OUTSIDE, path=path)
        if self.mode is not Mode.BYPASS:
            asking = self.first_matching("ask", tool, path, named)
            if asking is None and content and tool.name != READ_TOOL:
                asking = self.path_rule("ask", READ_TOOL, path, named)
            if asking is not None:
                return Decision(
                    "ask",
                    f"the rule {asking}{source_of(asking)} asks for this call",
                    Step.ASK_RULE,
                    asking,
                    path=path,
                )
        allowing = self.first_matching("allow", tool, path)
        if allowing is not None:
            return Decision(
                "allow",
                f"allowed by the rule {allowing}{source_of(allowing)}",
                Step.ALLOW_RULE,
                allowing,
                path=path,
            )
        if (
            self.mode is Mode.ACCEPT_EDITS
            and not tool.meta.read_only
            and free_to_write(self, path, command=False)
        ):
            return Decision(
                "allow",
                "accept-edits mode: a file edit inside the workspace (or the session's temp dir)",
                Step.ACCEPT_EDITS,
                path=path,
            )
        return self._by_mode(tool, path)

    def _by_mode(self, tool: Tool[Any], path: Path | None) -> Decision:
        if self.mode is Mode.BYPASS:
            return Decision("allow", "bypass mode", Step.BYPASS, path=path)
        if tool.meta.read_only:
            return Decision("allow", f"{tool.name} is read-only", Step.READ_ONLY, path=path)
        if path is not None and not self.inside_workspace(path):
            why = f"{path} is outside the workspace"
        elif tool.name.startswith("mcp__"):
            why = f"{tool.name} is not marked read-only by its MCP server, so it may change things"
        else:
            why = f"{tool.name} changes files"
        return Decision("ask", why, Step.DEFAULT, path=path)

    def shown(self, path: Path) -> str:
        if path == self.workspace:
            return "."
        if self.inside_workspace(path):
            return path.relative_to(self.workspace).as_posix()
        return str(path)
