"""Decision types and the first permission policy."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from agent_tui.core.tools.base import Tool
from agent_tui.core.transcript import ToolCall


@dataclass(frozen=True)
class ApprovalRequest:
    """A call waiting for a decision."""

    call: ToolCall
    tool: Tool[Any]
    input: BaseModel
    reason: str = ""


@dataclass(frozen=True)
class Decision:
    kind: Literal["allow", "ask", "deny"]
    reason: str = ""


@dataclass(frozen=True)
class Approval:
    """The user's answer to an ``ask``."""

    allowed: bool
    feedback: str | None = None
    always: bool = False


Asker = Callable[[ApprovalRequest], Awaitable[Approval]]


class PermissionPolicy(Protocol):
    def decide(self, request: ApprovalRequest) -> Decision: ...

    def remember(self, request: ApprovalRequest) -> None:
        """Called when the user answered "always" for this request."""
        ...


class SimplePolicy:
    """Read-only tools run; other tools run when allowed by name (``*`` allows all)."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = set(allowed)

    def decide(self, request: ApprovalRequest) -> Decision:
        tool = request.tool
        if "*" in self.allowed or tool.name in self.allowed:
            return Decision("allow", f"{tool.name} is allowed by configuration")
        if tool.meta.read_only:
            return Decision("allow", f"{tool.name} is read-only")
        return Decision("ask", f"{tool.name} can change files or run commands")

    def remember(self, request: ApprovalRequest) -> None:
        self.allowed.add(request.tool.name)


def describe_input(value: BaseModel) -> dict[str, Any]:
    return value.model_dump(mode="json")
