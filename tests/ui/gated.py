"""A script model that records what each request sent and can hold a request open until the
test lets it go: a turn that stays running for as long as the test needs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.base import ModelRequest, StreamItem
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools.builtin import default_registry


class GatedScript(ScriptProvider):
    """``ScriptProvider`` (which records every request: ``requests``) where request number
    ``n`` (0-based) in ``held`` waits until ``release(n)``."""

    def __init__(self, path: Path, held: set[int]) -> None:
        super().__init__(path)
        self._gates = {n: asyncio.Event() for n in held}
        self.waiting: set[int] = set()
        """The held requests that have arrived and wait."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        index = len(self.requests)
        self.requests.append(request)
        gate = self._gates.get(index)
        if gate is not None:
            self.waiting.add(index)
            await gate.wait()
            self.waiting.discard(index)
        async for item in self.play(request):
            yield item

    def release(self, index: int) -> None:
        self._gates[index].set()

    def user_texts(self, index: int) -> list[str]:
        """The user messages request ``index`` sent, in order."""
        return [m.content for m in self.requests[index].messages if m.role == "user"]


def gated_agent(
    cwd: Path,
    turns: list[dict[str, Any]],
    held: set[int],
    *,
    settings: Settings | None = None,
) -> tuple[Agent, GatedScript]:
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    provider = GatedScript(script, held)
    agent = Agent(
        provider,
        default_registry(),
        cwd,
        policy=SimplePolicy(),
        system="test",
        settings=settings,
    )
    return agent, provider
