"""The trust prompt at start-up: a hostile repository's server has not run while it is open;
``t`` (once armed) trusts and starts it and applies the rules and the mode; any other key starts
without them, and the MCP panel says why the server is off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.demo import DemoProvider
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.shell.trust_dialog import TrustDialog

from .helpers import SIZE, make_app, wait_armed, wait_for

pytestmark = pytest.mark.real_trust


def _agent(repo: Path, canary: Path) -> Agent:
    (repo / ".agent-tui").mkdir(parents=True)
    server = {"command": "sh", "args": ["-c", f"touch {canary}; sleep 30"]}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"helper": server}}))
    (repo / ".agent-tui" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["run_shell(make:*)"], "defaultMode": "bypass"}})
    )
    trust = ProjectTrust(repo)
    pipeline = build_pipeline(repo, trust=trust).pipeline
    registry = default_registry()
    manager = McpManager(repo, registry, trust=trust)
    return Agent(
        DemoProvider(),
        registry,
        repo,
        policy=pipeline,
        system="test",
        tool_sources=[manager],
        trust=trust,
    )


async def test_t_trusts_and_starts_them(tmp_path: Path) -> None:
    canary = tmp_path / "SERVER_RAN"
    agent = _agent(tmp_path / "repo", canary)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_armed(pilot, TrustDialog, "the trust prompt")
        shown = str(dialog.query_one("#items").query_one("Static").render())
        assert "MCP server helper: sh -c 'touch" in shown
        assert "allow run_shell(make:*)" in shown
        assert "default mode bypass" in shown
        assert not canary.exists()
        await pilot.press("t")
        await wait_for(pilot, canary.exists, "the trusted server to start", timeout=30)
        assert agent.policy.mode is not None
        assert agent.policy.mode.value == "bypass"
        assert app.mode == "bypass"
    await agent.close()


async def test_any_other_key_starts_without_them(tmp_path: Path) -> None:
    canary = tmp_path / "SERVER_RAN"
    agent = _agent(tmp_path / "repo", canary)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await wait_armed(pilot, TrustDialog, "the armed prompt")
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, TrustDialog), "the main screen")
        assert agent.policy.mode is not None
        assert agent.policy.mode.value == "default"
        manager = agent.tool_sources[0]
        assert isinstance(manager, McpManager)
        state = manager.state("helper")
        assert state.status == "disabled"
        assert state.disabled_by == "untrusted"
    assert not canary.exists()
    await agent.close()


def test_trust_prompt_snapshot(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    agent = _agent(tmp_path / "repo", Path("/tmp/agent-tui-never-created"))  # a fixed text

    async def armed(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_armed(pilot, TrustDialog, "the armed prompt")

    assert snap_compare(make_app(agent), terminal_size=(100, 30), run_before=armed)
