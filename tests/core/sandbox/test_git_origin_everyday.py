"""What the git watch must not get in the way of, and what the sandbox keeps read-only.

Everyday git in a workspace — a nested repository, a clone, a bare remote to push to, a
submodule, a worktree, attributes that pick no driver (``git lfs track``'s line included), a
remote or an upstream set unsandboxed — is never reported; what the user changes between
commands, and the user's own nested repositories, are left alone. In the sandbox, the configs
and hooks of nested and bare repositories found before the command, and the hooks path, are
read-only (the card says so), while committing and pushing there still work."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox, git_watch
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.sandbox.git_watch import Watch
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell

PROBLEM = Bubblewrap().problem()
needs_sandbox = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
IDENTITY = {
    "GIT_AUTHOR_NAME": "u",
    "GIT_AUTHOR_EMAIL": "u@example.org",
    "GIT_COMMITTER_NAME": "u",
    "GIT_COMMITTER_EMAIL": "u@example.org",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    work = tmp_path / "ws"
    work.mkdir()
    _git(work, "init", "-q")
    (work / "README").write_text("hi\n")
    _git(work, "add", "README")
    _git(work, "commit", "-qm", "init")
    return work.resolve()


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout


def _session(work: Path, sandboxed: bool) -> SessionSandbox:
    if sandboxed and PROBLEM is not None:
        pytest.skip(f"no sandbox here: {PROBLEM}")
    sandbox = SessionSandbox(SandboxSettings(mode="auto" if sandboxed else "off"), work)
    assert (sandbox.state.shell is not None) == sandboxed
    return sandbox


async def _run(sandbox: SessionSandbox, work: Path, command: str) -> ToolOutput:
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx)


EVERYDAY = {
    "a nested repository, committed to": (
        "git init -q sub && cd sub && echo a > f && git add f && git commit -qm x && "
        "git log --oneline | wc -l"
    ),
    "a clone, then a commit in it": (
        "git clone -q . copy && cd copy && git commit -q --allow-empty -m y && git log -1 --oneline"
    ),
    "a bare remote in the workspace, pushed to": (
        "git init -q --bare remote.git && git push -q ./remote.git HEAD:refs/heads/main && "
        "git --git-dir=remote.git log --oneline -1 main"
    ),
    "attributes that pick no driver": (
        "printf '*.png binary\\n*.sh text eol=lf\\n*.md diff=markdown\\n' >> .gitattributes && "
        "printf '*.psd filter=lfs diff=lfs merge=lfs -text\\n' >> .gitattributes && "
        "git add .gitattributes && git commit -qm attrs"
    ),
    "a linked worktree inside the workspace": "git worktree add -q wt -b topic && ls wt",
    ".gitmodules as git submodule add writes it": (
        "printf '[submodule \"lib\"]\\n\\tpath = lib\\n\\turl = https://example.org/lib.git\\n' "
        "> .gitmodules && cat .gitmodules"
    ),
}
UNSANDBOXED_ONLY = {
    "a remote, an upstream and an identity set in the top config": (
        "git remote add origin https://example.org/x.git && git config user.email me@x.org && "
        "git config pull.rebase false && git config branch.master.remote origin && "
        "git config branch.master.merge refs/heads/master"
    ),
    "a submodule added (top config and .git/modules)": (
        "git init -q up && cd up && git commit -q --allow-empty -m u && cd .. && "
        "git -c protocol.file.allow=always submodule add -q ./up lib && git submodule status"
    ),
}


@pytest.mark.parametrize("sandboxed", [False, True], ids=["unsandboxed", "sandboxed"])
@pytest.mark.parametrize("name", [*EVERYDAY, *UNSANDBOXED_ONLY])
async def test_everyday_git_is_not_reported(repo: Path, name: str, sandboxed: bool) -> None:
    if sandboxed and name in UNSANDBOXED_ONLY:
        pytest.skip("the top .git/config is read-only in the sandbox")
    command = {**EVERYDAY, **UNSANDBOXED_ONLY}[name]
    out = await _run(_session(repo, sandboxed), repo, command)
    assert out.data["exit_code"] == 0, out.content
    assert "blocked" not in out.content, out.content


async def test_the_user_s_edits_between_commands_are_left_alone(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user (an editor) changes git config between two commands, after a pause: the
    next command's check starts from there."""
    monkeypatch.setattr(git_watch, "FRESH_FOR", 0.0)  # the pause: a full look before
    sandbox = _session(repo, sandboxed=False)
    await _run(sandbox, repo, "git init -q sub")
    (repo / ".gitattributes").write_text("* filter=mine\n")
    with (repo / "sub/.git/config").open("a") as config:
        config.write('[core]\n\tpager = "less -R"\n')
    (repo / ".githooks").mkdir()
    out = await _run(sandbox, repo, "echo hello")
    assert "blocked" not in out.content
    assert (repo / ".gitattributes").read_text() == "* filter=mine\n"
    assert "less -R" in (repo / "sub/.git/config").read_text()


async def test_right_after_a_command_only_files_already_found_are_looked_at_again(
    repo: Path,
) -> None:
    """Within ``FRESH_FOR`` of a check the baseline reuses its walk: a change to a watched
    file in between is still the user's (looked at again), a new attributes file with a
    driver appearing in between is judged with the next command (fail-closed)."""
    sandbox = _session(repo, sandboxed=False)
    await _run(sandbox, repo, "git init -q sub")
    with (repo / "sub/.git/config").open("a") as config:
        config.write('[core]\n\tpager = "less -R"\n')
    (repo / ".gitattributes").write_text("* filter=mine\n")
    out = await _run(sandbox, repo, "echo hello")
    assert "less -R" in (repo / "sub/.git/config").read_text()
    assert ".gitattributes" in out.content
    assert not (repo / ".gitattributes").exists()


async def test_the_user_s_own_nested_repository_is_left_alone_unsandboxed(repo: Path) -> None:
    (repo / "mine").mkdir()
    _git(repo / "mine", "init", "-q")
    with (repo / "mine/.git/config").open("a") as config:
        config.write('[core]\n\tfsmonitor = "true"\n')
    out = await _run(_session(repo, sandboxed=False), repo, "echo hello > note.txt")
    assert "blocked" not in out.content
    assert "fsmonitor" in (repo / "mine/.git/config").read_text()


def _files(repo: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and "objects" not in p.parts}


def _bare_and_nested(repo: Path) -> None:
    (repo / "mine").mkdir()
    _git(repo / "mine", "init", "-q")
    _git(repo / "mine", "commit", "-q", "--allow-empty", "-m", "m")
    _git(repo, "init", "-q", "--bare", "src/x.git")
    _git(repo, "config", "core.hooksPath", ".githooks")
    (repo / ".githooks").mkdir()


@needs_sandbox
@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("echo '[alias] x = !true' >> mine/.git/config", "mine/.git/config"),
        ("echo '#!/bin/sh' > mine/.git/hooks/pre-commit", "mine/.git/hooks"),
        ("echo '[alias] x = !true' >> src/x.git/config", "src/x.git/config"),
        ("echo '#!/bin/sh' > .githooks/pre-commit", ".githooks"),
    ],
)
async def test_the_sandbox_keeps_found_git_directories_read_only(
    repo: Path, command: str, path: str
) -> None:
    _bare_and_nested(repo)
    before = _files(repo)
    out = await _run(_session(repo, sandboxed=True), repo, command)
    assert out.data["exit_code"] != 0, out.content
    assert out.facts.blocked is not None
    assert "read-only for commands" in out.facts.blocked, out.facts.blocked
    assert _files(repo) == before
    assert path.split("/")[0] in out.facts.blocked or path in out.content


@needs_sandbox
async def test_work_in_masked_repositories_goes_on(repo: Path) -> None:
    _bare_and_nested(repo)
    out = await _run(
        _session(repo, sandboxed=True),
        repo,
        "git -C mine commit -q --allow-empty -m again && git push -q ./src/x.git HEAD:main && "
        "git --git-dir=src/x.git log --oneline | wc -l && git -C mine log --oneline | wc -l",
    )
    assert out.data["exit_code"] == 0, out.content
    assert "blocked" not in out.content


def test_masks_name_what_the_sandbox_keeps_read_only(repo: Path) -> None:
    _bare_and_nested(repo)
    watch = Watch(repo)
    masks = {str(p.relative_to(repo)) for p in watch.masks(watch.look())}
    assert {"mine/.git/config", "mine/.git/hooks", "src/x.git/config", "src/x.git/hooks"} <= masks
    assert ".githooks" in masks
    assert not any(m.startswith(".git/") for m in masks)  # the top one is protected already


def test_the_look_finds_bare_repositories_by_shape_only(repo: Path) -> None:
    odd = repo / "data/blob"
    (odd / "objects").mkdir(parents=True)
    (odd / "refs").mkdir()
    (odd / "HEAD").write_text("ref: refs/heads/main\n")
    not_git = repo / "docs/HEAD-only"
    not_git.mkdir(parents=True)
    (not_git / "HEAD").write_text("x")
    (not_git / "config").write_text("[core]\n\tfsmonitor = x\n")
    found = Watch(repo).look().found
    assert str(odd) in found.gitdirs
    assert str(not_git) not in found.gitdirs  # git would not take it for a repository either


@needs_sandbox
async def test_removing_a_masked_repository_is_refused_and_explained(repo: Path) -> None:
    """The price of the masks: a sandboxed ``rm -rf`` of a repository found before the
    command removes all but its config and hooks (mount points), fails, and says why."""
    _bare_and_nested(repo)
    config = (repo / "mine/.git/config").read_bytes()
    out = await _run(_session(repo, sandboxed=True), repo, "rm -rf mine")
    assert out.data["exit_code"] != 0
    assert out.facts.blocked is not None
    assert "read-only for commands" in out.facts.blocked, out.facts.blocked
    assert (repo / "mine/.git/config").read_bytes() == config


async def test_a_quarantine_inside_the_workspace_is_not_watched(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the workspace as the home directory, the quarantine (in the data directory) is
    inside it: what was moved there is not found and judged again by the next command."""
    monkeypatch.setenv("AGENT_TUI_DATA_DIR", str(repo / ".local/share/agent-tui"))
    sandbox = _session(repo, sandboxed=False)
    first = await _run(sandbox, repo, "echo '* filter=x' > .gitattributes")
    assert ".gitattributes" in first.content
    moved = list((repo / ".local/share/agent-tui/quarantine").rglob(".gitattributes"))
    assert moved  # kept inside the workspace, under the data directory
    later = await _run(sandbox, repo, "true")
    assert "blocked" not in later.content, later.content
    assert moved[0].exists()


async def test_attributes_may_pick_the_user_s_own_drivers(repo: Path) -> None:
    """A driver the user's global config defines (nbstripout) is the user's program: a
    branch switch that brings ``*.ipynb filter=nbstripout`` is not undone; an unknown driver
    is."""
    home = Path(os.environ["HOME"])
    (home / ".gitconfig").write_text('[filter "nbstripout"]\n\tclean = nbstripout\n')
    sandbox = _session(repo, sandboxed=False)
    out = await _run(sandbox, repo, "echo '*.ipynb filter=nbstripout' > .gitattributes")
    assert "blocked" not in out.content, out.content
    out = await _run(sandbox, repo, "echo '*.py filter=other' >> .gitattributes")
    assert "filter=other" in out.content or ".gitattributes" in out.content
    assert (repo / ".gitattributes").read_text() == "*.ipynb filter=nbstripout\n"


async def test_a_big_config_of_the_user_is_reverted_not_moved(repo: Path) -> None:
    """A repository tracking thousands of branches has a config of hundreds of KB: a command
    that adds a pager to it gets the config back as it was, not taken away."""
    with (repo / ".git/config").open("a") as config:
        for n in range(6000):
            config.write(
                f'[branch "topic-{n:05d}"]\n\tremote = origin\n\tmerge = refs/heads/t{n}\n'
            )
    before = (repo / ".git/config").read_bytes()
    assert len(before) > 300_000  # over the 256 KB read before
    out = await _run(_session(repo, sandboxed=False), repo, "git config core.pager 'less -X'")
    assert "reverted" in out.content, out.content
    assert (repo / ".git/config").read_bytes() == before
