"""A lab for the hooks' red team: a fake HOME (the user's config dir in it), a workspace with a
canary, real hook scripts, and the real agent loop in bypass mode (the hook is the only guard)
with the sandbox on (real bubblewrap) or off."""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import Event
from agent_tui.core.hooks import Hooks, load_hooks
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.settings import (
    local_settings_path,
    project_settings_path,
    user_settings_path,
)
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.builtin import default_registry
from tests.core.helpers import collect, write_script

PROBLEM = Bubblewrap().problem()
MODES = [
    pytest.param(
        "required",
        id="sandbox-on",
        marks=pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}"),
    ),
    pytest.param("off", id="sandbox-off"),
]
ON = MODES[0]
CANARY = "canary.txt"


def script(path: Path, body: str, *, shebang: str = "#!/bin/sh") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{shebang}\n{body}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@dataclass
class Lab:
    root: Path
    home: Path
    work: Path

    @property
    def config(self) -> Path:
        """The user's config dir: ``~/.config/agent-tui``."""
        return self.home / ".config" / "agent-tui"

    @property
    def canary(self) -> Path:
        return self.work / CANARY

    def hooks(self, section: dict[str, Any], where: str = "user") -> Hooks:
        path = {
            "user": user_settings_path(),
            "project": project_settings_path(self.work),
            "local": local_settings_path(self.work),
        }[where]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"hooks": section}), encoding="utf-8")
        return load_hooks(self.work, ProjectTrust(self.work))  # tests trust project files

    def agent(self, turns: list[dict[str, Any]], hooks: Hooks | None, mode: str) -> Agent:
        provider = ScriptProvider(write_script(self.root / f"script-{id(turns)}.json", turns))
        policy = build_pipeline(self.work, mode="bypass").pipeline
        sandbox = SessionSandbox(SandboxSettings(mode=mode), self.work)  # type: ignore[arg-type]
        policy.use_sandbox(sandbox)
        registry = default_registry()
        return Agent(provider, registry, self.work, policy=policy, hooks=hooks, sandbox=sandbox)

    async def run(
        self, turns: list[dict[str, Any]], hooks: Hooks | None, mode: str, prompt: str = "go"
    ) -> list[Event]:
        agent = self.agent(turns, hooks, mode)
        try:
            return await collect(agent, prompt)
        finally:
            await agent.close()


def shell_call(command: str) -> list[dict[str, Any]]:
    call = {"id": "s", "name": "run_shell", "arguments": {"command": command}}
    return [{"tool_calls": [call]}, {"text": "done"}]


def write_call(path: str, content: str = "pwned\n") -> list[dict[str, Any]]:
    call = {"id": "w", "name": "write_file", "arguments": {"path": path, "content": content}}
    return [{"tool_calls": [call]}, {"text": "done"}]


def make_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Lab:
    """``HOME`` is a fake home with the user's config dir in ``~/.config/agent-tui`` (no
    ``AGENT_TUI_CONFIG_DIR``), and a secret; the workspace holds the canary."""
    home = tmp_path / "home"
    (home / ".config" / "agent-tui").mkdir(parents=True)
    (home / "secret.txt").write_text("canary-secret-4711\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("AGENT_TUI_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert user_settings_path() == home / ".config" / "agent-tui" / "settings.json"
    work = tmp_path / "work"
    work.mkdir()
    (work / CANARY).write_text("alive\n", encoding="utf-8")
    return Lab(tmp_path, home, work)


def of_type(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]
