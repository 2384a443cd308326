"""Repositories a hostile clone ships, that the analysis did not see as repositories
(redteam3): ``cd sub && git status`` under ``run_shell(git status:*)`` ran the shipped config's
``core.fsmonitor`` (or ``diff.external``) outside any sandbox, because the judge's
``is_git_dir`` wanted a regular ``HEAD`` file and real ``objects``/``refs`` directories, where
git's ``is_git_directory`` takes a ``HEAD`` link to ``refs/…`` with nothing at its end,
``objects``/``refs`` entries it may merely ``access`` (an executable file), or a
``commondir`` naming them. Plus the ``cd`` forms that reach a shipped repository the judge
did not look at (``CDPATH``, a chain of ``cd``s, ``git -C a -C b``). Default mode, sandbox off.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import Lab, rules
from tests.core.permissions.redteam3.lab import Case, prove

FSMONITOR = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = {up}\n\tfsmonitor = "touch pwned; false"\n'  # noqa: E501
GIT_RULES = ("run_shell(git status:*)", "run_shell(git diff:*)", "run_shell(git log:*)")


def _files(where: Path, files: dict[str, str], executable: tuple[str, ...] = ()) -> None:
    for name, text in files.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if name in executable:
            path.chmod(0o755)


def dangling_head(lab: Lab) -> None:
    """``sub/HEAD`` is a link to ``refs/heads/none``, which does not exist."""
    sub = lab.root / "sub"
    _files(sub, {"objects/.keep": "", "refs/.keep": "", "config": FSMONITOR.format(up="..")})
    os.symlink("refs/heads/none", sub / "HEAD")


def file_shaped(lab: Lab) -> None:
    """``objects`` and ``refs`` are executable files, not directories."""
    _files(
        lab.root / "sub",
        {
            "HEAD": "ref: refs/heads/main\n",
            "objects": "#!/bin/sh\n",
            "refs": "#!/bin/sh\n",
            "config": FSMONITOR.format(up=".."),
        },
        executable=("objects", "refs"),
    )


def by_commondir(lab: Lab) -> None:
    """``sub`` holds only ``HEAD`` and a ``commondir`` naming ``evil``, a bare clone without a
    ``HEAD`` whose config sets ``diff.external``."""
    source = lab.root.parent / "source"
    env = lab.env
    subprocess.run(["git", "init", "-q", "-b", "main", str(source)], check=True, env=env)
    for text in ("a\n", "b\n"):
        (source / "f").write_text(text)
        subprocess.run(["git", "-C", str(source), "add", "f"], check=True, env=env)
        subprocess.run(["git", "-C", str(source), "commit", "-qm", text], check=True, env=env)
    evil = lab.root / "evil"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(evil)], check=True, env=env)
    (evil / "HEAD").unlink()
    for hook in (evil / "hooks").iterdir():
        hook.unlink()
    (evil / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
        "[diff]\n\texternal = touch pwned; :\n"
    )
    _files(lab.root / "sub", {"HEAD": "ref: refs/heads/main\n", "commondir": "../evil\n"})


def vendored(lab: Lab) -> None:
    """A plain ``docs/`` and, in ``vendor/docs``, a bare repository shaped like any other."""
    _files(lab.root / "docs", {"readme": "docs\n"})
    _files(
        lab.root / "vendor/docs",
        {
            "HEAD": "ref: refs/heads/main\n",
            "objects/.keep": "",
            "refs/.keep": "",
            "config": FSMONITOR.format(up="../.."),
        },
    )


CASES = {
    "HEAD a dangling link": (Case("cd sub && git status", setup=dangling_head), GIT_RULES),
    "HEAD link, git diff": (Case("cd sub && git diff", setup=dangling_head), GIT_RULES),
    "objects and refs files": (Case("cd sub && git status", setup=file_shaped), GIT_RULES),
    "commondir, diff.external": (
        Case("cd sub && git diff HEAD~1 HEAD", setup=by_commondir),
        GIT_RULES,
    ),
    "CDPATH=vendor cd docs": (
        Case("CDPATH=vendor cd docs && git status", setup=vendored),
        GIT_RULES,
    ),
    "cd vendor && cd docs": (Case("cd vendor && cd docs && git status", setup=vendored), GIT_RULES),
    "git -C vendor -C docs": (
        Case("git -C vendor -C docs status", setup=vendored),
        ("run_shell(git:*)",),
    ),
    "cd vendor; git -C docs": (
        Case("cd vendor; git -C docs status", setup=vendored),
        ("run_shell(git:*)",),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_git_in_a_shipped_repository_asks(tmp_path: Path, name: str) -> None:
    case, allow = CASES[name]
    await prove(tmp_path, case, rules(allow=allow, deny=()), Mode.DEFAULT)


EVERYDAY = [
    "cd docs && git status",
    "cd src && git log --oneline -3",
    "git -C src status --short",
]


@pytest.mark.parametrize("command", EVERYDAY)
def test_git_in_the_workspace_repository_stays_allowed(tmp_path: Path, command: str) -> None:
    from tests.core.permissions.redteam3.lab import judged

    case = Case(command, setup=vendored)
    decision = judged(tmp_path, case, rules(allow=("run_shell(git:*)",), deny=()), Mode.DEFAULT)
    assert decision.kind == "allow", decision
