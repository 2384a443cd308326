"""Claude Code's user directory, where its users keep commands, agents and skills:
``~/.claude``, or ``$CLAUDE_CONFIG_DIR`` when set (as Claude Code reads it) — for every kind,
not only ``settings.json``. And the shapes real setups ship: an agent with a nested ``hooks:``
map, a command file named in the old ``dir:name`` form."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.commands import CommandRegistry
from agent_tui.core.skills import SkillSet
from agent_tui.core.subagents import load_agents
from tests.core.skills.helpers import write_skill


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def claude_dir() -> Path:
    """``$CLAUDE_CONFIG_DIR`` of this test (conftest points it at a private directory)."""
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def test_claude_config_dir_holds_commands_agents_and_skills(
    tmp_path: Path, claude_dir: Path
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    _write(claude_dir / "commands" / "sayhi.md", "Say hi to $ARGUMENTS.\n")
    _write(home / ".claude" / "commands" / "shadow.md", "not read: CLAUDE_CONFIG_DIR is set\n")
    _write(claude_dir / "agents" / "team" / "scout.md", "---\nname: scout\n---\nLook around.\n")
    write_skill(claude_dir / "skills", "pdf-tools", "Fills PDF forms.")
    commands = CommandRegistry.for_workspace(project, config=tmp_path / "config", home=home)
    assert commands.find("sayhi") is not None
    assert commands.find("shadow") is None
    agents = load_agents(project, user_dir=tmp_path / "config")
    assert "scout" in agents.names()
    assert agents.get("scout") is not None
    assert agents.get("scout").scope == "user"  # type: ignore[union-attr]
    skills = SkillSet.for_workspace(project, None, config=tmp_path / "config", home=home)
    assert [s.name for s in skills.skills] == ["pdf-tools"]


def test_home_claude_agents_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``CLAUDE_CONFIG_DIR``: ``~/.claude/agents`` (subfolders too); our own user agent of
    the same name wins over Claude Code's, a project's over both."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "project"
    _write(home / ".claude/agents/reviewer.md", "---\nname: reviewer\n---\nClaude's.\n")
    _write(home / ".claude/agents/qa/tester.md", "---\nname: tester\n---\nClaude's.\n")
    _write(tmp_path / "config/agents/reviewer.md", "---\nname: reviewer\n---\nOurs.\n")
    _write(project / ".claude/agents/tester.md", "---\nname: tester\n---\nThe project's.\n")
    agents = load_agents(project, user_dir=tmp_path / "config")
    assert agents.get("reviewer").prompt == "Ours."  # type: ignore[union-attr]
    assert agents.get("tester").prompt == "The project's."  # type: ignore[union-attr]


def test_an_agent_with_nested_hooks_loads(tmp_path: Path) -> None:
    """Claude Code agents may carry their own ``hooks:`` map (the issue's
    ``.claude/agents/team/builder.md``): the agent loads, the map is not read."""
    _write(
        tmp_path / ".claude/agents/team/builder.md",
        "---\n"
        "name: builder\n"
        "description: Builds things\n"
        "tools: Read, Bash\n"
        "model: inherit\n"
        "hooks:\n"
        "  PostToolUse:\n"
        "    - matcher: Write\n"
        "      hooks:\n"
        "        - type: command\n"
        "          command: ruff format\n"
        "color: blue\n"
        "---\n"
        "You build.\n",
    )
    agents = load_agents(tmp_path, user_dir=tmp_path / "config")
    builder = agents.get("builder")
    assert builder is not None, agents.problems
    assert builder.tools == ("read_file", "run_shell")
    assert builder.prompt == "You build."
    assert not agents.problems


def test_an_agent_whose_tools_are_a_nested_map_is_refused(tmp_path: Path) -> None:
    _write(tmp_path / ".claude/agents/odd.md", "---\nname: odd\ntools:\n  read: yes\n---\nx\n")
    agents = load_agents(tmp_path, user_dir=tmp_path / "config")
    assert agents.get("odd") is None
    assert any("tools must be text or a list" in p for p in agents.problems)


def test_a_command_file_named_dir_colon_name(tmp_path: Path) -> None:
    """Command suites ship ``svelte/svelte:a11y.md``, invoked as ``/svelte:a11y``."""
    project = tmp_path / "project"
    _write(project / ".claude/commands/svelte/svelte:a11y.md", "Audit accessibility.\n")
    _write(project / ".claude/commands/top:level.md", "Top.\n")
    commands = CommandRegistry.for_workspace(project, config=tmp_path / "c", home=tmp_path / "h")
    assert commands.find("svelte:a11y") is not None
    assert commands.find("top:level") is not None
    assert not [p for p in commands.problems if "a11y" in p]


def test_a_skill_with_a_display_name_goes_by_its_folder(tmp_path: Path) -> None:
    """Older skills name themselves in words (``name: Cloudflare Manager``): the skill loads
    under its folder's name, and the start says so."""
    folder = tmp_path / ".claude" / "skills" / "cloudflare-manager"
    _write(
        folder / "SKILL.md",
        "---\nname: Cloudflare Manager\ndescription: Manages Cloudflare zones.\n---\nSteps.\n",
    )
    skills = SkillSet.for_workspace(tmp_path, None, config=tmp_path / "config", home=tmp_path)
    assert [s.name for s in skills.skills] == ["cloudflare-manager"]
    assert any("'Cloudflare Manager'" in p and "folder's name" in p for p in skills.problems)
