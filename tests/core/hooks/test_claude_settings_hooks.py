"""Hooks in Claude Code's own settings files (``~/.claude/settings.json``,
``.claude/settings.json``, ``.claude/settings.local.json``) run as Claude Code runs them: real
scripts, the real agent loop, a canary for each blocked action; a project's wait for trust.
And the ``"if"`` condition of a handler filters the calls its hook runs for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.hooks import load_hooks
from agent_tui.core.hooks.session import hook_files
from agent_tui.core.state.trust import ProjectTrust
from tests.core.hooks.lab import MODES, Lab, of_type, script, shell_call
from tests.core.hooks.test_claude_code_hooks import RM_RF_GUARD

pytestmark = pytest.mark.real_trust

LOGGER = """\
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a", encoding="utf-8") as log:
    log.write(data["tool_name"] + " " + json.dumps(data["tool_input"].get("command", "")) + "\\n")
if sys.argv[2:] == ["block"]:
    print("blocked by the git guard", file=sys.stderr)
    sys.exit(2)
"""


def _claude_home(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claude Code's own ``~/.claude`` in the lab's home (no ``CLAUDE_CONFIG_DIR``)."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return lab.home / ".claude"


def _settings(path: Path, hooks: dict[str, Any], **more: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks, **more}), encoding="utf-8")
    return path


def _guard(command: str, condition: str | None = None) -> dict[str, Any]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if condition is not None:
        hook["if"] = condition
    return {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}


def _precious(lab: Lab) -> Path:
    (lab.work / "keep").mkdir()
    data = lab.work / "keep" / "data.txt"
    data.write_text("precious\n", encoding="utf-8")
    return data


def test_the_hook_files_are_ours_and_claude_codes(lab: Lab, monkeypatch: pytest.MonkeyPatch):
    claude = _claude_home(lab, monkeypatch)
    files = hook_files(lab.work)
    assert (claude / "settings.json", "user") in files
    assert (lab.work / ".claude" / "settings.json", "project") in files
    assert (lab.work / ".claude" / "settings.local.json", "local") in files
    assert (lab.config / "settings.json", "user") in files


@pytest.mark.parametrize("mode", MODES)
async def test_a_user_hook_in_claude_settings_blocks_rm_rf(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The documented install: the guard lives in ``~/.claude/hooks`` and is registered in
    ``~/.claude/settings.json``; it runs as the user's program (the sandbox hides the home
    from commands, not from the user's own hooks) and blocks."""
    claude = _claude_home(lab, monkeypatch)
    data = _precious(lab)
    guard = script(claude / "hooks" / "no-rm.sh", RM_RF_GUARD, shebang="#!/bin/bash")
    _settings(claude / "settings.json", _guard(f"bash {guard}"))
    hooks = load_hooks(lab.work, ProjectTrust(lab.work))
    assert hooks.specs
    assert hooks.specs[0].scope == "user"
    events = await lab.run(shell_call(f"rm -rf keep {lab.canary}"), hooks, mode)
    rejected = of_type(events, "tool_rejected")
    assert rejected
    assert rejected[0].by == "hook"
    assert "rm -rf is not allowed" in rejected[0].reason
    assert data.read_text() == "precious\n"
    assert lab.canary.read_text() == "alive\n"


async def test_a_projects_claude_hooks_wait_for_trust_then_block(lab: Lab) -> None:
    """``.claude/settings.json`` that blocks ``rm -rf`` with a hook (and denies it with a
    rule): the hook is a repository's code, so it runs only once trusted — and then it
    blocks, exactly as in Claude Code."""
    data = _precious(lab)
    guard = script(lab.work / ".claude" / "hooks" / "no-rm.sh", RM_RF_GUARD, shebang="#!/bin/bash")
    settings = _settings(
        lab.work / ".claude" / "settings.json",
        _guard('bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/no-rm.sh'),
        permissions={"deny": ["Bash(rm -rf *)"]},
    )
    assert guard.exists()
    trust = ProjectTrust(lab.work)
    hooks = load_hooks(lab.work, trust)
    assert not hooks.specs
    assert [item.source for item in trust.pending] == [settings]
    assert "no-rm.sh" in trust.pending[0].detail
    assert any(str(settings) in w for w in hooks.skipped_warnings())
    trust.trust(list(trust.pending))
    hooks = load_hooks(lab.work, ProjectTrust(lab.work))
    assert [spec.scope for spec in hooks.specs] == ["project"]
    events = await lab.run(shell_call("rm -rf keep"), hooks, "off")
    rejected = of_type(events, "tool_rejected")
    assert rejected
    assert rejected[0].by == "hook"
    assert data.read_text() == "precious\n"
    # a changed section asks again
    _settings(settings, _guard("true"))
    again = ProjectTrust(lab.work)
    assert not load_hooks(lab.work, again).specs
    assert again.pending


async def test_claude_local_settings_hooks_are_project_hooks(lab: Lab) -> None:
    """``.claude/settings.local.json`` is the project's too: untrusted, its hook never runs
    (a repository could ship one); trusted, it runs confined, as a project hook."""
    marker = lab.root / "ran.txt"
    local = _settings(
        lab.work / ".claude" / "settings.local.json",
        {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]},
    )
    trust = ProjectTrust(lab.work)
    hooks = load_hooks(lab.work, trust)
    await lab.run([{"text": "hi"}], hooks, "off", prompt="hello")
    assert not marker.exists()
    assert [item.source for item in trust.pending] == [local]
    hooks.trusted(trust.pending)
    assert [spec.scope for spec in hooks.specs] == ["local"]


async def test_if_condition_runs_the_hook_only_for_matching_calls(lab: Lab) -> None:
    """``"if": "Bash(git push *)"``: the hook's process starts for a push — however it is
    spelled, alone or in a compound command — and for nothing else."""
    log = lab.root / "calls.log"
    guard = script(lab.home / "git-guard.py", LOGGER, shebang="#!/usr/bin/env python3")
    _settings(
        lab.config / "settings.json", _guard(f"python3 {guard} {log} block", "Bash(git push *)")
    )
    hooks = load_hooks(lab.work, ProjectTrust(lab.work))
    assert not hooks.problems
    events = await lab.run(shell_call("echo fine > fine.txt"), hooks, "off")
    assert not of_type(events, "tool_rejected")
    assert (lab.work / "fine.txt").read_text() == "fine\n"
    assert not log.exists()  # not started at all
    for command in (
        "git push origin main",
        f"echo x > {lab.canary} && git -C . push --force",
        f"GIT_DIR=x git push; echo pwned > {lab.canary}",
    ):
        events = await lab.run(shell_call(command), hooks, "off")
        rejected = of_type(events, "tool_rejected")
        assert rejected, command
        assert "blocked by the git guard" in rejected[0].reason
    assert lab.canary.read_text() == "alive\n"
    assert len(log.read_text().splitlines()) == 3


async def test_if_condition_on_a_path_rule(lab: Lab) -> None:
    """``"if": "Edit(*.ts)"`` on an ``Edit|Write`` matcher: the formatter-style hook runs for
    the TypeScript file only."""
    log = lab.root / "edits.log"
    hook = {
        "type": "command",
        "command": f"jq -r .tool_input.file_path >> {log}",
        "if": "Edit(*.ts)",
    }
    _settings(
        lab.config / "settings.json", {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [hook]}]}
    )
    hooks = load_hooks(lab.work, ProjectTrust(lab.work))
    for name in ("a.py", "src/b.ts"):
        call = {"id": "w", "name": "write_file", "arguments": {"path": name, "content": "x\n"}}
        await lab.run([{"tool_calls": [call]}, {"text": "done"}], hooks, "off")
    assert log.read_text().splitlines() == [str(lab.work / "src" / "b.ts")]


async def test_an_unreadable_if_runs_the_hook_on_every_call(lab: Lab) -> None:
    """A condition that is not a permission rule (a blog's ``tool_input.command matches …``)
    is named at start and the guard runs on every call: never fewer runs than written."""
    log = lab.root / "calls.log"
    guard = script(lab.home / "git-guard.py", LOGGER, shebang="#!/usr/bin/env python3")
    condition = "tool_input.command matches 'git push'"
    _settings(lab.config / "settings.json", _guard(f"python3 {guard} {log}", condition))
    hooks = load_hooks(lab.work, ProjectTrust(lab.work))
    assert any('"if"' in p and "every call" in p for p in hooks.problems)
    await lab.run(shell_call("echo fine"), hooks, "off")
    assert log.read_text().splitlines() == ['Bash "echo fine"']


async def test_if_runs_the_hook_when_the_command_cannot_be_seen_through(lab: Lab) -> None:
    """``eval "$X"`` could be a push: the engine cannot tell, so the guard runs."""
    log = lab.root / "calls.log"
    guard = script(lab.home / "git-guard.py", LOGGER, shebang="#!/usr/bin/env python3")
    _settings(
        lab.config / "settings.json", _guard(f"python3 {guard} {log} block", "Bash(git push *)")
    )
    hooks = load_hooks(lab.work, ProjectTrust(lab.work))
    events = await lab.run(shell_call(f'X="echo pwned > {lab.canary}"; eval "$X"'), hooks, "off")
    assert of_type(events, "tool_rejected")
    assert lab.canary.read_text() == "alive\n"
