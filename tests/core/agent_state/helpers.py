"""Shared set-up of the agent-state red team: canary directories outside the workspace, the
workspace as the home directory, and a real tool call through the executor."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import Event, ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall

SRC = Path(__file__).resolve().parents[3] / "src"


def files_in(directory: Path) -> list[str]:
    """Every path below ``directory`` (relative), links included: what an attack left there."""
    if not directory.exists():
        return []
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


@dataclass
class HomeLab:
    """The workspace is the home directory (a container's, a dotfile repository's): the
    agent's config, data and cache directories are inside it, at their default places."""

    home: Path
    outside: Path
    """A canary directory outside the workspace (what Fedora's bash sources: ~/.bashrc.d is
    inside the home, so the canary for "outside" is a sibling)."""

    @property
    def data(self) -> Path:
        return self.home / ".local/share/agent-tui"

    @property
    def config(self) -> Path:
        return self.home / ".config/agent-tui"

    @property
    def cache(self) -> Path:
        return self.home / ".cache/agent-tui"

    def env(self) -> dict[str, str]:
        """The environment of a real ``agent-tui`` run in this lab (default directories)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_TUI_", "XDG_"))}
        env.update(
            HOME=str(self.home),
            PYTHONPATH=str(SRC),
            PYTHONDONTWRITEBYTECODE="1",
            GIT_CONFIG_NOSYSTEM="1",
        )
        return env


@pytest.fixture
def home_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HomeLab]:
    home = tmp_path / "home"
    outside = tmp_path / "outside"
    home.mkdir()
    outside.mkdir()
    lab = HomeLab(home, outside)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_TUI_DATA_DIR", str(lab.data))
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(lab.config))
    monkeypatch.setenv("AGENT_TUI_CACHE_DIR", str(lab.cache))
    return lab


def ruleset(allow: tuple[str, ...] = (), deny: tuple[str, ...] = ()) -> RuleSet:
    return RuleSet(
        allow=[Rule.parse(r, source="test") for r in allow],
        deny=[Rule.parse(r, source="test") for r in deny],
    )


async def call(
    cwd: Path,
    tool: str,
    arguments: dict[str, Any],
    *,
    mode: Mode = Mode.BYPASS,
    allow: tuple[str, ...] = (),
    store: SpillStore | None = None,
) -> list[Event]:
    """One real tool call through the executor (headless: an ask is rejected)."""
    executor = ToolExecutor(
        default_registry(),
        cwd,
        PermissionPipeline(cwd, ruleset(allow), mode),
        None,
        FileStateCache(),
        store=store or SpillStore(Path(".agent-spill"), cwd, durable=False),
    )
    events: list[Event] = []
    call = ToolCall(id="attack", name=tool, arguments=json.dumps(arguments))
    async for event in executor.execute([call], [], asyncio.Event()):
        events.append(event)
    return events


def result(events: list[Event]) -> ToolResult | None:
    return next((e for e in events if isinstance(e, ToolResult)), None)


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """The real ``agent-tui`` in a subprocess."""
    if env is None:
        env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def script(path: Path, turns: list[dict[str, Any]]) -> str:
    """A ``--model script:PATH`` file; returns the model spec."""
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return f"script:{path}"


def shell_call(command: str, call_id: str = "c1") -> dict[str, Any]:
    return {"id": call_id, "name": "run_shell", "arguments": {"command": command}}
