"""The policy protocol every front end uses, and the simplest policy.

A policy answers ``decide`` with a typed ``Decision`` (kind, reason, step, rule, understood,
suggested rules); ``explain`` answers the same for a tool without a call (the MCP panel);
``remember`` allows the suggested rules from now on when the user chose "allow for this
session" (in memory only) or "always allow" (also saved, when the policy saves rules);
``reads`` is the read guard the file tools obey; ``mode`` is the permission mode (None: the
policy has none).
Front ends read these fields only — no probing with ``getattr`` or ``isinstance``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel

from agent_tui.core.permissions.decision import Decision, Step
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.sandbox import SessionSandbox
from agent_tui.core.state.trust import TrustItem
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.hosts import NO_HOSTS, HostRules
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard
from agent_tui.core.transcript import ToolCall


@dataclass(frozen=True)
class ApprovalRequest:
    """A call waiting for a decision (``decision`` is set once the policy asked)."""

    call: ToolCall
    tool: Tool[Any]
    input: BaseModel
    decision: Decision | None = None
    agent: str | None = None
    """The subagent that asks (``task``), None for the session's own calls."""
    caveats: tuple[str, ...] = ()
    """What to know before allowing it, beside the permission (the prompt shows them): a
    write that cannot be rewound…"""

    @property
    def reason(self) -> str:
        return self.decision.reason if self.decision is not None else ""


class Scope(StrEnum):
    """How long an allow given at the prompt lasts."""

    ONCE = "once"
    """This call only."""
    SESSION = "session"
    """The suggested rules, in memory until the session ends: no file is written."""
    ALWAYS = "always"
    """The suggested rules, from now on: saved to the local project settings when the policy
    saves rules (``saves_rules``), else for this session like ``SESSION``."""


@dataclass(frozen=True)
class Approval:
    """The user's answer to an ``ask``."""

    allowed: bool
    feedback: str | None = None
    scope: Scope = Scope.ONCE
    """How long an allow lasts (ignored for a deny)."""
    decided: Decision | None = None
    """Not the user's answer: the permission mode changed while the prompt was open and the
    policy's new decision no longer asks (what the front end saw). The executor then decides
    again itself and acts on its own decision; ``allowed`` is what this one said."""

    @property
    def always(self) -> bool:
        return self.scope is Scope.ALWAYS


Asker = Callable[[ApprovalRequest], Awaitable[Approval]]


class PermissionPolicy(Protocol):
    @property
    def mode(self) -> Mode | None:
        """The permission mode (None: the policy has none)."""
        ...

    def decide(self, request: ApprovalRequest) -> Decision: ...

    def explain(self, tool: Tool[Any], arguments: dict[str, Any] | None = None) -> Decision: ...

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
        """The user trusted these project items (``core.trust``): their allow rules apply
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
    """Read-only tools run; other tools run when allowed by name (``*`` allows all)."""

    mode: Mode | None = None

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = set(allowed)
        self._session: set[str] = set()
        """Names allowed for this session only."""

    def decide(self, request: ApprovalRequest) -> Decision:
        return self.explain(request.tool)

    def explain(self, tool: Tool[Any], arguments: dict[str, Any] | None = None) -> Decision:
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
