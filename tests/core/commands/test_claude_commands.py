"""Claude Code's command files as real setups ship them: list hints, nested front matter,
Claude Code's argument dialect, money in prose, commands in subfolders."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.commands import CommandRegistry
from agent_tui.core.commands.frontmatter import Nested, split
from agent_tui.core.commands.shell_lines import Ran, has_shell_lines, run_shell_lines


@pytest.fixture(autouse=True)
def _home_claude_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests give a home of their own: its ``.claude`` is Claude Code's user dir."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _registry(tmp_path: Path) -> CommandRegistry:
    return CommandRegistry.for_workspace(
        tmp_path / "project", config=tmp_path / "config", home=tmp_path / "home"
    )


REVIEW_PR = """---
description: Review a pull request
argument-hint: [pr-number] [priority] [assignee]
allowed-tools: Bash(gh pr view:*), Bash(gh pr diff:*)
---

Review PR #$0 with priority $1 and assign to $2.
"""

BLOCK_HINT = """---
description: Fix an issue
argument-hint:
  - issue-number
  - priority
---
Fix issue $ARGUMENTS.
"""

WITH_HOOKS = """---
description: Deploy with a guard
argument-hint: [message] | --amend
hooks:
  PreToolUse:
    - matcher: "Bash"
      hooks:
        - type: command
          command: "./scripts/check.sh"
disable-model-invocation: true
---
Deploy now: $ARGUMENTS
"""


def test_argument_hint_as_a_yaml_list_loads(tmp_path: Path) -> None:
    _write(tmp_path / "project/.claude/commands/review-pr.md", REVIEW_PR)
    _write(tmp_path / "project/.claude/commands/fix.md", BLOCK_HINT)
    registry = _registry(tmp_path)
    assert registry.problems == []
    review, fix = registry.find("review-pr"), registry.find("fix")
    assert review is not None
    assert fix is not None
    assert review.hint == "[pr-number] [priority] [assignee]"
    assert fix.hint == "[issue-number] [priority]"
    assert review.custom is not None
    assert review.custom.allowed_tools == ("Bash(gh pr view:*)", "Bash(gh pr diff:*)")


def test_nested_front_matter_is_named_once_and_the_file_loads(tmp_path: Path) -> None:
    path = _write(tmp_path / "project/.claude/commands/deploy.md", WITH_HOOKS)
    registry = _registry(tmp_path)
    deploy = registry.find("deploy")
    assert deploy is not None
    assert deploy.hint == "[message] | --amend"
    assert registry.problems == [
        f"command file {path}: front matter not applied here: hooks, "
        "disable-model-invocation (the command loads without it)"
    ]
    assert deploy.custom is not None
    assert deploy.custom.render("v2") == "Deploy now: v2"
    fields, _ = split(WITH_HOOKS)
    assert fields["hooks"] == Nested(4)


def test_block_scalars_are_read() -> None:
    fields, body = split("---\ndescription: |\n  one\n  two\nmodel: >\n  a\n  b\n---\nx")
    assert fields == {"description": "one\ntwo", "model": "a b"}
    assert body == "x"


def test_claude_dialect_counts_from_zero_and_keeps_money(tmp_path: Path) -> None:
    _write(tmp_path / "project/.claude/commands/review-pr.md", REVIEW_PR)
    _write(
        tmp_path / "home/.claude/commands/price.md",
        "Plan costs $20 a month, $1.5M a year; first: $0, all: $ARGUMENTS[1]. "
        "Literal \\$0 stays.\n",
    )
    registry = _registry(tmp_path)
    review, price = registry.find("review-pr"), registry.find("price")
    assert review is not None
    assert review.custom is not None
    assert price is not None
    assert price.custom is not None
    assert review.custom.render("456 high alice") == (
        "Review PR #456 with priority high and assign to alice."
    )
    assert price.custom.render("alpha beta") == (
        "Plan costs $20 a month, beta.5M a year; first: alpha, all: beta. Literal $0 stays."
    )
    # a word not given leaves the placeholder as written
    assert review.custom.render("456") == "Review PR #456 with priority $1 and assign to $2."


def test_our_dialect_counts_from_one_and_never_eats_digits(tmp_path: Path) -> None:
    _write(
        tmp_path / "project/.agent-tui/commands/quote.md",
        "Quote $1 for $20 (not $2 then 0), $100 total, $0 is text; \\$1 is literal.\n",
    )
    registry = _registry(tmp_path)
    quote = registry.find("quote")
    assert quote is not None
    assert quote.custom is not None
    assert quote.custom.render("alpha beta") == (
        "Quote alpha for $20 (not beta then 0), $100 total, $0 is text; $1 is literal."
    )


def test_arguments_are_not_substituted_twice(tmp_path: Path) -> None:
    _write(tmp_path / "project/.claude/commands/echo.md", "Say $ARGUMENTS and $0.\n")
    registry = _registry(tmp_path)
    echo = registry.find("echo")
    assert echo is not None
    assert echo.custom is not None
    assert echo.custom.render("'$0 $ARGUMENTS'") == "Say '$0 $ARGUMENTS' and $0 $ARGUMENTS."


def test_money_only_body_still_gets_the_arguments_appended(tmp_path: Path) -> None:
    _write(tmp_path / "project/.claude/commands/budget.md", "We have $200 left.\n")
    registry = _registry(tmp_path)
    budget = registry.find("budget")
    assert budget is not None
    assert budget.custom is not None
    assert budget.custom.render("trim it") == "We have $200 left.\n\nARGUMENTS: trim it"


def test_subfolder_commands_answer_to_their_short_name_too(tmp_path: Path) -> None:
    build = _write(tmp_path / "project/.claude/commands/frontend/build.md", "Build the UI")
    other = _write(tmp_path / "project/.claude/commands/zz/build.md", "Build zz")
    user = _write(tmp_path / "home/.claude/commands/ops/build.md", "Build ops")
    _write(tmp_path / "project/.claude/commands/git/commit.md", "Commit it")
    _write(tmp_path / "home/.claude/commands/commit.md", "a top-level commit")
    _write(tmp_path / "project/.claude/commands/tools/help.md", "not the help")
    registry = _registry(tmp_path)
    found = registry.find("build")
    assert found is not None
    assert found.name == "frontend:build"
    assert registry.find("frontend:build") is found
    assert registry.find("zz:build") is not None
    commit = registry.find("commit")
    assert commit is not None
    assert commit.name == "commit"  # a file's own name beats a folder's short name
    help_command = registry.find("help")
    assert help_command is not None
    assert help_command.kind == "builtin"
    problems = "\n".join(registry.problems)
    assert f"/build runs /frontend:build ({build}); /zz:build ({other}) keeps" in problems
    assert f"/build runs /frontend:build ({build}); /ops:build ({user}) keeps" in problems
    assert "/commit is a command file of that name; /git:commit" in problems
    assert "/help is a built-in; /tools:help" in problems


@pytest.mark.parametrize(
    ("body", "runs"),
    [
        ("Status: !`git status`", ["git status"]),
        ('Say "!`echo hi`" twice', ["echo hi"]),
        ("Use `save!` then `x`", []),  # the ! of save! is text
        ("a \\!`touch x` b", []),  # escaped
        ("```!\necho one\necho two\n```\nthen !`pwd`", ["echo one\necho two", "pwd"]),
        ("```bash\n!`not in a fence`\n```", ["not in a fence"]),  # as Claude Code: fences too
    ],
)
async def test_which_shell_lines_run(body: str, runs: list[str]) -> None:
    ran: list[str] = []

    async def run(command: str) -> Ran:
        ran.append(command)
        return Ran(f"<{len(ran)}>")

    text, notes = await run_shell_lines(body, run)
    assert ran == runs
    assert notes == []
    assert has_shell_lines(body) == bool(runs)
    if not runs:
        assert text == body.replace("\\!", "!")
