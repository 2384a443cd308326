"""Custom command files: locations, names, front matter, arguments, broken files, precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.commands import CommandRegistry, Invocation
from agent_tui.core.commands.custom import MAX_BYTES, Location
from agent_tui.core.commands.frontmatter import FrontMatterError, split


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _registry(tmp_path: Path) -> CommandRegistry:
    return CommandRegistry.for_workspace(
        tmp_path / "project", config=tmp_path / "config", home=tmp_path / "home"
    )


def test_a_project_command_with_front_matter_and_arguments(tmp_path: Path) -> None:
    _write(
        tmp_path / "project/.agent-tui/commands/review.md",
        "---\ndescription: Review a file\nargument-hint: <file> [focus]\n"
        "allowed-tools: Bash(git diff:*), read_file\nmodel: openai:gpt-4o\n---\n"
        "Review $1 with care ($ARGUMENTS). Focus: $2.\n",
    )
    registry = _registry(tmp_path)
    assert registry.problems == []
    parsed = registry.parse('/review src/app.py "error paths"')
    assert isinstance(parsed, Invocation)
    command = parsed.command
    assert (command.source, command.description, command.hint) == (
        "project",
        "Review a file",
        "<file> [focus]",
    )
    custom = command.custom
    assert custom is not None
    assert custom.allowed_tools == ("Bash(git diff:*)", "read_file")
    assert custom.render(parsed.args) == (
        'Review src/app.py with care (src/app.py "error paths"). Focus: error paths.'
    )
    assert custom.model == "openai:gpt-4o"  # both apply to its turn: core.commands.grants


def test_a_body_without_placeholders_gets_the_arguments_appended(tmp_path: Path) -> None:
    _write(tmp_path / "project/.agent-tui/commands/explain.md", "Explain the code.\n")
    registry = _registry(tmp_path)
    command = registry.find("explain")
    assert command is not None
    assert command.custom is not None
    assert command.custom.render("") == "Explain the code."
    assert command.custom.render("the parser") == "Explain the code.\n\nARGUMENTS: the parser"
    assert command.description == "Explain the code."


def test_subdirectories_name_commands_dir_colon_name(tmp_path: Path) -> None:
    _write(tmp_path / "project/.claude/commands/git/commit.md", "Commit it")
    registry = _registry(tmp_path)
    command = registry.find("git:commit")
    assert command is not None
    assert command.source == "claude"


def test_broken_files_are_reported_and_the_others_still_load(tmp_path: Path) -> None:
    root = tmp_path / "project/.agent-tui/commands"
    _write(root / "good.md", "fine")
    _write(root / "latin1.md", b"caf\xe9")
    _write(root / "unclosed.md", "---\ndescription: x\nno end")
    _write(root / "nested.md", "---\ndescription:\n  key: value\n---\nbody")
    _write(root / "huge.md", "x" * (MAX_BYTES + 1))
    _write(root / "empty.md", "---\ndescription: nothing\n---\n")
    _write(root / "bad name.md", "x")
    registry = _registry(tmp_path)
    assert [c.name for c in registry.custom] == ["good"]
    problems = "\n".join(registry.problems)
    assert f"{root / 'latin1.md'} is skipped: it is not UTF-8 text" in problems
    assert "unclosed.md is skipped: bad front matter: the front matter opened" in problems
    assert (
        "nested.md is skipped: bad front matter: description (line 2) is a nested map" in problems
    )
    assert "huge.md is skipped: it is 262,145 bytes" in problems
    assert "empty.md is skipped: its body is empty" in problems
    assert "'bad name' is not a command name" in problems


def test_precedence_builtins_then_project_then_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")  # ~/.claude of the home given
    _write(tmp_path / "project/.agent-tui/commands/help.md", "not the help")
    _write(tmp_path / "project/.agent-tui/commands/deploy.md", "project deploy")
    _write(tmp_path / "config/commands/deploy.md", "user deploy")
    _write(tmp_path / "config/commands/mine.md", "user only")
    _write(tmp_path / "home/.claude/commands/old.md", "from claude")
    registry = _registry(tmp_path)
    help_command = registry.find("help")
    assert help_command is not None
    assert help_command.kind == "builtin"
    deploy = registry.find("deploy")
    assert deploy is not None
    assert deploy.source == "project"
    mine, old = registry.find("mine"), registry.find("old")
    assert mine is not None
    assert mine.source == "user"
    assert old is not None
    assert old.source == "~/.claude"
    problems = "\n".join(registry.problems)
    assert "/help of" in problems
    assert "shadowed by the built-in /help" in problems
    assert "config/commands/deploy.md is shadowed by" in problems


def test_a_link_out_of_the_directory_is_refused(tmp_path: Path) -> None:
    secret = _write(tmp_path / "secret.txt", "the secret")
    root = tmp_path / "project/.agent-tui/commands"
    root.mkdir(parents=True)
    (root / "leak.md").symlink_to(secret)
    registry = CommandRegistry()
    registry.load_custom([Location(root, "project")])
    assert registry.find("leak") is None
    assert "links outside" in registry.problems[0]


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("---\na: 'it''s'\nb: \"q\\\"x\"\n---\n", {"a": "it's", "b": 'q"x'}),
        ("---\nlist:\n  - one\n  - 'two'\n---\n", {"list": ["one", "two"]}),
        ("---\nlist: [a, b(c, d)]\n# comment\n---\n", {"list": ["a", "b(c, d)"]}),
        ("no front matter", {}),
    ],
)
def test_front_matter_subset(text: str, fields: dict[str, object]) -> None:
    assert split(text)[0] == fields


@pytest.mark.parametrize(
    "text",
    ["---\na: 1\na: 2\n---\n", "---\njust words\n---\n", "---\na: &anchor x\n---\n"],
)
def test_front_matter_refuses_what_it_does_not_read(text: str) -> None:
    with pytest.raises(FrontMatterError):
        split(text)
