"""The policy protocol every front end uses, and the simplest policy.

A policy answers ``decide`` with a typed ``Decision`` (kind, reason, step, rule, understood,
suggested rules); ``explain`` answers the same for a tool without a call (the MCP panel);
``remember`` allows the suggested rules from now on when the user chose "allow for this
session" (in memory only) or "always allow" (also saved, when the policy saves rules);
``reads`` is the read guard the file tools obey; ``mode`` is the permission mode (None: the
policy has none).
Front ends read these fields only — no probing with ``getattr`` or ``isinstance``. The
request a policy judges and the answer a user gives are in ``permissions.asking``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel

from agent_tui.core.permissions.asking import ApprovalRequest, Scope
from agent_tui.core.permissions.decision import Decision, Step
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.sandbox import SessionSandbox
from agent_tui.core.state.trust import TrustItem
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.hosts import NO_HOSTS, HostRules
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard


class PermissionPolicy(Protocol):
    @property
    def mode(self) -> Mode | None:
        """The permission mode (None: the policy has none)."""
        ...

    def decide(self, request: ApprovalRequest) -> Decision: ...

    def explain(
        self, tool: Tool[Any], arguments: dict[str, Any] | None = None, *, suggest: bool = True
    ) -> Decision:
        """What ``decide`` would say for a call of ``tool`` now; ``suggest=False``: without the
        rules "always allow" would save (``Decision.suggestions``), for callers that only look
        at the decision (each request's tools array)."""
        ...

    def remember(self, request: ApprovalRequest, scope: Scope = Scope.ALWAYS) -> list[Rule]:
        """The user allowed the request for the session (``SESSION``: in memory only) or
        always (``ALWAYS``: also saved, when the policy saves rules): allow its suggested rules
        from now on, after the deny rules as any allow rule. Answers the rules allowed."""
        ...

    def forget_session(self) -> None:
        """The conversation ended (a new one, another session resumed): forget what the user
        allowed for this session only (``SESSION``); ``ALWAYS`` allows stay."""
        ...

    def set_mode(self, mode: Mode) -> None: ...

    def use_sandbox(self, sandbox: SessionSandbox) -> None:
        """Where the session's shell commands run: decisions about them say how
        (``Decision.shelter``), and ``sandbox.auto_allow`` relies on it."""
        ...

    def trusted(self, items: Sequence[TrustItem]) -> None:
        """The user trusted these project items (``core.state.trust``): their allow rules apply
        from now on, and a default mode among them unless the command line chose one."""
        ...

    @property
    def saves_rules(self) -> bool:
        """Whether ``remember`` with ``ALWAYS`` writes rules to a settings file (else: this
        session only). ``SESSION`` never writes."""
        ...

    @property
    def reads(self) -> ReadGuard: ...

    @property
    def hosts(self) -> HostRules:
        """The hosts its allow rules name literally (``web_fetch``'s private addresses)."""
        ...


class SimplePolicy:
    """Read-only tools run; other tools run when allowed by name (``*`` allows all). It has no
    rule matching, so a request's ``grant`` (a custom command's ``allowed-tools``) is not read:
    front ends run with a ``PermissionPipeline``, which judges it."""

    mode: Mode | None = None

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = set(allowed)
        self._session: set[str] = set()
        """Names allowed for this session only."""

    def decide(self, request: ApprovalRequest) -> Decision:
        return self.explain(request.tool)

    def explain(
        self, tool: Tool[Any], arguments: dict[str, Any] | None = None, *, suggest: bool = True
    ) -> Decision:
        if "*" in self.allowed or tool.name in self.allowed:
            rule = Rule(tool.name, None, "configuration")
            return Decision(
                "allow", f"{tool.name} is allowed by configuration", Step.ALLOW_RULE, rule
            )
        if tool.meta.read_only and not tool.meta.network:
            return Decision("allow", f"{tool.name} is read-only", Step.READ_ONLY)
        if tool.meta.network:
            return Decision(
                "ask",
                f"{tool.name} reaches other machines",
                Step.NETWORK,
                suggestions=(Rule(tool.name, None, "always allow"),),
            )
        return Decision(
            "ask",
            f"{tool.name} can change files or run commands",
            Step.DEFAULT,
            suggestions=(Rule(tool.name, None, "always allow"),),
        )

    def remember(self, request: ApprovalRequest, scope: Scope = Scope.ALWAYS) -> list[Rule]:
        name = request.tool.name
        if name not in self.allowed and scope is Scope.SESSION:
            self._session.add(name)
        self.allowed.add(name)  # in memory, whatever the scope: nothing is saved
        return [Rule(name)]

    def forget_session(self) -> None:
        self.allowed -= self._session
        self._session.clear()

    def set_mode(self, mode: Mode) -> None:
        return None

    def use_sandbox(self, sandbox: SessionSandbox) -> None:
        return None

    def trusted(self, items: Sequence[TrustItem]) -> None:
        return None

    @property
    def saves_rules(self) -> bool:
        return False

    @property
    def reads(self) -> ReadGuard:
        return NO_GUARD

    @property
    def hosts(self) -> HostRules:
        return NO_HOSTS


def describe_input(value: BaseModel) -> dict[str, Any]:
    return value.model_dump(mode="json")
