"""Ways around the read-only ``.git/config`` that a sandboxed command could take, for real: it
cannot rename ``.git`` and make a new one, point git at another directory (``.git/commondir``,
``.git/config.worktree``), or make a ``.git`` file or link in a workspace that was no repository.
Each attack is checked the way it would hurt: ``git status`` run outside the sandbox afterwards
must not run the command's ``core.fsmonitor``."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell

PROBLEM = Bubblewrap().problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")


async def _run(work: Path, command: str) -> ToolOutput:
    sandbox = SessionSandbox(SandboxSettings(), work)
    assert sandbox.state.shell is not None
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx)


def _git(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=work, capture_output=True, text=True, check=False, timeout=60
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    assert _git(work, "init", "-q", ".").returncode == 0
    return work


# an evil git directory the command builds in the workspace: a copy of the real one whose
# config runs a program
_EVIL = (
    "mkdir -p build/evil && cp -a .git/. build/evil/ && "
    "printf '[core]\\n\\tfsmonitor = \"touch PWNED; false\"\\n' >> build/evil/config; "
)
_ATTACKS = {
    "rename .git": (
        "mv .git .git.old && mkdir .git && cp -a .git.old/. .git/ 2>/dev/null; "
        "printf '[core]\\n\\tfsmonitor = \"touch PWNED; false\"\\n' > .git/config"
    ),
    "remove .git": (
        "rm -rf .git 2>/dev/null; git init -q . 2>/dev/null; "
        "printf '[core]\\n\\tfsmonitor = \"touch PWNED; false\"\\n' > .git/config"
    ),
    "commondir": _EVIL + 'echo "$PWD/build/evil" > .git/commondir',
    "config.worktree": (
        "printf '[core]\\n\\tfsmonitor = \"touch PWNED; false\"\\n' > .git/config.worktree"
    ),
}


@pytest.mark.parametrize("attack", list(_ATTACKS))
async def test_a_command_cannot_give_the_repository_a_config_that_runs_code(
    repo: Path, attack: str
) -> None:
    before = (repo / ".git" / "config").read_text(encoding="utf-8")
    await _run(repo, _ATTACKS[attack])
    _git(repo, "status")
    assert not (repo / "PWNED").exists(), attack
    assert (repo / ".git" / "config").read_text(encoding="utf-8") == before
    assert _git(repo, "config", "--get", "core.fsmonitor").stdout == ""


@pytest.mark.parametrize("how", ["file", "link"])
async def test_a_command_cannot_make_a_git_pointer_where_there_was_no_repository(
    repo: Path, tmp_path: Path, how: str
) -> None:
    work = tmp_path / "plain"
    work.mkdir()
    # the evil directory comes from a real repository, built inside the workspace
    make = "git init -q build/src && cp -a build/src/.git/. build/evil/ 2>/dev/null || "
    make += "{ mkdir -p build/evil && cp -a build/src/.git/. build/evil/; }; "
    make += "printf '[core]\\n\\tfsmonitor = \"touch PWNED; false\"\\n' >> build/evil/config; "
    pointer = 'echo "gitdir: $PWD/build/evil" > .git' if how == "file" else "ln -s build/evil .git"
    out = await _run(work, make + pointer)
    _git(work, "status")
    assert not (work / "PWNED").exists(), out.content
    assert not (work / ".git").exists() or (work / ".git").is_dir()
    assert out.facts.blocked is not None
    assert "moved to" in out.facts.blocked


async def test_commits_and_ordinary_git_work_still_work(repo: Path) -> None:
    """Keeping ``.git`` in place must not break what commands do in it every day."""
    out = await _run(
        repo,
        "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m one && "
        "git checkout -q -b topic && git -c user.name=t -c user.email=t@e commit -q "
        "--allow-empty -m two && git gc -q && git log --oneline | wc -l",
    )
    assert out.facts.exit_code == 0, out.content
    assert out.content.splitlines()[0].strip() == "2"
    assert await asyncio.to_thread(lambda: _git(repo, "log", "--oneline").stdout.count("\n")) == 2


async def test_a_worktree_s_git_file_cannot_be_pointed_elsewhere(
    repo: Path, tmp_path: Path
) -> None:
    """In a linked worktree (``git worktree add``) ``.git`` is a file, ``gitdir: …``: rewritten,
    it would point git at a directory of the command's choosing."""
    assert _git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q",
                "--allow-empty", "-m", "x").returncode == 0  # fmt: skip
    tree = tmp_path / "tree"
    assert _git(repo, "worktree", "add", "-q", str(tree)).returncode == 0
    pointer = (tree / ".git").read_text(encoding="utf-8")
    make = "git init -q build/src && mkdir -p build/evil && cp -a build/src/.git/. build/evil/; "
    make += "printf '[core]\\n\\tfsmonitor = \"touch PWNED; false\"\\n' >> build/evil/config; "
    await _run(tree, make + 'echo "gitdir: $PWD/build/evil" > .git; rm -f .git; mv build .git')
    _git(tree, "status")
    assert not (tree / "PWNED").exists()
    assert (tree / ".git").read_text(encoding="utf-8") == pointer
