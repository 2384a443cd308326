"""Claude Code's settings files are read where Claude Code reads them: the trust gate, our
own files winning, and each key nothing here reads said once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.claude.permissions import permission_config
from agent_tui.core.claude.settings import claude_settings, claude_settings_paths
from agent_tui.core.permissions import Mode
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.state.trust import ProjectTrust


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_three_files_are_read_and_hooks_kept_as_written(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}
    user = _write(
        tmp_path / "home" / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(curl:*)"]}}
    )
    shared = _write(workspace / ".claude" / "settings.json", {"hooks": hooks})
    local = _write(
        workspace / ".claude" / "settings.local.json", {"permissions": {"ask": ["Read"]}}
    )
    assert [p for p, _ in claude_settings_paths(workspace)] == [user, shared, local]
    files = claude_settings(workspace)
    assert [(f.path, f.scope) for f in files] == [
        (user, "user"),
        (shared, "project"),
        (local, "project"),
    ]
    assert files[1].hooks == hooks  # untouched, for the hook loader
    config = permission_config(workspace)
    assert [str(r) for r in config.rules.deny] == ["run_shell(curl:*)"]
    assert [str(r) for r in config.rules.ask] == ["read_file"]
    assert config.problems == []


@pytest.mark.real_trust
def test_a_project_file_widens_only_when_trusted(workspace: Path) -> None:
    _write(
        workspace / ".claude" / "settings.json",
        {
            "permissions": {
                "allow": ["Bash(npm run test:*)"],
                "deny": ["Bash(rm -rf *)"],
                "defaultMode": "bypassPermissions",
            }
        },
    )
    trust = ProjectTrust(workspace)
    config = permission_config(workspace, trust=trust)
    assert config.rules.allow == []  # waits for trust
    assert config.mode is None
    assert [str(r) for r in config.rules.deny] == ["run_shell(rm -rf *)"]  # tightens: at once
    assert {i.name for i in trust.pending} == {"run_shell(npm run test:*)", "bypass"}
    trust.trust(list(trust.pending))
    trusted = ProjectTrust(workspace)
    config = permission_config(workspace, trust=trusted)
    setup = build_pipeline(workspace, trust=trusted, config=config, persist_always=False)
    assert [str(r) for r in setup.pipeline.rules.allow] == ["run_shell(npm run test:*)"]
    assert setup.pipeline.mode is Mode.BYPASS


def test_our_file_wins_where_both_set_the_mode(workspace: Path) -> None:
    _write(workspace / ".claude" / "settings.local.json", {"permissions": {"defaultMode": "plan"}})
    assert permission_config(workspace).mode is Mode.PLAN
    _write(workspace / ".agent-tui" / "settings.json", {"permissions": {"defaultMode": "default"}})
    assert permission_config(workspace).mode is Mode.DEFAULT


def test_a_deny_in_either_file_wins_over_an_allow_in_the_other(workspace: Path) -> None:
    _write(workspace / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(git push:*)"]}})
    _write(
        workspace / ".agent-tui" / "settings.json",
        {"permissions": {"allow": ["run_shell(git push:*)"]}},
    )
    setup = build_pipeline(
        workspace,
        config=permission_config(workspace, trust=ProjectTrust(workspace)),
        persist_always=False,
    )
    from agent_tui.core.tools.builtin import default_registry

    shell = default_registry().get("run_shell")
    assert shell is not None
    decision = setup.pipeline.judge(shell, {"command": "git push origin main"})
    assert decision.kind == "deny"
    assert ".claude/settings.json" in decision.reason


def test_each_key_with_no_equivalent_is_said_once(workspace: Path) -> None:
    path = _write(
        workspace / ".claude" / "settings.json",
        {
            "$schema": "https://json.schemastore.org/claude-code-settings.json",
            "env": {"FOO": "1"},
            "model": "opus",
            "hooks": {},
            "permissions": {
                "allow": ["Bash(ls:*)", "WebSearch"],
                "defaultMode": "dontAsk",
                "disableBypassPermissionsMode": "disable",
                "additionalDirectories": ["../shared"],
            },
        },
    )
    config = permission_config(workspace)
    problems = config.problems
    for key in ("'model'", "'permissions.disableBypassPermissionsMode'"):
        said = [p for p in problems if key in p]
        assert len(said) == 1, (key, problems)
        assert said[0].startswith(str(path))
        assert "no equivalent" in said[0]
    assert sum("dontAsk" in p for p in problems) == 1
    assert sum("WebSearch" in p for p in problems) == 1
    assert not any("'hooks'" in p or "$schema" in p or "'env'" in p for p in problems)
    shared = workspace.parent / "shared"
    assert f"read_file(/{shared}/**)" in [str(r) for r in config.rules.allow]


def test_a_broken_claude_file_is_said_and_the_others_apply(workspace: Path) -> None:
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text("{not json")
    _write(workspace / ".claude" / "settings.local.json", {"permissions": {"deny": ["Bash"]}})
    config = permission_config(workspace)
    assert [str(r) for r in config.rules.deny] == ["run_shell"]
    assert any("is not valid JSON" in p for p in config.problems)
    assert any(
        "their permission" in p or "permission rules and mode are ignored" in p
        for p in config.problems
    )


def test_claude_tool_names_in_our_own_file_mean_what_they_mean_there(workspace: Path) -> None:
    """``Bash(git log:*)`` in ``.agent-tui/settings.json`` was a rule for a tool named
    "Bash", silently: now it is ``run_shell(git log:*)``, said once."""
    path = _write(
        workspace / ".agent-tui" / "settings.json",
        {"permissions": {"allow": ["Bash(git log:*)"], "deny": ["Read(./.env)"]}},
    )
    config = permission_config(workspace)
    assert [str(r) for r in config.rules.allow] == ["run_shell(git log:*)"]
    assert [str(r) for r in config.rules.deny] == ["read_file(.env)"]
    said = [p for p in config.problems if "Claude Code's tool name" in p]
    assert len(said) == 2
    assert all(p.startswith(str(path)) for p in said)
