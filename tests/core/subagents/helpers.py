"""Scripted models for subagent tests: one that answers by who asks (parent or which child)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import PermissionPolicy
from agent_tui.core.providers.base import Completion, ModelRequest, StreamItem
from agent_tui.core.subagents import AgentCatalog, install, load_agents
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import ToolCall, Usage

Step = Callable[[ModelRequest], Awaitable[Completion]]


def call(name: str, call_id: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


def reply(text: str = "", *calls: ToolCall) -> Completion:
    return Completion(
        text=text, tool_calls=list(calls), usage=Usage(input_tokens=100, output_tokens=10)
    )


def step(completion: Completion) -> Step:
    async def answer(_: ModelRequest) -> Completion:
        return completion

    return answer


class Routed:
    """Answers the parent's requests from ``parent`` and each child's (keyed by the task's
    prompt, its first user message) from ``children[prompt]``, in order."""

    kind: Literal["script"] = "script"
    name = "routed"

    def __init__(self, parent: list[Step], children: dict[str, list[Step]]) -> None:
        self.parent = list(parent)
        self.children = {k: list(v) for k, v in children.items()}
        self.requests: list[tuple[str, ModelRequest]] = []

    def who(self, request: ModelRequest) -> str:
        if "You are a subagent" not in request.system:
            return "parent"
        return request.messages[0].content

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        who = self.who(request)
        self.requests.append((who, request))
        steps = self.parent if who == "parent" else self.children[who]
        if not steps:
            yield Completion(text="(script ended)")
            return
        yield await steps.pop(0)(request)

    async def aclose(self) -> None:
        return None


def make_agent(
    provider: Any,
    cwd: Path,
    *,
    policy: PermissionPolicy | None = None,
    catalog: AgentCatalog | None = None,
    registry: Any = None,
) -> Agent:
    agent = Agent(
        provider,
        registry if registry is not None else default_registry(),
        cwd,
        policy=policy,
        system="You are the parent.",
    )
    install(agent, catalog if catalog is not None else load_agents(cwd, user_dir=cwd / "user"))
    return agent
