"""Claude Code's user memory, ``~/.claude/CLAUDE.md`` (``$CLAUDE_CONFIG_DIR/CLAUDE.md``): read
for every project after ours, its imports judged as the user's own file's, loaded once however
reached; read as a project file when it lies inside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.claude.settings import user_claude_dir
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.state.paths import data_dir
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.workspace.memory import ProjectMemory
from tests.core.helpers import write_script

CANARY = "CANARY-77c1-never-in-the-prompt"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _agent(workspace: Path, deny: tuple[str, ...] = ()) -> Agent:
    rules = RuleSet(deny=[Rule.parse(r, source="test") for r in deny])
    policy = PermissionPipeline(workspace, rules, Mode.DEFAULT)
    script = write_script(workspace.parent / f"{workspace.name}-script.json", [])
    return Agent(ScriptProvider(script), default_registry(), workspace, policy=policy)


def test_claude_user_memory_is_read_after_ours(repo: Path, tmp_path: Path) -> None:
    claude = _write(user_claude_dir() / "CLAUDE.md", "Always answer in French.\n")
    _write(tmp_path / "user" / "AGENTS.md", "ours first\n")
    _write(tmp_path / "user" / "CLAUDE.md", "ours second\n")
    _write(repo / "CLAUDE.md", "project rules here\n")
    memory = ProjectMemory.load(repo, user_dir=tmp_path / "user")
    assert [(f.path, f.scope) for f in memory.files] == [
        (tmp_path / "user" / "AGENTS.md", "user"),
        (tmp_path / "user" / "CLAUDE.md", "user"),
        (claude, "user"),
        (repo / "CLAUDE.md", "project"),
    ]
    text = memory.system_text()
    assert text.index("ours second") < text.index("Always answer in French.")
    assert text.index("Always answer in French.") < text.index("project rules here")


def test_it_reaches_the_agents_system_prompt(repo: Path) -> None:
    _write(user_claude_dir() / "CLAUDE.md", "Sign every commit message with -- Ada.\n")
    agent = _agent(repo)
    assert "Sign every commit message with -- Ada." in agent.system


def test_the_home_directory_is_the_default(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    _write(home / ".claude" / "CLAUDE.md", "from the home\n")
    memory = ProjectMemory.load(repo, user_dir=tmp_path / "user")
    assert [f.shown for f in memory.files] == ["~/.claude/CLAUDE.md"]


def test_claude_local_md_in_the_user_dir_is_not_read(repo: Path, tmp_path: Path) -> None:
    """Claude Code's docs name ``CLAUDE.local.md`` only in a project."""
    _write(user_claude_dir() / "CLAUDE.local.md", f"{CANARY}\n")
    memory = ProjectMemory.load(repo, user_dir=tmp_path / "user")
    assert CANARY not in memory.system_text()


def test_a_file_reached_twice_is_loaded_once(repo: Path, tmp_path: Path) -> None:
    claude = _write(user_claude_dir() / "CLAUDE.md", "mine, once\n")
    _write(tmp_path / "user" / "AGENTS.md", f"@{claude}\n")
    memory = ProjectMemory.load(repo, user_dir=tmp_path / "user")
    assert [(f.path.name, f.imported_by) for f in memory.files] == [
        ("AGENTS.md", ""),
        ("CLAUDE.md", str(tmp_path / "user" / "AGENTS.md")),
    ]
    assert memory.system_text().count("mine, once") == 1


def test_its_imports_are_judged_as_the_users_own(repo: Path, tmp_path: Path) -> None:
    """Outside the repository it may import (a user's file), agent-tui's state it may not, and
    inside the workspace the read rules apply."""
    _write(tmp_path / "elsewhere" / "style.md", "personal style\n")
    _write(data_dir() / "trust.json", f'{{"canary": "{CANARY}"}}\n')
    _write(repo / ".env", f"TOKEN={CANARY}\n")
    _write(
        user_claude_dir() / "CLAUDE.md",
        f"@{tmp_path / 'elsewhere' / 'style.md'}\n@{data_dir() / 'trust.json'}\n@{repo / '.env'}\n",
    )
    agent = _agent(repo, deny=("read_file(.env)",))
    assert "personal style" in agent.system
    assert CANARY not in agent.system
    said = [str(p) for p in agent.memory.problems]
    assert any("agent-tui's own state" in p for p in said)
    assert any("withheld from reads" in p for p in said)


def test_inside_the_repository_it_is_read_as_a_project_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team: agent-tui started in a home directory that is a repository (dotfiles): its
    ``.claude/CLAUDE.md`` is a file the project's commands could write, so it does not get a
    user file's reach — its import of a file outside the repository is refused."""
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    secret = _write(tmp_path / "outside" / "secret.md", f"{CANARY}\n")
    _write(home / ".claude" / "CLAUDE.md", f"planted\n@{secret}\n")
    agent = _agent(home)
    assert "planted" in agent.system
    assert CANARY not in agent.system
    [claude] = [f for f in agent.memory.files if f.path.name == "CLAUDE.md"]
    assert claude.scope == "project"
    assert any("outside the repository" in str(p) for p in agent.memory.problems)
