"""A project's command file with ``allowed-tools`` in the TUI: the trust prompt at start lists
its grant; once trusted, the command's ``!`` line and its model's call run without asking, the
chat says what the turn was granted, and the next turn's same call asks again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.commands.grants import gate_commands
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.chat import Notice

from .helpers import SIZE, make_app, submit, wait_approval, wait_armed, wait_for, wait_idle

SHIP = """---
description: Ship it
allowed-tools: Bash(touch:*), Bash(echo:*), Edit(*.txt)
---
Shipped: !`touch by-shell-line.txt && echo shell-line-ran`
"""


def _touch(path: str, id: str) -> dict[str, object]:
    return {
        "tool_calls": [{"id": id, "name": "run_shell", "arguments": {"command": f"touch {path}"}}]
    }


@pytest.mark.real_trust
async def test_a_trusted_commands_grant_holds_for_its_turn_only(tmp_path: Path) -> None:
    from agent_tui.ui.shell.trust_dialog import TrustDialog

    repo = tmp_path / "repo"
    (repo / ".claude" / "commands").mkdir(parents=True)
    (repo / ".claude" / "commands" / "ship.md").write_text(SHIP, encoding="utf-8")
    turns = [
        _touch("by-model.txt", "t1"),
        {"text": "shipped"},
        _touch("next.txt", "t2"),
        {"text": "k"},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    trust = ProjectTrust(repo)
    gate_commands(repo, trust)  # as the start-up does: the grant waits for the prompt
    policy = build_pipeline(repo, trust=trust).pipeline
    agent = Agent(ScriptProvider(script), default_registry(), repo, policy=policy, trust=trust)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_armed(pilot, TrustDialog, "the trust prompt")
        shown = str(dialog.query_one("#items").query_one("Static").render())
        assert "/ship" in shown
        assert "Bash(touch:*), Bash(echo:*), Edit(*.txt)" in shown
        await pilot.press("t")
        await wait_for(pilot, lambda: not trust.pending, "the trust to be saved")
        await submit(pilot, "/ship")
        await wait_for(pilot, lambda: (repo / "by-model.txt").exists(), "the model's call")
        await wait_idle(pilot)
        assert (repo / "by-shell-line.txt").exists()  # the ! line ran without asking
        assert agent.messages[0].content == "Shipped: shell-line-ran"
        notices = [n.text for n in app.main.chat.query(Notice)]
        assert any(
            t.startswith("/ship allows during this turn: run_shell(touch:*)") for t in notices
        )
        await submit(pilot, "again")
        await wait_approval(pilot)  # the grant ended with its turn: the same call asks
        await pilot.press("n")
        await wait_idle(pilot)
        assert not (repo / "next.txt").exists()
