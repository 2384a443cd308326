"""Claude Code's settings and rule strings through the real CLI (subprocesses): ``agent-tui
permissions check`` shows the translation, and a headless session honours a project's
``.claude/settings.json`` deny rules in bypass mode — canaries prove nothing was read."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_cli_headless import run_cli
from tests.test_cli_permissions import _outcomes
from tests.test_cli_permissions import _run as run_headless
from tests.trusting import trust_everything

SECRET = "SECRET-c1a0de-never-shown"


@pytest.mark.parametrize(
    ("flags", "command", "code", "first"),
    [
        (["Bash(npm run test:*)"], "npm run test -- -x", 0, "allow"),
        (["Bash(git * main)"], "git log main", 0, "allow"),
        (["Bash(* --version)"], "python3 --version", 0, "allow"),
        (["Bash(mkdir:*)"], "mkdir -p build/out", 0, "allow"),
        (["Bash"], "whoami", 0, "allow"),
        (["--deny", "Bash(git push --force*)"], "git push --force-with-lease o x", 3, "deny"),
        (["--ask", "Bash(git * main)"], "git log main", 1, "ask"),
        (["Bash", "--deny", "Read(./.env)"], "cat .env", 1, "ask"),
    ],
)
def test_permissions_check_takes_claude_code_rules(
    workspace: Path, flags: list[str], command: str, code: int, first: str
) -> None:
    (workspace / ".env").write_text(SECRET)
    done = run_cli("permissions", "check", *flags, "--", command, cwd=workspace)
    assert done.returncode == code, done.stdout + done.stderr
    assert done.stdout.startswith(first)
    assert "Claude Code rule" in done.stderr
    assert "= run_shell" in done.stderr or "= read_file(.env)" in done.stderr


def test_permissions_check_reads_the_claude_settings_and_shows_json(workspace: Path) -> None:
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./.env)"]}, "model": "opus"})
    )
    done = run_cli(
        "permissions", "check", "--tool", "read_file", "--json", "--", ".env", cwd=workspace
    )
    assert done.returncode == 3, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert out["decision"] == "deny"
    assert out["rule"] == "read_file(.env)"
    assert sum("'model'" in p for p in out["problems"]) == 1


def test_an_untranslatable_allow_is_a_usage_error(workspace: Path) -> None:
    done = run_cli("permissions", "check", "WebSearch", "--", "ls", cwd=workspace)
    assert done.returncode == 2
    assert "no counterpart" in done.stderr


def test_a_headless_bypass_session_honours_claude_deny_rules(workspace: Path) -> None:
    """The red-team run: deny rules in .claude/settings.json, bypass mode, the model tries
    to read the canary every way we can see and to force-push; nothing leaks."""
    (workspace / ".env").write_text(SECRET + "\n")
    (workspace / "canary").write_text("canary\n")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {
                    "allow": ["Bash(mkdir:*)"],
                    "deny": ["Read(./.env)", "Bash(rm -rf *)", "Bash(git push --force*)"],
                }
            }
        )
    )
    trust_everything(workspace)
    calls = [
        {"id": "cat", "name": "run_shell", "arguments": {"command": "cat .env"}},
        {"id": "read", "name": "read_file", "arguments": {"path": ".env"}},
        {"id": "grep", "name": "run_shell", "arguments": {"command": "grep -r SECRET ."}},
        {"id": "rm", "name": "run_shell", "arguments": {"command": "rm -rf canary"}},
        {
            "id": "push",
            "name": "run_shell",
            "arguments": {"command": "git push --force-with-lease"},
        },
        {"id": "mk", "name": "run_shell", "arguments": {"command": "mkdir made"}},
    ]
    events = run_headless(workspace, calls, "--permission-mode", "bypass")
    assert _outcomes(events) == {
        "cat": "tool_rejected",
        "read": "tool_rejected",
        "grep": "tool_rejected",
        "rm": "tool_rejected",
        "push": "tool_rejected",
        "mk": "tool_result",
    }
    assert SECRET not in json.dumps(events)
    assert (workspace / "canary").exists()
    assert (workspace / "made").is_dir()


def test_a_default_mode_session_runs_mkdir_under_a_claude_allow(workspace: Path) -> None:
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(mkdir:*)"]}})
    )
    trust_everything(workspace)
    events = run_headless(
        workspace,
        [{"id": "mk", "name": "run_shell", "arguments": {"command": "mkdir -p a/b"}}],
    )
    assert _outcomes(events) == {"mk": "tool_result"}
    assert (workspace / "a" / "b").is_dir()


def test_a_session_says_each_unmapped_key_once(workspace: Path) -> None:
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "env": {"ANTHROPIC_MODEL": "opus", "MAX_THINKING_TOKENS": "8000"},
                "model": "opus",
                "permissions": {"deny": ["WebSearch"]},
            }
        )
    )
    script = workspace / "s.json"
    script.write_text(json.dumps({"turns": [{"text": "done"}]}))
    done = run_cli("-p", "go", "--model", f"script:{script}", cwd=workspace)
    assert done.returncode == 0, done.stderr
    for needle in ("MAX_THINKING_TOKENS", "'model'", "WebSearch"):
        said = [line for line in done.stderr.splitlines() if needle in line]
        assert len(said) == 1, (needle, done.stderr)
        assert ".claude/settings.json" in said[0]


def test_wildcard_allows_never_run_more_than_they_say(workspace: Path) -> None:
    """Red team: wide Claude Code allow rules, commands that try to ride on them; headless,
    whatever asks is refused, and the canary must survive."""
    (workspace / "canary").write_text("canary\n")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(* --version)", "Bash(git * main)"]}})
    )
    trust_everything(workspace)
    attacks = {
        "rm": "rm -rf -- canary --version",
        "then": "git log main; rm -rf canary",
        "sh": "sh -c 'rm -rf canary' --version",
        "sub": "git log $(rm -rf canary) main",
        "find": "find . -name canary -delete -o -name --version",
    }
    for command in attacks.values():  # each is a real attack: bare bash deletes the canary
        lab = workspace.parent / "lab"
        lab.mkdir()
        (lab / "canary").write_text("canary\n")
        subprocess.run(["bash", "-c", command], cwd=lab, capture_output=True, check=False)
        assert not (lab / "canary").exists(), command
        shutil.rmtree(lab)
    calls = [
        {"id": key, "name": "run_shell", "arguments": {"command": command}}
        for key, command in attacks.items()
    ]
    calls.append({"id": "ok", "name": "run_shell", "arguments": {"command": "python3 --version"}})
    outcomes = _outcomes(run_headless(workspace, calls))
    assert outcomes == {**dict.fromkeys(attacks, "tool_rejected"), "ok": "tool_result"}
    assert (workspace / "canary").read_text() == "canary\n"


def test_session_flags_take_claude_code_rules(workspace: Path) -> None:
    (workspace / "canary").write_text("canary\n")
    calls = [
        {"id": "mk", "name": "run_shell", "arguments": {"command": "mkdir made"}},
        {"id": "rm", "name": "run_shell", "arguments": {"command": "rm -rf canary"}},
    ]
    events = run_headless(
        workspace,
        calls,
        "--permission-mode",
        "bypass",
        "--allow",
        "Bash(mkdir:*)",
        "--deny",
        "Bash(rm -rf *)",
    )
    assert _outcomes(events) == {"mk": "tool_result", "rm": "tool_rejected"}
    assert (workspace / "canary").exists()
    done = run_cli("-p", "go", "--model", "demo", "--allow", "WebSearch", cwd=workspace)
    assert done.returncode != 0
    assert "no counterpart" in done.stderr
