"""Snapshot of the completion menu open above the prompt: built-ins and a project command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.providers.demo import DemoProvider
from agent_tui.core.tools.builtin import default_registry

from .helpers import QuietApp, wait_for

SnapCompare = Callable[..., bool]


def test_the_completion_menu_with_a_few_commands(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    project = tmp_path / "project"
    commands = project / ".agent-tui" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file for bugs\nargument-hint: <file>\n---\nReview $1\n"
    )
    agent = Agent(DemoProvider(delay=0), default_registry(), project, system="test")
    app = QuietApp(agent=agent, demo=True, cwd_label="~/project", clock=lambda: 1000.0)

    async def open_menu(pilot: Pilot[Any]) -> None:
        assert isinstance(pilot.app, QuietApp)
        prompt = pilot.app.main.prompt
        prompt.focus()
        prompt.insert("/re")
        await wait_for(pilot, lambda: prompt.menu.is_open, "the menu")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 30), run_before=open_menu)
