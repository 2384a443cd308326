"""Rule parsing, settings sections with clear problems, and "always allow" rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleError
from agent_tui.core.permissions.asking import ApprovalRequest
from agent_tui.core.permissions.config import add_local_rules, merge, parse_section, read_json_file
from agent_tui.core.permissions.suggest import command_prefix
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import ToolCall


@pytest.mark.parametrize(
    ("text", "tool", "pattern"),
    [
        ("run_shell", "run_shell", None),
        ("run_shell(git status:*)", "run_shell", "git status:*"),
        ("edit_file( src/** )", "edit_file", "src/**"),
        ("mcp__github", "mcp__github", None),
        ("mcp__github__*", "mcp__github__*", None),
    ],
)
def test_rule_parse(text: str, tool: str, pattern: str | None) -> None:
    rule = Rule.parse(text)
    assert (rule.tool, rule.pattern) == (tool, pattern)


@pytest.mark.parametrize("bad", ["", "run_shell(", "run_shell()", "foo*", "a b"])
def test_bad_rules_say_what_is_valid(bad: str) -> None:
    with pytest.raises(RuleError):
        Rule.parse(bad)


def test_mcp_rule_names() -> None:
    assert Rule.parse("mcp__gh").names_tool("mcp__gh__create_issue")
    assert not Rule.parse("mcp__gh").names_tool("mcp__ghx__create_issue")
    assert Rule.parse("mcp__gh__*").names_tool("mcp__gh__list")
    assert Rule.parse("mcp__gh__list").names_tool("mcp__gh__list")
    assert not Rule.parse("mcp__gh__list").names_tool("mcp__gh__list_all")


def test_section_problems_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    text = json.dumps(
        {"permissions": {"allow": ["read_file", "bad rule here"], "defaultMode": "yolo"}},
        indent=2,
    )
    path.write_text(text)
    data, raw, problem = read_json_file(path)
    assert problem is None
    config = parse_section(data["permissions"], path, raw)
    assert [str(r) for r in config.rules.allow] == ["read_file"]
    assert any(p.startswith(f"{path}:5:") and "not a rule" in p for p in config.problems)
    assert any("unknown permission mode 'yolo'" in p for p in config.problems)


def test_broken_json_is_reported_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{\n  "permissions": {"allow": [}\n}')
    data, _, problem = read_json_file(path)
    assert data is None
    assert problem is not None
    assert problem.startswith(str(path))
    assert "line 2" in problem


def test_merge_mode_most_specific_wins_and_rules_combine(tmp_path: Path) -> None:
    user = parse_section({"deny": ["run_shell(rm:*)"], "defaultMode": "plan"}, tmp_path / "u")
    local = parse_section({"allow": ["run_shell"], "defaultMode": "accept-edits"}, tmp_path / "l")
    merged = merge([user, local])
    assert merged.mode is Mode.ACCEPT_EDITS
    assert [str(r) for r in merged.rules.deny] == ["run_shell(rm:*)"]
    assert [str(r) for r in merged.rules.allow] == ["run_shell"]


@pytest.mark.parametrize(
    ("argv", "prefix"),
    [
        (["git", "commit", "-m", "msg"], ["git", "commit"]),
        (["npm", "run", "test", "--", "--watch"], ["npm", "run", "test"]),
        (["pytest", "tests/x.py", "-q"], ["pytest"]),
        (["ls", "-la"], ["ls"]),
        (["python3", "script.py", "--fast"], ["python3", "script.py"]),
        (["python3", "-m", "pytest", "-q"], ["python3", "-m", "pytest"]),
        (["echo", "hi"], ["echo"]),
        (["make", "build", "-j4"], ["make", "build"]),
        (["/usr/bin/git", "log", "--oneline"], ["/usr/bin/git", "log"]),
    ],
)
def test_command_prefix_stops_at_first_varying_argument(argv: list[str], prefix: list[str]) -> None:
    assert command_prefix(argv) == prefix


def test_always_allow_writes_narrow_rules_to_local_settings(tmp_path: Path) -> None:
    (tmp_path / ".agent-tui").mkdir()
    local = tmp_path / ".agent-tui" / "settings.local.json"
    local.write_text(json.dumps({"theme": "x", "permissions": {"allow": ["read_file"]}}))
    pipeline = PermissionPipeline(tmp_path)
    saved: list[list[Rule]] = []
    pipeline.on_remember.append(lambda rules: saved.append(rules))
    registry = default_registry()
    prepared = registry.prepare("run_shell", json.dumps({"command": "git commit -m 'x' && make"}))
    request = ApprovalRequest(ToolCall(id="1", name="run_shell"), prepared.tool, prepared.input)
    assert pipeline.decide(request).kind == "ask"
    pipeline.remember(request)
    assert [str(r) for r in saved[0]] == ["run_shell(git commit:*)", "run_shell(make:*)"]
    assert pipeline.decide(request).kind == "allow"
    add_local_rules(tmp_path, saved[0])
    data = json.loads(local.read_text())
    assert data["theme"] == "x"
    assert data["permissions"]["allow"] == [
        "read_file",
        "run_shell(git commit:*)",
        "run_shell(make:*)",
    ]


def test_always_allow_refuses_to_overwrite_a_broken_local_file(tmp_path: Path) -> None:
    local = tmp_path / ".agent-tui" / "settings.local.json"
    local.parent.mkdir()
    local.write_text("{broken")
    with pytest.raises(ValueError, match="not saved"):
        add_local_rules(tmp_path, [Rule.parse("run_shell(make:*)")])
    assert local.read_text() == "{broken"


def test_rule_lists_split_on_top_level_commas_only() -> None:
    from agent_tui.core.permissions.rules import split_rule_list

    assert split_rule_list("read_file, run_shell(echo a,b) ,edit_file") == [
        "read_file",
        "run_shell(echo a,b)",
        "edit_file",
    ]
    assert Rule.parse("*").names_tool("anything")
    with pytest.raises(RuleError):
        Rule.parse("*(x)")
