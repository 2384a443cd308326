"""What a command plants in the workspace's git config, run later by the user's plain git —
for real, sandboxed and not (issue 37, "what a repository ships or a command plants, run later
outside the sandbox"). Each case: the attack works bare (the canary appears after the user's
``git status``, ``git log -1`` in a terminal, or the command named), and through the executor
it does not, because ``git_watch`` undid it (or the sandbox's read-only masks stopped it).
The ``own`` cases are variants of this suite's own, beyond the issue's examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.sandbox.git_watch import Watch
from tests.core.sandbox.git_origin_lab import (
    PROBLEM,
    Case,
    Lab,
    prepare,
    prove,
    through_executor,
    user_runs_git,
)

FSMON = "printf '[core]\\n\\tfsmonitor = \"touch {C}; false\"\\n'"
HOOK = "printf '#!/bin/sh\\ntouch {C}\\n'"
COMMIT = "git add -A . >/dev/null && git commit -qm x"
SUB = f"git init -q sub && cd sub && echo a > f && {COMMIT} && "


def _git(lab: Lab, where: str, *args: str) -> None:
    out = lab.git(where, *args)
    assert "fatal" not in out, out


def _hooks_path(value: str, *make: str) -> object:
    def setup(lab: Lab) -> None:
        for directory in make:
            (lab.root / directory).mkdir(parents=True, exist_ok=True)
        _git(lab, "", "config", "core.hooksPath", value)

    return setup


def _husky(lab: Lab) -> None:
    """husky v9: hooksPath .husky/_, whose hooks run .husky/<hook> through ``_/h``."""
    under = lab.root / ".husky/_"
    under.mkdir(parents=True)
    (under / "h").write_text('#!/bin/sh\ns="$(dirname "$(dirname "$0")")/$(basename "$0")"\n'
                             '[ -f "$s" ] || exit 0\nsh -e "$s" "$@"\n')  # fmt: skip
    (under / "pre-commit").write_text('#!/bin/sh\n. "$(dirname "$0")/h"\n')
    for name in ("h", "pre-commit"):
        (under / name).chmod(0o755)
    _git(lab, "", "config", "core.hooksPath", ".husky/_")


def _global_hooks(lab: Lab) -> None:
    (lab.home / ".gitconfig").write_text("[core]\n\thooksPath = .hooks\n")


def _mine(lab: Lab) -> None:
    """The user's own nested repository, there before the session."""
    (lab.root / "mine").mkdir()
    _git(lab, "mine", "init", "-q")
    (lab.root / "mine/f").write_text("a\n")
    _git(lab, "mine", "add", "f")
    _git(lab, "mine", "commit", "-qm", "mine")


CASES: dict[str, Case] = {
    # -- bare repositories: no .git entry, found by their shape --------------------------------
    "bare repository src/x.git with core.fsmonitor": Case(
        "mkdir -p src && cp -a .git src/x.git && printf '[core]\\n\\tworktree = ../..\\n' "
        f">> src/x.git/config && {FSMON} >> src/x.git/config",
        later=(("src/x.git", ("status",), False),),
    ),
    "bare clone deep in vendor/ with core.pager, git log in refs/": Case(
        "git clone --bare -q . vendor/a/cache && "
        "printf '[core]\\n\\tpager = \"touch {C}; cat\"\\n' >> vendor/a/cache/config",
        later=(("vendor/a/cache/refs", ("log", "-1"), True),),
        own=True,
    ),
    "hand-built bare directory with an alias": Case(
        "mkdir -p build/out/objects build/out/refs && "
        "echo 'ref: refs/heads/main' > build/out/HEAD && "
        "printf '[alias]\\n\\tlg = !touch {C}\\n' > build/out/config",
        later=(("build/out", ("lg",), False),),
        own=True,
    ),
    "git directory by commondir, its common config planted": Case(
        "mkdir -p tools/common/objects tools/common/refs tools/wt && "
        "echo 'ref: refs/heads/main' > tools/wt/HEAD && echo ../common > tools/wt/commondir && "
        "printf '[alias]\\n\\tlg = !touch {C}\\n' > tools/common/config",
        later=(("tools/wt", ("lg",), False),),
        own=True,
    ),
    # -- nested repositories -------------------------------------------------------------------
    "nested repository's config with core.fsmonitor": Case(
        SUB + f"{FSMON} >> .git/config",
        later=(("sub", ("status",), False),),
    ),
    "the user's own nested repository's config changed (reverted)": Case(
        "printf '[core]\\n\\tpager = \"touch {C}; cat\"\\n' >> mine/.git/config",
        later=(("mine", ("log", "-1"), True),),
        setup=_mine,
        own=True,
        sandbox_blocks=True,
    ),
    "nested repository including a planted file (includeIf)": Case(
        SUB + "printf '[includeIf \"gitdir:/\"]\\n\\tpath = ../../inc.cfg\\n' >> .git/config "
        f"&& {FSMON} > ../inc.cfg",
        later=(("sub", ("status",), False),),
        own=True,
    ),
    "a hook planted in the user's own nested repository": Case(
        f"{HOOK} > mine/.git/hooks/pre-commit && chmod +x mine/.git/hooks/pre-commit",
        later=(("mine", ("commit", "-q", "--allow-empty", "-m", "y"), False),),
        setup=_mine,
        own=True,
        sandbox_blocks=True,
    ),
    # -- core.hooksPath targets in the work tree ------------------------------------------------
    "hooksPath .husky: a command writes .husky/pre-commit": Case(
        f"{HOOK} > .husky/pre-commit && chmod +x .husky/pre-commit",
        later=(("", ("commit", "-q", "--allow-empty", "-m", "y"), False),),
        setup=_hooks_path(".husky", ".husky"),  # type: ignore[arg-type]
        sandbox_blocks=True,
    ),
    "hooksPath .githooks not there yet: post-checkout": Case(
        f"mkdir .githooks && {HOOK} > .githooks/post-checkout && chmod +x .githooks/*",
        later=(("", ("checkout", "-q", "-b", "topic"), False),),
        setup=_hooks_path(".githooks"),  # type: ignore[arg-type]
        own=True,
    ),
    "husky v9 layout (.husky/_): a command writes .husky/pre-commit": Case(
        f"{HOOK} > .husky/pre-commit",
        later=(("", ("commit", "-q", "--allow-empty", "-m", "y"), False),),
        setup=_husky,
        own=True,
        sandbox_blocks=True,
    ),
    "the user's global hooksPath is relative (.hooks)": Case(
        f"mkdir -p .hooks && {HOOK} > .hooks/pre-commit && chmod +x .hooks/pre-commit",
        later=(("", ("commit", "-q", "--allow-empty", "-m", "y"), False),),
        setup=_global_hooks,
        own=True,
    ),
    # -- attributes drivers -----------------------------------------------------------------
    "nested repository: .gitattributes filter with its driver": Case(
        SUB + 'printf \'[filter "x"]\\n\\tclean = "touch {C}; cat"\\n\' >> .git/config && '
        "echo '* filter=x' > .gitattributes && echo b >> f",
        later=(("sub", ("diff",), False),),
    ),
    "nested repository: info/attributes textconv": Case(
        SUB + "echo b >> f && " + COMMIT + " && echo '* diff=x' > .git/info/attributes && "
        'printf \'[diff "x"]\\n\\ttextconv = "touch {C}; cat"\\n\' >> .git/config',
        later=(("sub", ("log", "-p", "-1"), False),),
        own=True,
    ),
    # -- keys hidden by line splits (python's splitlines, not git's) -------------------------
    "pager.worktree hidden as core.worktree by \\x1e": Case(
        SUB + "printf '[pager]\\n# x\\036[core]\\n\\tworktree = touch {C}\\n' >> .git/config",
        later=(("sub", ("worktree", "list"), True),),
    ),
    "pager.remote hidden as branch.m.remote by \\x0c": Case(
        SUB + "printf '[pager]\\n# x\\014[branch \"m\"]\\n\\tremote = touch {C}\\n' >> .git/config",
        later=(("sub", ("remote", "-v"), True),),
        own=True,
    ),
    "alias hidden as user.name by \\x1c in the top config": Case(
        "printf '[alias]\\n; \\034[user]\\n\\tname = !touch {C}\\n' >> .git/config",
        later=(("", ("name",), False),),
        own=True,
        sandbox_blocks=True,
    ),
    "alias hidden as remote.o.url by \\x1d in a nested config": Case(
        SUB + "printf '[alias]\\n# \\035[remote \"o\"]\\n\\turl = !touch {C}\\n' >> .git/config",
        later=(("sub", ("url",), False),),
        own=True,
    ),
    # -- a repository the command makes ------------------------------------------------------
    "git init, then git config core.fsmonitor": Case(
        "git init -q sub && cd sub && echo a > f && git add f && "
        "git config core.fsmonitor 'touch {C}; false'",
        later=(("sub", ("status",), False),),
    ),
    "git init, then a post-checkout hook": Case(
        SUB + f"{HOOK} > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout",
        later=(("sub", ("checkout", "-q", "-b", "t"), False),),
        own=True,
    ),
    "git clone, then an alias": Case(
        "git clone -q . copy && git -C copy config alias.st '!touch {C}'",
        later=(("copy", ("st",), False),),
        own=True,
    ),
    "git init, then core.hooksPath into the work tree": Case(
        SUB + f"git config core.hooksPath ../hk && mkdir ../hk && {HOOK} > ../hk/pre-commit "
        "&& chmod +x ../hk/pre-commit",
        later=(("sub", ("commit", "-q", "--allow-empty", "-m", "y"), False),),
        own=True,
    ),
}


@pytest.mark.parametrize("sandboxed", [False, True], ids=["unsandboxed", "sandboxed"])
@pytest.mark.parametrize("name", list(CASES))
async def test_a_planted_git_config_does_not_run_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, sandboxed: bool
) -> None:
    case = CASES[name]
    out = await prove(tmp_path, case, monkeypatch, sandboxed)
    if sandboxed and case.sandbox_blocks:
        assert "[exit code 0]" not in out, out  # the read-only mask refused the write
    else:
        assert "blocked by" in out, out


def test_the_suite_has_three_own_variants_per_class() -> None:
    own = [name for name, case in CASES.items() if case.own]
    assert len(own) >= 15


@pytest.mark.parametrize("name", list(CASES))
async def test_without_the_check_each_attack_runs_through_the_executor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The tests above would pass vacuously if nothing planted ever ran: with the git check
    off, the same unsandboxed call leaves what the user's git then runs."""
    monkeypatch.setattr(Watch, "check", lambda self, before: [])
    case = CASES[name]
    lab = prepare(tmp_path, "off", case, monkeypatch)
    await through_executor(lab, sandboxed=False)
    lab.canary.unlink(missing_ok=True)
    user_runs_git(lab, case)
    assert lab.canary.exists()


async def test_the_user_s_changed_config_is_reverted_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CASES["the user's own nested repository's config changed (reverted)"]
    lab = prepare(tmp_path, "revert", case, monkeypatch)
    config = lab.root / "mine/.git/config"
    before = config.read_bytes()
    out = await through_executor(lab, sandboxed=False)
    assert "reverted to what it held before" in out, out
    assert config.read_bytes() == before
    assert "moved to" in out  # the command's version is kept


REPORTED = {
    # git 2.39 refuses these itself (a `!command` update or an ext:: URL from .gitmodules):
    # judged all the same, an older or a differently configured git may not
    ".gitmodules with update = !command": (
        "printf '[submodule \"s\"]\\n\\tpath = s\\n\\turl = ./up\\n\\tupdate = !touch x\\n' "
        "> .gitmodules",
        ".gitmodules",
    ),
    ".gitmodules with an ext:: URL": (
        "printf '[submodule \"s\"]\\n\\tpath = s\\n\\turl = ext::sh -c touch% x\\n' > .gitmodules",
        ".gitmodules",
    ),
    ".gitmodules with a remote helper URL, in a subdirectory": (
        "mkdir -p lib && printf '[submodule \"s\"]\\n\\tpath = s\\n\\turl = evil::x\\n' "
        "> lib/.gitmodules",
        "lib/.gitmodules",
    ),
    # attributes alone select a driver a config must define: the driver line is judged
    ".gitattributes naming a filter driver": (
        "echo '* filter=x' > .gitattributes",
        ".gitattributes",
    ),
    ".gitattributes macro defining a diff driver": (
        "mkdir -p doc && printf '[attr]evil diff=x\\n*.md evil\\n' > doc/.gitattributes",
        "doc/.gitattributes",
    ),
    ".gitattributes merge driver appended to the user's own": (
        "echo '*.lock merge=ours-tool' >> .gitattributes",
        ".gitattributes",
    ),
}


@pytest.mark.parametrize("sandboxed", [False, True], ids=["unsandboxed", "sandboxed"])
@pytest.mark.parametrize("name", list(REPORTED))
async def test_modules_and_attributes_that_name_programs_are_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, sandboxed: bool
) -> None:
    if sandboxed and PROBLEM is not None:
        pytest.skip(f"no sandbox here: {PROBLEM}")
    plant, path = REPORTED[name]

    def own_attributes(lab: Lab) -> None:
        (lab.root / ".gitattributes").write_text("*.png binary\n")

    case = Case(plant, setup=own_attributes if "appended" in name else None)
    lab = prepare(tmp_path, "report", case, monkeypatch)
    out = await through_executor(lab, sandboxed)
    assert "blocked by" in out, out
    assert path in out
    if "appended" in name:
        assert (lab.root / ".gitattributes").read_text() == "*.png binary\n"
        assert "reverted" in out
    else:
        assert not (lab.root / path).exists()
