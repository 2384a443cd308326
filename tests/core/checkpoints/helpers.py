"""An agent over a script, in a real workspace, saving to a real session store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools.builtin import default_registry

ALLOW = ("write_file", "edit_file", "run_shell")


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def turn(*calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    return {"text": text, "tool_calls": list(calls)}


def make_agent(
    cwd: Path,
    store: SessionStore,
    turns: list[dict[str, Any]],
    *,
    session: SessionLog | None = None,
    sandbox: str = "off",
    allow_write: list[str] | None = None,
) -> Agent:
    """An agent replaying ``turns`` in ``cwd`` (its file tools and run_shell allowed), saving
    to a new session of ``store`` (or ``session``). The script lives outside ``cwd``."""
    script = store.root.parent / f"script-{len(list(store.root.parent.glob('script-*')))}.json"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    settings = Settings.model_validate(
        {"sandbox": {"mode": sandbox, "allow_write": allow_write or []}}
    )
    return Agent(
        ScriptProvider(script),
        default_registry(),
        cwd,
        policy=SimplePolicy(ALLOW),
        session=session if session is not None else store.new(cwd, "script"),
        sessions=store,
        settings=settings,
        system="test",
    )


async def run(agent: Agent, prompt: str) -> None:
    async for _ in agent.run(prompt):
        pass
