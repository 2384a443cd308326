"""The agent's own git calls (``safe_git``) run nothing a repository's config names: a hostile
repository with every code-running key git has, and the agent's environment carrying
``GIT_*`` variables that would run code, must not make ``gitlinks`` (the one git call the core
makes today) touch the canary. A repository the user does not own is refused, as git's
``safe.directory`` would; and no other module of agent-tui starts git directly."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.sandbox import nested_git, safe_git

SRC = Path(__file__).resolve().parents[3] / "src" / "agent_tui"
ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "a",
    "GIT_AUTHOR_EMAIL": "a@b",
    "GIT_COMMITTER_NAME": "a",
    "GIT_COMMITTER_EMAIL": "a@b",
}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, timeout=60)


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A repository with a gitlink, whose config runs the canary every way git allows."""
    work = tmp_path / "repo"
    (work / "sub").mkdir(parents=True)
    _git(work / "sub", "init", "-q")
    _git(work / "sub", "commit", "-q", "--allow-empty", "-m", "s")
    _git(work, "init", "-q")
    (work / "f").write_text("a\n")
    _git(work, "add", "f", "sub")
    _git(work, "commit", "-qm", "x")
    (work / "f").write_text("b\n")  # a modified file: filters and fsmonitor have work to do
    canary = tmp_path / "PWNED"
    run = f"touch {canary}; false"
    with (work / ".git/config").open("a") as config:
        config.write(
            f'[core]\n\tfsmonitor = "{run}"\n\tpager = "{run}"\n\thooksPath = hooks\n'
            f'\tsshCommand = "{run}"\n\talternateRefsCommand = "{run}"\n'
            f'[diff]\n\texternal = "{run}"\n[diff "x"]\n\ttextconv = "{run}"\n'
            f'[log]\n\tshowSignature = true\n[gpg]\n\tprogram = "{run}"\n'
            f'[filter "x"]\n\tclean = "{run}"\n'
            f'\tsmudge = "{run}"\n\tprocess = "{run}"\n[alias]\n\tls-files = "!{run}"\n'
        )
    (work / ".gitattributes").write_text("* filter=x diff=x\n")
    (work / "hooks").mkdir()
    for hook in ("post-index-change", "reference-transaction", "post-checkout"):
        (work / "hooks" / hook).write_text(f"#!/bin/sh\n{run}\n")
        (work / "hooks" / hook).chmod(0o755)
    # the bare run proves the config is armed
    subprocess.run(["git", "status"], cwd=work, env=ENV, capture_output=True, timeout=60)
    assert canary.exists(), "the hostile repository does not run its canary"
    canary.unlink()
    return work


def test_gitlinks_runs_nothing_of_the_repository(
    hostile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canary = hostile.parent / "PWNED"
    # the agent's own environment may hold GIT_* variables that run code: they are dropped
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", f"touch {canary}")
    monkeypatch.setenv("GIT_PAGER", f"touch {canary}")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor=touch {canary}'")
    monkeypatch.setenv("GIT_DIR", "/nonexistent")
    found = nested_git.gitlinks(hostile)
    assert found == [str(hostile / "sub/.git")]
    assert not canary.exists()


def test_every_allowed_subcommand_runs_nothing(hostile: Path) -> None:
    canary = hostile.parent / "PWNED"
    for sub, args in (
        ("ls-files", ("--stage",)),
        ("rev-parse", ("HEAD",)),
        ("ls-tree", ("HEAD",)),
        ("for-each-ref", ()),
        ("symbolic-ref", ("HEAD",)),
        ("log", ("--all", "--reflog", "-m", "--name-only", "--format=", "-z")),
        ("log", ("-p", "-1")),  # even asked for diff text: no driver, textconv or pager
    ):
        result = safe_git.run(hostile, sub, *args)
        assert result.code == 0, (sub, result.stderr)
    assert not canary.exists()


def test_porcelain_is_not_allowed(hostile: Path) -> None:
    for sub in ("status", "diff", "show", "checkout", "fetch", "config", "lg"):
        with pytest.raises(ValueError, match="not among"):
            safe_git.argv(sub)


def test_a_repository_the_user_does_not_own_is_refused(hostile: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("changing a directory's owner needs root")
    os.chown(hostile / ".git", 65534, 65534)
    try:
        with pytest.raises(safe_git.Refused, match="not owned"):
            safe_git.run(hostile, "ls-files")
        assert nested_git.gitlinks(hostile) == []
    finally:
        os.chown(hostile / ".git", 0, 0)


def test_a_gitdir_file_pointing_elsewhere_is_followed_and_checked(tmp_path: Path) -> None:
    real = tmp_path / "real"
    _git(tmp_path, "init", "-q", "--separate-git-dir", str(real), str(tmp_path / "wt"))
    assert safe_git.git_dir_of(tmp_path / "wt") == str(real)
    (tmp_path / "link").mkdir()
    (tmp_path / "link/.git").symlink_to(real)
    with pytest.raises(safe_git.Refused, match="symbolic link"):
        safe_git.git_dir_of(tmp_path / "link")


def test_no_module_starts_git_but_safe_git() -> None:
    """Every git subprocess of agent-tui (core and UI) goes through the hardened helper."""
    offenders = []
    pattern = re.compile(r"""[\[(]\s*["'](?:/usr/bin/)?git["']\s*,|which\(\s*["']git["']""")
    for path in SRC.rglob("*.py"):
        if path.name == "safe_git.py":
            continue
        text = path.read_text(encoding="utf-8")
        if pattern.search(text) and re.search(r"subprocess|create_subprocess", text):
            offenders.append(str(path.relative_to(SRC)))
    assert offenders == []
