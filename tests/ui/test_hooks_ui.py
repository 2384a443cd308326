"""Hooks in the TUI: a project file's hooks wait for the trust prompt (the canary is not written
until ``t``), and a PreToolUse block shows on the call's card as rejected by a hook."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.hooks import load_hooks
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.shell.trust_dialog import TrustDialog

from .helpers import SIZE, make_app, submit, wait_armed, wait_for, wait_idle
from .test_snapshots import SnapCompare

pytestmark = pytest.mark.real_trust


def _repo(tmp_path: Path, event: str, body: str) -> Path:
    repo = tmp_path / "repo"
    (repo / ".agent-tui").mkdir(parents=True)
    hook = repo / "hook.sh"  # inside the workspace: the sandbox (when on) hides the rest
    hook.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    section = {event: [{"matcher": "Write", "hooks": [{"type": "command", "command": str(hook)}]}]}
    (repo / ".agent-tui" / "settings.json").write_text(json.dumps({"hooks": section}))
    return repo


def _agent(repo: Path) -> Agent:
    args = {"path": "out.txt", "content": "x"}
    turns = [
        {"tool_calls": [{"id": "w", "name": "write_file", "arguments": args}]},
        {"text": "done"},
    ]
    script = repo.parent / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    trust = ProjectTrust(repo)
    pipeline = build_pipeline(repo, mode="bypass", trust=trust).pipeline
    hooks = load_hooks(repo, trust)
    return Agent(
        ScriptProvider(script),
        default_registry(),
        repo,
        policy=pipeline,
        system="test",
        trust=trust,
        hooks=hooks,
    )


async def test_trust_prompt_gates_project_hooks(tmp_path: Path) -> None:
    canary = tmp_path / "repo" / "HOOK_RAN"
    repo = _repo(tmp_path, "UserPromptSubmit", f"touch {canary}\n")
    agent = _agent(repo)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_armed(pilot, TrustDialog, "the trust prompt")
        shown = str(dialog.query_one("#items").query_one("Static").render())
        assert "run its hooks: " in shown
        assert str(tmp_path / "repo" / "hook.sh") in shown.replace("\n", "")
        assert not canary.exists()
        await pilot.press("t")
        await wait_for(pilot, lambda: bool(agent.hooks and agent.hooks.specs), "the trust")
        await submit(pilot, "go")
        await wait_idle(pilot)
        assert canary.exists()
    await agent.close()


async def test_blocked_call_card_says_rejected_by_hook(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "PreToolUse", "echo 'no writes here' >&2; exit 2\n")
    agent = _agent(repo)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await wait_armed(pilot, TrustDialog, "the trust prompt")
        await pilot.press("t")
        await wait_for(pilot, lambda: bool(agent.hooks and agent.hooks.specs), "the trust")
        await submit(pilot, "go")
        await wait_idle(pilot)
        call = app.calls.get("w")
        assert call is not None
        assert "rejected by a hook" in call.status_line()
        assert "no writes here" in call.content
        assert not (repo / "out.txt").exists()
    await agent.close()


def test_trust_prompt_with_hooks_snapshot(snap_compare: SnapCompare, tmp_path: Path) -> None:
    base = Path("/tmp/agent-tui-hooks-snapshot")  # a fixed path: the prompt shows it
    shutil.rmtree(base, ignore_errors=True)
    repo = _repo(base, "PreToolUse", "exit 0\n")

    async def armed(pilot: Pilot[Any]) -> None:
        await wait_armed(pilot, TrustDialog, "the trust prompt")

    assert snap_compare(make_app(_agent(repo)), terminal_size=(80, 24), run_before=armed)


async def test_idle_prompt_notification_runs_after_the_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's ``idle_prompt`` Notification: when a turn ends and nothing is sent for a
    while (60 s; shortened here), the user's hook runs — once, and not while a turn runs."""
    from agent_tui.ui.shell import turns

    monkeypatch.setattr(turns, "IDLE_NOTICE_SECONDS", 0.2)
    seen = tmp_path / "idle.jsonl"
    hook = tmp_path / "idle.sh"
    hook.write_text(f"#!/bin/sh\ncat >> '{seen}'; echo >> '{seen}'\n", encoding="utf-8")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    repo = tmp_path / "repo"
    repo.mkdir()
    user = Path(os.environ["AGENT_TUI_CONFIG_DIR"]) / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    section = {"Notification": [{"matcher": "idle_prompt", "hooks": [{"command": str(hook)}]}]}
    user.write_text(json.dumps({"hooks": section}), encoding="utf-8")
    agent = _agent(repo)
    assert agent.hooks is not None
    assert agent.hooks.has("Notification", "idle_prompt")
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_idle(pilot)
        await wait_for(pilot, seen.exists, "the idle_prompt hook")
        sent = json.loads(seen.read_text(encoding="utf-8").splitlines()[0])
        assert sent["notification_type"] == "idle_prompt"
        assert sent["message"] == "agent-tui is waiting for your input"
        assert app.turns.idle is None  # spent: it is armed again only by the next turn's end
