"""Permission flags in headless mode, end to end through a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli_headless import run_cli, write_script
from tests.trusting import trust_everything


def _events(stdout: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in stdout.splitlines()]


def _run(workspace: Path, calls: list[dict], *flags: str) -> list[dict]:  # type: ignore[type-arg]
    script = write_script(workspace / "s.json", [{"tool_calls": calls}, {"text": "done"}])
    done = run_cli(
        "-p",
        "go",
        "--model",
        f"script:{script}",
        "--output-format",
        "stream-json",
        *flags,
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    return _events(done.stdout)


def _outcomes(events: list[dict]) -> dict[str, str]:  # type: ignore[type-arg]
    kinds = ("tool_result", "tool_rejected", "tool_error")
    return {e["id"]: e["type"] for e in events if e["type"] in kinds}


def test_plan_mode_rejects_write_file_and_says_why(workspace: Path) -> None:
    calls = [
        {"id": "w", "name": "write_file", "arguments": {"path": "a.txt", "content": "x"}},
        {"id": "r", "name": "list_dir", "arguments": {}},
    ]
    events = _run(workspace, calls, "--permission-mode", "plan", "--allow", "write_file")
    assert _outcomes(events) == {"w": "tool_rejected", "r": "tool_result"}
    rejected = next(e for e in events if e["type"] == "tool_rejected")
    assert "plan mode" in rejected["reason"]
    assert not (workspace / "a.txt").exists()
    assert events[0]["permission_mode"] == "plan"


def test_shell_prefix_rule_does_not_cover_a_smuggled_command(workspace: Path) -> None:
    (workspace / "x").mkdir()
    calls = [
        {"id": "ok", "name": "run_shell", "arguments": {"command": "echo hi"}},
        {"id": "bad", "name": "run_shell", "arguments": {"command": "echo hi && rm -rf x"}},
    ]
    events = _run(workspace, calls, "--allow", "run_shell(echo:*)")
    assert _outcomes(events) == {"ok": "tool_result", "bad": "tool_rejected"}
    assert (workspace / "x").is_dir()


def test_deny_rule_beats_bypass(workspace: Path) -> None:
    (workspace / "x").mkdir()
    calls = [
        {"id": "rm", "name": "run_shell", "arguments": {"command": "rm -rf x"}},
        {"id": "ok", "name": "run_shell", "arguments": {"command": "echo fine"}},
    ]
    events = _run(workspace, calls, "--permission-mode", "bypass", "--deny", "run_shell(rm:*)")
    assert _outcomes(events) == {"rm": "tool_rejected", "ok": "tool_result"}
    assert (workspace / "x").is_dir()


def test_settings_rules_apply_and_a_broken_file_is_reported(workspace: Path) -> None:
    settings = workspace / ".agent-tui"
    settings.mkdir()
    (settings / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["write_file(notes/**)"]}})
    )
    (settings / "settings.local.json").write_text("{oops")
    trust_everything(workspace)  # a project's allow rules apply once the user trusted them
    calls = [
        {"id": "in", "name": "write_file", "arguments": {"path": "notes/a.md", "content": "x"}},
        {"id": "out", "name": "write_file", "arguments": {"path": "b.md", "content": "x"}},
    ]
    events = _run(workspace, calls)
    assert _outcomes(events) == {"in": "tool_result", "out": "tool_rejected"}
    warnings = events[0]["warnings"]
    assert any("settings.local.json" in w and "line 1" in w for w in warnings)


def test_bad_rule_flag_is_a_usage_error(workspace: Path) -> None:
    done = run_cli("-p", "x", "--allow", "run_shell(", cwd=workspace)
    assert done.returncode == 2
    assert "--allow" in done.stderr


def test_headless_rejection_suggests_the_narrow_rule(workspace: Path) -> None:
    calls = [{"id": "g", "name": "run_shell", "arguments": {"command": "git log -n 1"}}]
    events = _run(workspace, calls)
    rejected = next(e for e in events if e["type"] == "tool_rejected")
    assert "--allow 'run_shell(git log:*)'" in rejected["reason"]


def test_headless_rejects_what_asks_in_every_mode_even_in_bypass(workspace: Path) -> None:
    """Nobody can be asked headless: an opaque command near a deny rule, a protected path and a
    dangerous variable are rejected in bypass mode too, and the model is told why and what
    (only a rule naming it) could permit it."""
    (workspace / "canary").write_text("canary\n")
    (workspace / ".mcp.json").write_text('{"mcpServers": {}}\n')
    calls = [
        {"id": "o", "name": "run_shell", "arguments": {"command": "$CMD canary"}},
        {
            "id": "p",
            "name": "write_file",
            "arguments": {"path": ".mcp.json", "content": '{"mcpServers": {"x": {}}}'},
        },
        {"id": "e", "name": "run_shell", "arguments": {"command": "PATH=. ls"}},
        {"id": "ok", "name": "run_shell", "arguments": {"command": "echo fine"}},
    ]
    events = _run(workspace, calls, "--permission-mode", "bypass", "--deny", "run_shell(rm:*)")
    outcomes = _outcomes(events)
    assert outcomes == {
        "o": "tool_rejected",
        "p": "tool_rejected",
        "e": "tool_rejected",
        "ok": "tool_result",
    }
    reasons = {e["id"]: e["reason"] for e in events if e["type"] == "tool_rejected"}
    for reason in reasons.values():
        assert "asks in every permission mode" in reason
    assert "--allow 'write_file(/.mcp.json)'" in reasons["p"]
    assert (workspace / "canary").exists()
    assert json.loads((workspace / ".mcp.json").read_text()) == {"mcpServers": {}}


def _started(workspace: Path, *flags: str) -> str:
    """The stderr of a headless run with no calls."""
    script = write_script(workspace / "s.json", [{"text": "done"}])
    done = run_cli("-p", "go", "--model", f"script:{script}", *flags, cwd=workspace)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_bypass_prints_a_one_line_warning_at_start(workspace: Path) -> None:
    warned = [
        line
        for line in _started(workspace, "--permission-mode", "bypass").splitlines()
        if "bypass" in line
    ]
    assert len(warned) == 1
    assert warned[0].startswith("agent-tui: warning: the permission mode is bypass")
    assert "deny rules" in warned[0]
    assert "bypass" not in _started(workspace)  # default mode: no warning
    settings = workspace / ".agent-tui"
    settings.mkdir()
    (settings / "settings.json").write_text(json.dumps({"permissions": {"defaultMode": "bypass"}}))
    assert "permission mode is bypass" not in _started(workspace)  # not trusted: default
    trust_everything(workspace)
    assert "permission mode is bypass" in _started(workspace)  # from trusted settings, too
