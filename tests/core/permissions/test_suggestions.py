""" "Always allow" offers only rules that work: never for a keyword or an opaque command, quoting
kept, and every suggestion matches its own command and not the command with ``; rm x``
appended (a round trip through the rule parser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet, Step
from agent_tui.core.permissions.rules import split_rule_list
from agent_tui.core.tools.builtin import default_registry

SHELL = default_registry().get("run_shell")
assert SHELL is not None

ROUND_TRIP = [
    "git status --short",
    "git commit -m 'a, b'",
    'python3 -c "print(1, 2)"',
    "python3 -m pytest -q tests/x.py",
    "npm run test -- --watch=false",
    "for i in 1 2; do echo $i; done",
    "ls -la | head -n 3",
    "echo 'it''s' \"q\\\"uote\"",
    "FOO=1 make test",
    "timeout 30 cargo test",
    "sudo apt-get update",
    "uv run pytest -x",
    "cd src && make",
    "grep -rn 'a|b' src",
    "echo $'tab\\there'",
    "jq '.a[0] | {x: .y}' data.json",
    "git log --format='%h %s' -5",
    "awk -F, '{print $2}' data.csv",
    "find . -name '*.py' -exec wc -l {} +",
    "echo hi > notes.txt",
]


def _judge(pipeline: PermissionPipeline, command: str):  # type: ignore[no-untyped-def]
    return pipeline.judge(SHELL, {"command": command})


@pytest.mark.parametrize("command", ROUND_TRIP)
def test_a_suggested_rule_allows_its_command_and_nothing_appended(
    tmp_path: Path, command: str
) -> None:
    asked = _judge(PermissionPipeline(tmp_path), command)
    assert asked.kind == "ask"
    assert asked.suggestions, asked
    texts = [str(rule) for rule in asked.suggestions]
    parsed = [Rule.parse(text) for text in split_rule_list(", ".join(texts))]
    assert [str(r) for r in parsed] == texts  # the text round-trips, commas and all
    allowed = PermissionPipeline(tmp_path, RuleSet(allow=parsed))
    assert _judge(allowed, command).kind == "allow", (command, texts)
    assert _judge(allowed, command + "; rm -rf x").kind == "ask"
    assert _judge(allowed, command + " && touch pwned").kind == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "echo ${x@P}",
        "$CMD arg",
        'eval "$x"',
        'bash -c "$code"',
        "{rm,-f,x}",
        "echo $((x))",
        "cat <<EOF | sh\nls\nEOF",
    ],
)
def test_opaque_commands_get_no_rule_and_say_why(tmp_path: Path, command: str) -> None:
    asked = _judge(PermissionPipeline(tmp_path), command)
    assert asked.kind == "ask"
    assert asked.suggestions == ()
    assert asked.no_suggestion is not None


def test_no_rule_for_shell_keywords(tmp_path: Path) -> None:
    asked = _judge(
        PermissionPipeline(tmp_path), "for i in 1 2; do touch f$i; done; if true; then :; fi"
    )
    words = {str(rule) for rule in asked.suggestions}
    for keyword in ("for", "do", "done", "if", "then", "fi"):
        assert not any(w.startswith(f"run_shell({keyword}") for w in words), words


def test_remember_saves_what_was_offered(tmp_path: Path) -> None:
    from agent_tui.core.permissions.asking import ApprovalRequest
    from agent_tui.core.transcript import ToolCall

    pipeline = PermissionPipeline(tmp_path, RuleSet(), Mode.DEFAULT)
    saved: list[list[Rule]] = []
    pipeline.on_remember.append(saved.append)
    request = ApprovalRequest(
        ToolCall(id="1", name="run_shell"),
        SHELL,
        SHELL.input_model(command="python3 -c 'print(1, 2)'"),
    )
    pipeline.remember(request)
    assert [str(r) for r in saved[0]] == ["run_shell(python3 -c 'print(1, 2)':*)"]
    assert _judge(pipeline, "python3 -c 'print(1, 2)'").kind == "allow"
    opaque = ApprovalRequest(
        ToolCall(id="2", name="run_shell"), SHELL, SHELL.input_model(command="echo ${x@P}")
    )
    assert pipeline.remember(opaque) == []
    assert len(saved) == 1  # nothing was written for the opaque command


def test_allow_splits_on_commas_only_outside_parentheses_and_quotes() -> None:
    assert split_rule_list("read_file, run_shell(git log:*)") == [
        "read_file",
        "run_shell(git log:*)",
    ]
    assert split_rule_list('run_shell(python3 -c "print(1, 2)"),write_file') == [
        'run_shell(python3 -c "print(1, 2)")',
        "write_file",
    ]
    assert split_rule_list('run_shell(echo ")", x),ls') == ['run_shell(echo ")", x)', "ls"]


def test_environment_suggestions_name_the_variable(tmp_path: Path) -> None:
    asked = _judge(PermissionPipeline(tmp_path, mode=Mode.BYPASS), "GIT_PAGER=cat git log -3")
    assert asked.step is Step.ENVIRONMENT
    rules = list(asked.suggestions)
    assert [str(r) for r in rules] == ["run_shell(GIT_PAGER=cat git log -3:*)"]
    named = PermissionPipeline(tmp_path, RuleSet(allow=rules), Mode.BYPASS)
    assert _judge(named, "GIT_PAGER=cat git log -3").kind == "allow"
    assert _judge(named, "GIT_PAGER=less git log -3").kind == "ask"
