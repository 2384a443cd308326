"""A project's ``.claude/settings.json`` ``env`` in the TUI: the trust prompt shows each name and
value (and what is never set), and only after ``t`` do the agent's commands get them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.claude.env import load_env
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.shell.trust_dialog import TrustDialog

from .helpers import SIZE, make_app, submit, wait_armed, wait_for, wait_idle

pytestmark = pytest.mark.real_trust


async def test_trust_prompt_gates_a_projects_env(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".claude").mkdir(parents=True)
    (repo / ".claude" / "settings.json").write_text(
        json.dumps({"env": {"PROJECT_GREETING": "hi", "LD_PRELOAD": "./evil.so"}})
    )
    command = "echo ${PROJECT_GREETING-unset} ${LD_PRELOAD-unset} > seen.txt"
    turns = [
        {"tool_calls": [{"id": "s", "name": "run_shell", "arguments": {"command": command}}]},
        {"text": "done"},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    trust = ProjectTrust(repo)
    agent = Agent(
        ScriptProvider(script),
        default_registry(),
        repo,
        policy=build_pipeline(repo, mode="bypass", trust=trust).pipeline,
        system="test",
        trust=trust,
    )
    agent.executor.sandbox.env, _ = load_env(repo, trust)  # as cli.assemble does
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_armed(pilot, TrustDialog, "the trust prompt")
        shown = str(dialog.query_one("#items").query_one("Static").render()).replace("\n", " ")
        assert "set for the agent's commands: " in shown
        assert 'PROJECT_GREETING="hi"' in shown
        assert "never set, even if trusted: LD_PRELOAD" in shown
        assert agent.executor.sandbox.env.project == {}
        await pilot.press("t")
        env = agent.executor.sandbox.env
        await wait_for(pilot, lambda: env.project == {"PROJECT_GREETING": "hi"}, "the trust")
        await submit(pilot, "go")
        await wait_idle(pilot)
        assert (repo / "seen.txt").read_text().split() == ["hi", "unset"]
    await agent.close()
