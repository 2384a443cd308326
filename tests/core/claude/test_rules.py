"""Claude Code rule strings, translated and judged by the real ``PermissionPipeline``.

Each rule string is written in a real ``.claude/settings.json`` of a tmp project, read by
``core.claude.permissions.permission_config`` (the loader the session uses) and judged as an
allow, an ask and a deny rule.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.claude.permissions import permission_config
from agent_tui.core.claude.rules import translate
from agent_tui.core.permissions import Mode, PermissionPipeline
from agent_tui.core.tools.builtin import default_registry

REGISTRY = default_registry()


def _project(root: Path, kind: str, rules: list[str]) -> Path:
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {kind: rules}}), encoding="utf-8"
    )
    return root


def _decide(root: Path, tool: str, arguments: dict[str, Any], mode: Mode = Mode.DEFAULT) -> str:
    config = permission_config(root)
    tool_ = REGISTRY.get(tool)
    assert tool_ is not None
    return PermissionPipeline(root, config.rules, mode).judge(tool_, arguments).kind


def _shell(command: str) -> tuple[str, dict[str, Any]]:
    return "run_shell", {"command": command}


# (rule, call, decision when allowed, decision when asked, decision when denied); a call the
# rule does not cover shows the default ("ask") or what another step says.
CASES: list[tuple[str, tuple[str, dict[str, Any]], str, str, str]] = [
    ("Bash(npm run test:*)", _shell("npm run test -- --watch"), "allow", "ask", "deny"),
    ("Bash(npm run test:*)", _shell("npm run testing"), "ask", "ask", "ask"),
    (
        "Bash(git push --force*)",
        _shell("git push --force-with-lease origin x"),
        "allow",
        "ask",
        "deny",
    ),
    ("Bash(git push --force*)", _shell("git push --force"), "allow", "ask", "deny"),
    ("Bash(git push --force*)", _shell("git push origin x"), "ask", "ask", "ask"),
    ("Bash(git * main)", _shell("git log main"), "allow", "ask", "deny"),
    ("Bash(git * main)", _shell("git log --oneline main"), "allow", "ask", "deny"),
    ("Bash(git * main)", _shell("git log dev"), "ask", "ask", "ask"),
    ("Bash(* --version)", _shell("python3 --version"), "allow", "ask", "deny"),
    ("Bash(* --version)", _shell("python3 --help"), "ask", "ask", "ask"),
    ("Bash(ls*)", _shell("lsof -n"), "allow", "ask", "deny"),
    ("Bash(mkdir:*)", _shell("mkdir -p build/out"), "allow", "ask", "deny"),
    ("Bash", _shell("whoami"), "allow", "ask", "deny"),
    ("Bash(*)", _shell("whoami"), "allow", "ask", "deny"),
    ("Read(./.env)", ("read_file", {"path": ".env"}), "allow", "ask", "deny"),
    ("Read(~/x)", ("read_file", {"path": "~/x"}), "allow", "ask", "deny"),
    (
        "Edit(src/**)",
        ("edit_file", {"path": "src/a.py", "old": "a", "new": "b"}),
        "allow",
        "ask",
        "deny",
    ),
    ("Edit(src/**)", ("write_file", {"path": "src/b.py", "content": "x"}), "allow", "ask", "deny"),
    ("Edit(src/**)", ("write_file", {"path": "docs/b.md", "content": "x"}), "ask", "ask", "ask"),
    ("Write", ("write_file", {"path": "notes.txt", "content": "x"}), "allow", "ask", "deny"),
    (
        "WebFetch(domain:example.com)",
        ("web_fetch", {"url": "https://example.com/a"}),
        "allow",
        "ask",
        "deny",
    ),
]


@pytest.mark.parametrize(("rule", "call", "allowed", "asked", "denied"), CASES)
def test_claude_rule_through_the_pipeline(
    tmp_path: Path,
    rule: str,
    call: tuple[str, dict[str, Any]],
    allowed: str,
    asked: str,
    denied: str,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a\n")
    (tmp_path / ".env").write_text("SECRET=1\n")
    tool, arguments = call
    if "~/x" in json.dumps(arguments):
        arguments = {"path": str(Path.home() / "x")}
    for kind, expected in (("allow", allowed), ("ask", asked), ("deny", denied)):
        root = tmp_path / kind
        if not root.exists():
            root.mkdir()
            (root / "src").mkdir()
            (root / "src" / "a.py").write_text("a\n")
            (root / ".env").write_text("SECRET=1\n")
        _project(root, kind, [rule])
        got = _decide(root, tool, arguments)
        assert got == expected, f"{kind} {rule} on {arguments}: {got}"


def test_a_deny_of_a_read_stops_shell_reads_in_bypass_too(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SECRET=1\n")
    _project(tmp_path, "deny", ["Read(./.env)"])
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash"]}})
    )
    assert _decide(tmp_path, "read_file", {"path": ".env"}, Mode.BYPASS) == "deny"
    for command in ("cat .env", "grep -r SECRET .", "cat ./sub/../.env", "head -1 .e*"):
        assert _decide(tmp_path, *_shell(command), Mode.BYPASS) != "allow", command
    assert _decide(tmp_path, *_shell("cat README"), Mode.BYPASS) == "allow"


def test_a_dot_slash_deny_covers_the_name_at_any_depth_an_allow_only_at_the_root(
    tmp_path: Path,
) -> None:
    deny = translate("Read(./.env)", "deny", root=tmp_path)
    allow = translate("Read(./.env)", "allow", root=tmp_path)
    assert [str(r) for r in deny.rules] == ["read_file(.env)"]
    assert [str(r) for r in allow.rules] == ["read_file(/.env)"]
    assert deny.note is None
    assert allow.note is None


@pytest.mark.parametrize(
    ("text", "ours"),
    [
        ("Read(//etc/passwd)", ["read_file(//etc/passwd)"]),
        ("Read(~/.ssh/**)", ["read_file(~/.ssh/**)"]),
        ("Edit(/src/**/*.ts)", ["edit_file(/src/**/*.ts)", "write_file(/src/**/*.ts)"]),
        ("Bash(npm run test:*)", ["run_shell(npm run test:*)"]),
        ("mcp__github__create_issue", ["mcp__github__create_issue"]),
        ("mcp__github", ["mcp__github"]),
        ("mcp__github__*", ["mcp__github__*"]),
        ("TodoWrite", ["update_plan"]),
    ],
)
def test_translations(tmp_path: Path, text: str, ours: list[str]) -> None:
    done = translate(text, "allow", root=tmp_path)
    assert [str(r) for r in done.rules] == ours
    assert done.note is None


def test_a_home_of_its_own_becomes_absolute(tmp_path: Path) -> None:
    home = os.path.expanduser("~root")
    done = translate("Read(~root/.ssh/**)", "deny", root=tmp_path)
    assert [str(r) for r in done.rules] == [f"read_file(/{home}/.ssh/**)"]
    bare = translate("Read(~)", "deny", root=tmp_path)
    assert [str(r) for r in bare.rules] == [f"read_file(/{Path.home()})"]


def test_a_parent_path_becomes_absolute(tmp_path: Path) -> None:
    root = tmp_path / "p"
    done = translate("Read(../shared/**)", "deny", root=root)
    assert [str(r) for r in done.rules] == [f"read_file(/{tmp_path}/shared/**)"]


def test_what_does_not_translate_never_loosens(tmp_path: Path) -> None:
    # an unbalanced quote: the allow is dropped, the deny covers the program's every command
    allow = translate('Bash(echo "x:*)', "allow", root=tmp_path)
    assert allow.rules == ()
    assert "ignored" in (allow.note or "")
    deny = translate('Bash(echo "x:*)', "deny", root=tmp_path)
    assert [str(r) for r in deny.rules] == ["run_shell(echo:*)"]
    assert "wider" in (deny.note or "")
    # a pattern our tool does not model: allow dropped, deny the whole tool
    grep_allow = translate("Grep(src/**)", "allow", root=tmp_path)
    assert grep_allow.rules == ()
    assert grep_allow.note
    grep_deny = translate("Grep(src/**)", "deny", root=tmp_path)
    assert [str(r) for r in grep_deny.rules] == ["grep"]
    # a bad domain: the deny covers every fetch
    fetch = translate("WebFetch(domain:)", "deny", root=tmp_path)
    assert [str(r) for r in fetch.rules] == ["web_fetch"]
    # a tool with no counterpart: said, nothing allowed
    for kind in ("allow", "deny"):
        done = translate("WebSearch", kind, root=tmp_path)  # type: ignore[arg-type]
        assert done.rules == ()
        assert "no counterpart" in (done.note or "")
    assert "not a Claude Code rule" in (translate("Bash(", "allow", root=tmp_path).note or "")


def test_a_wildcard_allow_never_covers_a_second_command_or_unknown_words(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(git * main)", "Bash(* --version)"]}})
    )
    for command in (
        "git log main; whoami",
        "git log main && rm -rf x",
        "git log $(whoami) main",
        "git log main | sh",
        "whoami; python3 --version",
        "python3 --version $X",
    ):
        assert _decide(tmp_path, *_shell(command)) != "allow", command
