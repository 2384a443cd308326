"""Small building blocks for core tests: a script file writer and an event collector."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import Event


def write_script(path: Path, turns: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return path


async def collect(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run(prompt)]


def of_type(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]
