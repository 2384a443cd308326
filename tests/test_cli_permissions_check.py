"""``agent-tui permissions check``: users test rules before trusting them (a real subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli_headless import run_cli


def test_the_issue_example_asks_and_says_which_part(workspace: Path) -> None:
    done = run_cli(
        "permissions", "check", "run_shell(git status:*)", "--", "git status; rm x", cwd=workspace
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "ask — no rule allows rm x"
    assert any(
        "git status" in line and "allowed by run_shell(git status:*)" in line for line in lines
    )
    assert any(line.strip().startswith("rm x") and "no rule allows it" in line for line in lines)
    assert "always allow would save: run_shell(rm:*)" in done.stdout


def test_deny_wins_in_bypass_and_exit_codes(workspace: Path) -> None:
    denied = run_cli(
        "permissions",
        "check",
        "run_shell(echo:*)",
        "--deny",
        "run_shell(rm:*)",
        "--mode",
        "bypass",
        "--",
        'echo "$(/bin/RM -rf x)"',
        cwd=workspace,
    )
    assert denied.returncode == 3, denied.stdout + denied.stderr
    assert denied.stdout.startswith("deny — denied by the rule run_shell(rm:*)")
    allowed = run_cli(
        "permissions", "check", "run_shell(echo:*)", "--", "echo hi && echo ho", cwd=workspace
    )
    assert allowed.returncode == 0
    assert allowed.stdout.startswith("allow — every part of the command is allowed")


def test_opaque_commands_say_what_is_not_understood(workspace: Path) -> None:
    done = run_cli(
        "permissions", "check", "run_shell(echo:*)", "--json", "--", "echo ${x@P}", cwd=workspace
    )
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["decision"] == "ask"
    assert result["understood"] is False
    assert result["suggestions"] == []
    assert "not fully understood" in result["no_suggestion"]
    assert any("${x@P}" in why for why in result["not_understood"])


def test_settings_rules_apply_unless_told_not_to(workspace: Path) -> None:
    settings = workspace / ".agent-tui" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"deny": ["read_file(.env)"]}}))
    with_settings = run_cli(
        "permissions", "check", "--tool", "read_file", "--", ".env", cwd=workspace
    )
    assert with_settings.returncode == 3
    assert "read_file(.env)" in with_settings.stdout
    without = run_cli(
        "permissions", "check", "--no-settings", "--tool", "read_file", "--", ".env", cwd=workspace
    )
    assert without.returncode == 0


def test_protected_paths_and_commas_inside_rules(workspace: Path) -> None:
    protected = run_cli(
        "permissions",
        "check",
        "--no-settings",
        "--tool",
        "write_file",
        "--mode",
        "accept-edits",
        "--",
        ".mcp.json",
        cwd=workspace,
    )
    assert protected.returncode == 1
    assert "asks in every mode" in protected.stdout
    assert "write_file(/.mcp.json)" in protected.stdout
    quoted = run_cli(
        "permissions",
        "check",
        "--no-settings",
        "run_shell(python3 -c 'print(1, 2)':*),run_shell(ls:*)",
        "--",
        "python3 -c 'print(1, 2)' && ls",
        cwd=workspace,
    )
    assert quoted.returncode == 0, quoted.stdout


def test_bad_input_is_a_usage_error(workspace: Path) -> None:
    bad_rule = run_cli("permissions", "check", "run_shell(echo 'x:*)", "--", "ls", cwd=workspace)
    assert bad_rule.returncode == 2
    assert "unbalanced quotes" in bad_rule.stderr
    no_subject = run_cli("permissions", "check", "run_shell(ls)", cwd=workspace)
    assert no_subject.returncode == 2
    assert "after --" in no_subject.stderr
    no_tool = run_cli("permissions", "check", "--tool", "nope", "--", "x", cwd=workspace)
    assert no_tool.returncode == 2
