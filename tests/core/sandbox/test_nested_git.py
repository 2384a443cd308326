"""Nested git directories a sandboxed command makes run code later, for real: a repository in
a subdirectory, a submodule's git directory in ``.git/modules``, a ``.git`` file pointing
anywhere, a nested ``commondir``, a hook. Each attack is checked the way it would hurt: a plain
``git status`` at the top (or in the subdirectory), run outside the sandbox afterwards as the
user would, must not run what the command planted. What git itself makes (``git init``,
``git clone``, ``git submodule add``) keeps working, and the user's own nested repositories,
there before the session's first command, are left alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.state.paths import data_dir
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell

PROBLEM = Bubblewrap().problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")

GIT = "git -c user.name=a -c user.email=a@b -c protocol.file.allow=always"
FSMONITOR = 'printf \'[core]\\n\\tfsmonitor = "touch %s; false"\\n\' "$CANARY"'
"""Writes a config that runs a program (to what follows ``>``); $CANARY, the canary's path, is
set by the test and written into the config literally."""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    assert _git(work, "init", "-q", ".").returncode == 0
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the quarantine
    return work


def _canary(work: Path) -> Path:
    return work.parent / "PWNED"


async def _run(sandbox: SessionSandbox, work: Path, command: str) -> ToolOutput:
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    canary = _canary(work)
    return await run_shell.TOOL.call(
        run_shell.RunShellInput(command=f"export CANARY='{canary}'; {command}"), ctx
    )


def _sandbox(work: Path) -> SessionSandbox:
    sandbox = SessionSandbox(SandboxSettings(), work)
    assert sandbox.state.shell is not None
    return sandbox


def _git(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=work, capture_output=True, text=True, check=False, timeout=60
    )


def _user_runs_git(work: Path) -> None:
    """What the user types after the turn, outside any sandbox."""
    _git(work, "status")
    _git(work, "submodule", "status")
    for sub in ("sub", "vendor/lib"):
        if (work / sub).is_dir():
            _git(work / sub, "status")


_NESTED = f"mkdir sub && cd sub && git init -q && {GIT} commit -q --allow-empty -m x && "
_ATTACKS = {
    "nested repository added as a gitlink": (
        _NESTED + f"{FSMONITOR} >> .git/config && cd .. && git add sub 2>/dev/null"
    ),
    "nested repository not in the index": _NESTED + f"{FSMONITOR} >> .git/config",
    "nested include of another file": (
        _NESTED + "printf '[include]\\n\\tpath = ../../evil.cfg\\n' >> .git/config && "
        f"{FSMONITOR} > ../evil.cfg && cd .. && git add sub 2>/dev/null"
    ),
    "submodule's git directory in .git/modules": (
        "mkdir -p up && cd up && git init -q && "
        f"{GIT} commit -q --allow-empty -m x && cd .. && "
        f"{GIT} submodule -q add ./up sub && {FSMONITOR} >> .git/modules/sub/config"
    ),
    "a .git file pointing at a directory elsewhere in the workspace": (
        _NESTED + "mv .git ../build-evil && echo 'gitdir: ../build-evil' > .git && "
        f"{FSMONITOR} >> ../build-evil/config && cd .. && git add sub 2>/dev/null"
    ),
    "a .git link to a directory elsewhere in the workspace": (
        _NESTED + "mv .git ../build-evil && ln -s ../build-evil .git && "
        f"{FSMONITOR} >> ../build-evil/config && cd .. && git add sub 2>/dev/null"
    ),
    "a nested commondir": (
        _NESTED + "mkdir ../common && cp -a .git/. ../common/ && "
        f'{FSMONITOR} >> ../common/config && echo "$PWD/../common" > .git/commondir && '
        "cd .. && git add sub 2>/dev/null"
    ),
}


@pytest.mark.parametrize("attack", list(_ATTACKS))
async def test_a_nested_git_directory_cannot_be_made_to_run_code(repo: Path, attack: str) -> None:
    out = await _run(_sandbox(repo), repo, _ATTACKS[attack])
    _user_runs_git(repo)
    assert not _canary(repo).exists(), (attack, out.content)
    assert "blocked by the sandbox" in out.content, out.content
    assert "moved to" in out.content
    assert (data_dir() / "quarantine").is_dir()  # kept, not deleted


@pytest.mark.parametrize("attack", list(_ATTACKS))
async def test_each_attack_works_without_the_check(
    repo: Path, attack: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tests above would pass vacuously if the planted config never ran: without the
    check, the same command makes the user's git run it."""
    from agent_tui.core.sandbox.git_watch import Watch

    monkeypatch.setattr(Watch, "check", lambda self, before: [])
    await _run(_sandbox(repo), repo, _ATTACKS[attack])
    _user_runs_git(repo)
    assert _canary(repo).exists()


async def test_a_later_command_cannot_arm_a_harmless_nested_repository(repo: Path) -> None:
    sandbox = _sandbox(repo)
    first = await _run(sandbox, repo, _NESTED + "cd .. && git add sub 2>/dev/null")
    assert "blocked" not in first.content
    assert (repo / "sub/.git/config").is_file()
    later = await _run(sandbox, repo, f"{FSMONITOR} >> sub/.git/config")
    _user_runs_git(repo)
    assert not _canary(repo).exists()
    assert "sub/.git/config" in later.content


async def test_a_hook_planted_in_a_nested_repository_is_moved(repo: Path) -> None:
    out = await _run(
        _sandbox(repo),
        repo,
        _NESTED + "printf '#!/bin/sh\\ntouch %s\\n' \"$CANARY\" > .git/hooks/post-checkout && "
        "chmod +x .git/hooks/post-checkout",
    )
    assert not (repo / "sub/.git/hooks/post-checkout").exists()
    assert "post-checkout" in out.content
    _git(repo / "sub", "checkout", "-q", "-b", "other")
    assert not _canary(repo).exists()


async def test_git_init_and_clone_still_work(repo: Path) -> None:
    """(``git submodule add`` writes the top ``.git/config``, read-only in the sandbox.)"""
    sandbox = _sandbox(repo)
    out = await _run(
        sandbox,
        repo,
        "mkdir -p up && cd up && git init -q && echo hi > f && git add f && "
        f"{GIT} commit -q -m x && cd .. && git clone -q ./up vendor/lib && "
        "git -C vendor/lib log --oneline | wc -l",
    )
    assert "blocked" not in out.content, out.content
    assert out.data["exit_code"] == 0, out.content
    assert (repo / "vendor/lib/.git/config").is_file()
    assert (repo / "vendor/lib/f").read_text() == "hi\n"
    again = await _run(
        sandbox, repo, f"{GIT} -C vendor/lib commit -q --allow-empty -m y && echo ok"
    )
    assert "blocked" not in again.content
    assert "ok" in again.content


async def test_the_user_s_own_nested_repository_is_left_alone(repo: Path) -> None:
    """A nested repository with its own fsmonitor before the session: the user's, unchanged."""
    (repo / "mine").mkdir()
    assert _git(repo / "mine", "init", "-q").returncode == 0
    with (repo / "mine/.git/config").open("a") as config:
        config.write('[core]\n\tfsmonitor = "true"\n')
    out = await _run(_sandbox(repo), repo, "echo hello > note.txt")
    assert "blocked" not in out.content
    assert "fsmonitor" in (repo / "mine/.git/config").read_text()
