"""Claude Code's memory files as they are: ``CLAUDE.md`` beside ``AGENTS.md``, ``CLAUDE.local.md``,
and ``@imports`` by Claude Code's rules (relative to the file, ``~/``, five levels, not in code,
cycles stopped) through ours (never agent-tui's state; a project's imports stay inside it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.state.paths import config_dir, data_dir
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.workspace.imports import references
from agent_tui.core.workspace.memory import ProjectMemory
from tests.core.helpers import write_script

CANARY = "CANARY-4f1e-never-in-the-prompt"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def loaded(memory: ProjectMemory) -> list[tuple[str, str]]:
    return [(f.shown, f.imported_by) for f in memory.all_files]


def test_references_follow_claude_codes_rules() -> None:
    text = """\
See @README.md and @docs/style.md for the rules.
- @~/.claude/my-project-instructions.md
Mail me@example.com, or `@not/in/a/span.md`, ``@nor ` this.md``.
@path\\ with\\ space.md
```
@not/in/a/fence.md
```
~~~~md
@nor/in/a/tilde/fence.md
~~~~

    @not/in/an/indented/block.md

- a list
    @in/a/list/continuation.md
"""
    assert references(text) == [
        "README.md",
        "docs/style.md",
        "~/.claude/my-project-instructions.md",
        "path with space.md",
        "in/a/list/continuation.md",
    ]


def test_claude_md_imports_relative_to_itself_depth_first(repo: Path) -> None:
    _write(repo / "CLAUDE.md", "Project. See @docs/overview.md and @README.md.\n")
    _write(repo / "docs" / "overview.md", "Overview, with @parts/one.md\n")
    _write(repo / "docs" / "parts" / "one.md", "Part one.\n")
    _write(repo / "README.md", "The readme.\n")
    memory = ProjectMemory.load(repo, user_dir=repo.parent / "user")
    assert loaded(memory) == [
        ("CLAUDE.md", ""),
        ("docs/overview.md", "CLAUDE.md"),
        ("docs/parts/one.md", "docs/overview.md"),
        ("README.md", "CLAUDE.md"),  # the sentence's full stop is not part of the path
    ]
    assert memory.problems == []
    section = memory.system_text()
    assert '<memory file="docs/parts/one.md" scope="project" imported-by="docs/overview.md">' in (
        section
    )


def test_claude_md_importing_agents_md_loads_it_once(repo: Path) -> None:
    """The common ``CLAUDE.md`` holding ``@AGENTS.md``, and one that is a link to it."""
    _write(repo / "AGENTS.md", "The shared rules.\n")
    _write(repo / "CLAUDE.md", "@AGENTS.md\n\nClaude only: be brief.\n")
    memory = ProjectMemory.load(repo, user_dir=repo.parent / "user")
    assert loaded(memory) == [("AGENTS.md", ""), ("CLAUDE.md", "")]
    assert memory.system_text().count("The shared rules.") == 1
    (repo / "CLAUDE.md").unlink()
    os.symlink("AGENTS.md", repo / "CLAUDE.md")
    memory.reload()
    assert loaded(memory) == [("AGENTS.md", "")]


def test_a_cycle_stops_and_each_file_loads_once(repo: Path) -> None:
    _write(repo / "CLAUDE.md", "@a.md\n")
    _write(repo / "a.md", "A, then @b.md\n")
    _write(repo / "b.md", "B, back to @a.md and @CLAUDE.md\n")
    memory = ProjectMemory.load(repo, user_dir=repo.parent / "user")
    assert loaded(memory) == [("CLAUDE.md", ""), ("a.md", "CLAUDE.md"), ("b.md", "a.md")]


def test_at_most_five_levels_of_imports(repo: Path) -> None:
    _write(repo / "CLAUDE.md", "@l1.md\n")
    for level in range(1, 8):
        _write(repo / f"l{level}.md", f"level {level} @l{level + 1}.md\n")
    memory = ProjectMemory.load(repo, user_dir=repo.parent / "user")
    assert [f.shown for f in memory.files] == ["CLAUDE.md", *(f"l{n}.md" for n in range(1, 6))]
    assert any("more than 5 levels" in str(p) and "@l6.md" in str(p) for p in memory.problems)


def test_a_project_import_outside_the_repository_is_refused(repo: Path) -> None:
    secret = _write(repo.parent / "outside" / "secret.md", f"{CANARY}\n")
    _write(repo / "notes.md", "notes\n")
    os.symlink(secret.parent, repo / "linked")
    _write(
        repo / "CLAUDE.md",
        f"@{secret}\n@../outside/secret.md\n@linked/secret.md\n@notes.md\n",
    )
    memory = ProjectMemory.load(repo, user_dir=repo.parent / "user")
    assert [f.shown for f in memory.files] == ["CLAUDE.md", "notes.md"]
    assert CANARY not in memory.system_text()
    said = [str(p) for p in memory.problems]
    assert len(said) == 3
    assert all("outside the repository" in p for p in said)


def test_a_project_import_of_the_home_needs_the_users_own_file(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's documented ``@~/.claude/my-project-instructions.md`` from a project file is
    refused (a repository would choose what of the home reaches the model); the same import from
    the user's own memory file is loaded."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    _write(home / ".claude" / "my-project-instructions.md", "my preferences\n")
    _write(repo / "CLAUDE.md", "- @~/.claude/my-project-instructions.md\n")
    memory = ProjectMemory.load(repo, user_dir=tmp_path / "user")
    assert "my preferences" not in memory.system_text()
    assert any("outside the repository" in str(p) for p in memory.problems)
    _write(tmp_path / "user" / "AGENTS.md", "@~/.claude/my-project-instructions.md\n")
    memory.reload()
    assert [(f.path.name, f.scope) for f in memory.files][:2] == [
        ("AGENTS.md", "user"),
        ("my-project-instructions.md", "user"),
    ]
    assert memory.files[1].shown == "~/.claude/my-project-instructions.md"
    assert "my preferences" in memory.system_text()


def test_an_import_never_reads_agent_tuis_own_state(tmp_path: Path) -> None:
    """Not from the user's own file either; and a project (here: one holding the state, as a
    workspace that is the home directory does) never reads the config dir."""
    state = _write(data_dir() / "trust.json", f'{{"canary": "{CANARY}"}}\n')
    settings = _write(config_dir() / "settings.json", f'{{"canary": "{CANARY}"}}\n')
    _write(config_dir() / "AGENTS.md", f"@{state}\n")
    workspace = Path(os.path.commonpath([data_dir(), config_dir()]))
    _write(workspace / "CLAUDE.md", f"@{settings}\n@{state}\n")
    memory = ProjectMemory.load(workspace)
    assert CANARY not in memory.system_text()
    said = [str(p) for p in memory.problems]
    assert len(said) == 3
    assert all("agent-tui's own state" in p for p in said)


def test_missing_imports_are_said_only_for_files_meant(repo: Path) -> None:
    _write(repo / "CLAUDE.md", "Ask @alice. Install @types/node. Read @docs/gone.md first.\n")
    memory = ProjectMemory.load(repo, user_dir=repo.parent / "user")
    said = [str(p) for p in memory.problems]
    assert len(said) == 1
    assert "@docs/gone.md" in said[0]


async def test_nested_claude_md_imports_come_with_the_read(repo: Path) -> None:
    _write(repo / "pkg" / "CLAUDE.md", "pkg rules, see @conventions.md\n")
    _write(repo / "pkg" / "conventions.md", "pkg conventions\n")
    _write(repo / "pkg" / "mod.py", "x = 1\n")
    memory = ProjectMemory.load(repo, user_dir=repo.parent / "user")
    assert memory.files == []
    new = memory.touch(repo / "pkg" / "mod.py")
    assert [(f.shown, f.imported_by, f.scope) for f in new] == [
        ("pkg/CLAUDE.md", "", "nested"),
        ("pkg/conventions.md", "pkg/CLAUDE.md", "nested"),
    ]
    memory.seen(["pkg/CLAUDE.md", "pkg/conventions.md"])  # a resumed session
    assert memory.touch(repo / "pkg" / "mod.py") == []


def _agent_in(workspace: Path, deny: tuple[str, ...] = ()) -> Agent:
    policy = PermissionPipeline(
        workspace, RuleSet(deny=[Rule.parse(r, source="test") for r in deny]), Mode.DEFAULT
    )
    script = write_script(workspace.parent / f"{workspace.name}-script.json", [])
    return Agent(ScriptProvider(script), default_registry(), workspace, policy=policy)


def test_an_import_of_a_denied_file_never_reaches_the_prompt(repo: Path) -> None:
    """A repository's ``CLAUDE.md`` importing ``.env``: the read rules withhold it from the
    memory as from ``read_file`` — the canary is not in the system prompt."""
    _write(repo / ".env", f"TOKEN={CANARY}\n")
    _write(repo / "config" / ".env", f"NESTED={CANARY}\n")
    _write(repo / "notes.md", "notes\n")
    _write(repo / "CLAUDE.md", "@.env\n@config/.env\n@notes.md\n")
    agent = _agent_in(repo, deny=("read_file(.env)", "read_file(**/.env)"))
    assert CANARY not in agent.system
    assert "notes" in agent.system
    said = [str(p) for p in agent.memory.problems]
    assert len(said) == 2
    assert all("withheld from reads" in p for p in said)


def test_without_a_rule_an_import_inside_the_workspace_is_read(repo: Path) -> None:
    _write(repo / "docs" / "style.md", "house style\n")
    _write(repo / "CLAUDE.md", "@docs/style.md\n")
    assert "house style" in _agent_in(repo).system


def test_a_monorepo_root_import_outside_the_workspace(repo: Path) -> None:
    """The workspace is a package of the repository: the root's CLAUDE.md importing a root
    file outside the workspace is judged as a read there — withheld (fail closed, said) until a
    read_file rule names the place, then loaded."""
    workspace = repo / "pkg"
    _write(repo / "docs" / "style.md", "house style\n")
    _write(repo / "CLAUDE.md", "@docs/style.md\n")
    workspace.mkdir()
    agent = _agent_in(workspace)
    assert "house style" not in agent.system
    assert any("outside the workspace" in str(p) for p in agent.memory.problems)
    rules = RuleSet(allow=[Rule.parse(f"read_file(/{repo / 'docs'}/**)", source="test")])
    policy = PermissionPipeline(workspace, rules, Mode.DEFAULT)
    script = write_script(repo / "script.json", [])
    agent = Agent(ScriptProvider(script), default_registry(), workspace, policy=policy)
    assert "house style" in agent.system


def test_dot_claude_claude_md_is_project_memory(repo: Path, tmp_path: Path) -> None:
    """Claude Code reads a project's ``CLAUDE.md`` at ``./CLAUDE.md`` or
    ``./.claude/CLAUDE.md``: both load, in that order, its imports relative to itself; a
    ``.claude`` that links out of the repository is not followed."""
    _write(repo / "CLAUDE.md", "Top.\n")
    _write(repo / ".claude" / "CLAUDE.md", "Tucked away. @rules.md\n")
    _write(repo / ".claude" / "rules.md", "The rules.\n")
    _write(repo / "CLAUDE.local.md", "Mine.\n")
    memory = ProjectMemory.load(repo, user_dir=repo.parent / "user")
    assert loaded(memory) == [
        ("CLAUDE.md", ""),
        (".claude/CLAUDE.md", ""),
        (".claude/rules.md", ".claude/CLAUDE.md"),
        ("CLAUDE.local.md", ""),
    ]
    outside = _write(tmp_path / "elsewhere" / "CLAUDE.md", CANARY)
    other = tmp_path / "repo2"
    (other / ".git").mkdir(parents=True)
    os.symlink(outside.parent, other / ".claude")
    memory = ProjectMemory.load(other, user_dir=repo.parent / "user")
    assert CANARY not in memory.system_text()
