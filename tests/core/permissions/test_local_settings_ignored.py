"""The first "always allow" written to ``.agent-tui/settings.local.json`` also makes git ignore
it (the repository's ``info/exclude``), as Claude Code does with its local settings; through
the hardened git access: no git command runs, no planted link is followed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions.config import LOCAL_IGNORE, add_local_rules
from agent_tui.core.permissions.rules import Rule

RULE = Rule.parse("run_shell(make test)", source="test")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    return root


def test_the_first_write_makes_git_ignore_the_local_settings(repo: Path) -> None:
    path = add_local_rules(repo, [RULE])
    assert path.exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(repo, "check-ignore", str(path)).strip() == str(path)
    exclude = (repo / ".git" / "info" / "exclude").read_text()
    assert exclude.count(LOCAL_IGNORE) == 1
    assert not (repo / ".gitignore").exists()  # nothing to commit
    add_local_rules(repo, [Rule.parse("run_shell(make lint)", source="test")])
    assert (repo / ".git" / "info" / "exclude").read_text().count(LOCAL_IGNORE) == 1


def test_no_gitignore_is_written_and_the_users_excludes_are_kept(repo: Path) -> None:
    info = repo / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "exclude").write_text("*.mine")  # no final newline
    add_local_rules(repo, [RULE])
    assert not (repo / ".gitignore").exists()
    lines = (info / "exclude").read_text().splitlines()
    assert lines[0] == "*.mine"
    assert lines[-1] == LOCAL_IGNORE


def test_a_workspace_below_the_repository_root(repo: Path) -> None:
    workspace = repo / "services" / "api"
    workspace.mkdir(parents=True)
    path = add_local_rules(workspace, [RULE])
    assert git(repo, "check-ignore", str(path)).strip() == str(path)


def test_a_linked_worktree_uses_the_common_exclude(repo: Path, tmp_path: Path) -> None:
    (repo / "f").write_text("x\n")
    git(repo, "add", "f")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    path = add_local_rules(linked, [RULE])
    assert LOCAL_IGNORE in (repo / ".git" / "info" / "exclude").read_text()
    assert git(linked, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(linked, "check-ignore", str(path)).strip() == str(path)


def test_outside_a_repository_nothing_is_written(tmp_path: Path) -> None:
    add_local_rules(tmp_path, [RULE])
    assert not (tmp_path / ".git").exists()


def test_the_repositorys_config_runs_nothing(repo: Path) -> None:
    """A repository whose config would run a program on a git command: none is run."""
    git(repo, "config", "core.fsmonitor", f"touch {repo / 'pwned'}")
    git(repo, "config", "core.hooksPath", str(repo))
    add_local_rules(repo, [RULE])
    assert not (repo / "pwned").exists()
    assert LOCAL_IGNORE in (repo / ".git" / "info" / "exclude").read_text()


def test_a_planted_info_link_is_not_followed(repo: Path, tmp_path: Path) -> None:
    """``.git/info`` a link to a place the agent must not write: the rules are still saved,
    the canary is untouched, nothing is written through the link."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    canary = elsewhere / "exclude"
    canary.write_text("CANARY\n")
    info = repo / ".git" / "info"
    if info.exists():
        for child in info.iterdir():
            child.unlink()
        info.rmdir()
    info.symlink_to(elsewhere)
    path = add_local_rules(repo, [RULE])
    assert "make test" in path.read_text()
    assert canary.read_text() == "CANARY\n"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["exclude"]


def test_a_symlinked_git_dir_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    git(real, "init", "-q")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".git").symlink_to(real / ".git")
    before = (real / ".git" / "info" / "exclude").read_bytes()
    add_local_rules(workspace, [RULE])
    assert (real / ".git" / "info" / "exclude").read_bytes() == before
