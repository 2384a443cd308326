"""File tools (and shell writes) cannot write what git will run without asking (issue 37
follow-ups, point 1).

In accept-edits mode ``write_file`` / ``edit_file`` of a file inside the workspace is allowed
without asking — but some files there make the user's next git command run a program: a
``.gitattributes`` that picks a filter driver a (shipped) config defines, the directory a
repository's ``core.hooksPath`` names (``.husky/``, ``.githooks/``, at any depth), a config
file the repository includes, a bare repository's config. The after-command git watch undoes
a command's such write only when the next command ends; a file tool's would stand until then.

Each case is proven three ways:

1. judged: it asks (a protected path, in accept-edits and bypass alike), and says what runs it;
2. *bare*: in a fresh lab the same call runs through the executor with every tool allowed, and
   the user's git afterwards (in a terminal, outside any sandbox) makes the canary — the
   attack is real;
3. through the executor in accept-edits (headless: the ask is refused), then the same git: no
   canary.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet, Step
from agent_tui.core.permissions.policy import PermissionPolicy, SimplePolicy
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall
from tests.core.sandbox.git_origin_lab import IDENTITY, Lab, make_lab

HUSKY_H = '#!/bin/sh\ns="$(dirname "$(dirname "$0")")/$(basename "$0")"\n[ -f "$s" ] || exit 0\nsh -e "$s" "$@"\n'  # noqa: E501
COMMIT = ("commit", "-q", "--allow-empty", "-m", "y")


def _git(lab: Lab, where: str, *args: str) -> None:
    out = lab.git(where, *args)
    assert "fatal" not in out, out


def _husky(where: str) -> Callable[[Lab], None]:
    """husky v9 in ``where``: hooksPath ``.husky/_``, whose hooks run ``.husky/<hook>`` (a
    plain file: no execute bit needed)."""

    def setup(lab: Lab) -> None:
        root = lab.root / where
        if where:
            root.mkdir(parents=True)
            _git(lab, where, "init", "-q")
        under = root / ".husky/_"
        under.mkdir(parents=True)
        (under / "h").write_text(HUSKY_H)
        (under / "pre-commit").write_text('#!/bin/sh\n. "$(dirname "$0")/h"\n')
        for name in ("h", "pre-commit"):
            (under / name).chmod(0o755)
        _git(lab, where, "config", "core.hooksPath", ".husky/_")

    return setup


def _githooks(lab: Lab) -> None:
    """The team's hooks directory, with the user's own executable pre-commit in it."""
    (lab.root / ".githooks").mkdir()
    hook = lab.root / ".githooks/pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    _git(lab, "", "config", "core.hooksPath", ".githooks")


def _global_hooks(lab: Lab) -> None:
    """The user's global config names a relative hooks path: every repository's ``.hooks``."""
    (lab.home / ".gitconfig").write_text("[core]\n\thooksPath = .hooks\n")
    (lab.root / ".hooks").mkdir()
    hook = lab.root / ".hooks/pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)


def _vendored_driver(lab: Lab) -> None:
    """A vendored repository shipped with a config that defines a filter driver, inert until
    an attributes line picks it (the git watch leaves what was there before alone)."""
    _git(lab, "", "init", "-q", "vendor/lib")
    (lab.root / "vendor/lib/f").write_text("a\n")
    with (lab.root / "vendor/lib/.git/config").open("a") as config:
        config.write(f'[filter "x"]\n\tclean = "touch {lab.canary}; cat"\n')


def _top_driver(lab: Lab) -> None:
    """The same driver in the top repository's config, with a .gitattributes already there."""
    (lab.root / ".gitattributes").write_text("*.png binary\n")
    with (lab.root / ".git/config").open("a") as config:
        config.write(f'[filter "x"]\n\tclean = "touch {lab.canary}; cat"\n')


def _include(lab: Lab) -> None:
    """A common way to share settings: the repository includes a file of its work tree."""
    _git(lab, "", "config", "include.path", "../.gitconfig")


def _bare(lab: Lab) -> None:
    """A bare repository the project ships (a fixture, a cache): src/fixture.git."""
    done = subprocess.run(
        ["git", "clone", "-q", "--bare", ".", "src/fixture.git"],
        cwd=lab.root,
        env=lab.user_env(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


@dataclass(frozen=True)
class Case:
    tool: str
    arguments: dict[str, Any]
    """``{C}`` in a value is the canary's path."""
    later: tuple[tuple[str, tuple[str, ...]], ...]
    setup: Callable[[Lab], None]
    key: str
    """What the reason names."""
    read_first: str | None = None
    own: bool = False
    notes: list[str] = field(default_factory=list)


HOOK = "touch {C}\n"
CASES: dict[str, Case] = {
    # -- the examples ---------------------------------------------------------------
    ".gitattributes picks a shipped config's filter driver": Case(
        "write_file",
        {"path": "vendor/lib/.gitattributes", "content": "* filter=x\n"},
        later=(("vendor/lib", ("add", "-A")),),
        setup=_vendored_driver,
        key=".gitattributes",
    ),
    "husky v9: write_file .husky/pre-commit": Case(
        "write_file",
        {"path": ".husky/pre-commit", "content": HOOK},
        later=(("", COMMIT),),
        setup=_husky(""),
        key=".husky",
    ),
    "hooksPath .githooks: edit_file of the user's own hook": Case(
        "edit_file",
        {"path": ".githooks/pre-commit", "old_string": "exit 0", "new_string": "touch {C}"},
        later=(("", COMMIT),),
        setup=_githooks,
        key=".githooks",
        read_first=".githooks/pre-commit",
    ),
    # -- variants of our own ----------------------------------------------------------------
    "a nested repository's husky hooks (any depth)": Case(
        "write_file",
        {"path": "packages/web/.husky/pre-commit", "content": HOOK},
        later=(("packages/web", COMMIT),),
        setup=_husky("packages/web"),
        key=".husky",
        own=True,
    ),
    "the user's global hooksPath (relative, .hooks)": Case(
        "edit_file",
        {"path": ".hooks/pre-commit", "old_string": "exit 0", "new_string": "touch {C}"},
        later=(("", COMMIT),),
        setup=_global_hooks,
        key=".hooks",
        read_first=".hooks/pre-commit",
        own=True,
    ),
    "a config file the repository includes (include.path = ../.gitconfig)": Case(
        "write_file",
        {"path": ".gitconfig", "content": '[core]\n\tfsmonitor = "touch {C}; false"\n'},
        later=(("", ("status",)),),
        setup=_include,
        key=".gitconfig",
        own=True,
    ),
    "a shipped bare repository's config (src/fixture.git)": Case(
        "edit_file",
        {
            "path": "src/fixture.git/config",
            "old_string": "[core]",
            "new_string": "[alias]\n\tst = !touch {C}\n[core]",
        },
        later=(("src/fixture.git", ("st",)),),
        setup=_bare,
        key="fixture.git",
        read_first="src/fixture.git/config",
        own=True,
    ),
    "edit_file appends a driver line to the user's .gitattributes": Case(
        "edit_file",
        {"path": ".gitattributes", "old_string": "*.png binary\n", "new_string": "* filter=x\n"},
        later=(("", ("add", "-A")),),
        setup=_top_driver,
        key=".gitattributes",
        read_first=".gitattributes",
        own=True,
    ),
}


def _filled(value: Any, lab: Lab) -> Any:
    return value.replace("{C}", str(lab.canary)) if isinstance(value, str) else value


def _prepare(base: Path, name: str, case: Case, monkeypatch: pytest.MonkeyPatch) -> Lab:
    lab = make_lab(base, name)
    monkeypatch.setenv("HOME", str(lab.home))  # the agent sees the lab's global config too
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    case.setup(lab)
    return lab


async def _run(lab: Lab, policy: PermissionPolicy, calls: list[tuple[str, dict[str, Any]]]) -> bool:
    """The calls through a real executor (one cache: a read before an edit); whether the
    last one ran."""
    executor = ToolExecutor(
        default_registry(),
        lab.root,
        policy,
        None,
        FileStateCache(),
        store=SpillStore(lab.root / ".agent-spill", lab.root),
    )
    ran = False
    for index, (tool, arguments) in enumerate(calls):
        call = ToolCall(id=f"c{index}", name=tool, arguments=json.dumps(arguments))
        ran = False
        async for event in executor.execute([call], [], asyncio.Event()):
            ran = ran or (isinstance(event, ToolResult) and not event.is_error)
    return ran


def _calls(case: Case, lab: Lab) -> list[tuple[str, dict[str, Any]]]:
    arguments = {k: _filled(v, lab) for k, v in case.arguments.items()}
    first = [("read_file", {"path": case.read_first})] if case.read_first else []
    return [*first, (case.tool, arguments)]


def _later(lab: Lab, case: Case) -> str:
    return "\n".join(lab.git(where, *args) for where, args in case.later)


@pytest.mark.parametrize("mode", [Mode.ACCEPT_EDITS, Mode.BYPASS], ids=["accept-edits", "bypass"])
@pytest.mark.parametrize("name", list(CASES))
async def test_a_file_tool_write_git_runs_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, mode: Mode
) -> None:
    case = CASES[name]
    # 1. judged
    judged = _prepare(tmp_path, "judged", case, monkeypatch)
    policy = PermissionPipeline(judged.root, RuleSet(), mode)
    tool = default_registry().get(case.tool)
    assert tool is not None
    decision = policy.judge(tool, {k: _filled(v, judged) for k, v in case.arguments.items()})
    assert decision.kind == "ask", decision
    assert decision.step is Step.PROTECTED, decision
    assert case.key in decision.reason, decision.reason
    # 2. bare: the same call, every tool allowed, then the user's git
    bare = _prepare(tmp_path, "bare", case, monkeypatch)
    assert await _run(bare, SimplePolicy(["*"]), _calls(case, bare)), "the call did not run"
    said = await asyncio.to_thread(_later, bare, case)
    assert bare.canary.exists(), f"the attack does nothing bare:\n{said[-800:]}"
    # 3. through the executor in the mode: refused, and the user's git runs nothing
    lab = _prepare(tmp_path, "agent", case, monkeypatch)
    policy = PermissionPipeline(lab.root, RuleSet(), mode)
    assert not await _run(lab, policy, _calls(case, lab))
    said = await asyncio.to_thread(_later, lab, case)
    assert not lab.canary.exists(), f"the planted code ran later:\n{said[-800:]}"


def test_a_rule_that_names_the_path_allows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``write_file(.husky/**)`` names the hooks directory: the user meant it."""
    lab = _prepare(tmp_path, "named", CASES["husky v9: write_file .husky/pre-commit"], monkeypatch)
    rules = RuleSet(allow=[Rule.parse("write_file(.husky/**)")])
    policy = PermissionPipeline(lab.root, rules, Mode.ACCEPT_EDITS)
    tool = default_registry().get("write_file")
    assert tool is not None
    decision = policy.judge(tool, {"path": ".husky/pre-commit", "content": "x"})
    assert decision.kind == "allow", decision


# -- shell writes: the protected step of the shell judgement ---------------------------------

SHELL: dict[str, tuple[str, Callable[[Lab], None], tuple[tuple[str, tuple[str, ...]], ...]]] = {
    "printf > vendor/lib/.gitattributes": (
        "printf '* filter=x\\n' > vendor/lib/.gitattributes",
        _vendored_driver,
        (("vendor/lib", ("add", "-A")),),
    ),
    "printf >> .husky/pre-commit (husky v9)": (
        "printf 'touch {C}\\n' >> .husky/pre-commit",
        _husky(""),
        (("", COMMIT),),
    ),
    "cp a file over the included .gitconfig": (
        "printf '[core]\\n\\tfsmonitor = \"touch {C}; false\"\\n' > x.cfg && cp x.cfg .gitconfig",
        _include,
        (("", ("status",)),),
    ),
    "tee into a shipped bare repository's config": (
        "printf '[alias]\\n\\tst = !touch {C}\\n' | tee -a src/fixture.git/config",
        _bare,
        (("src/fixture.git", ("st",)),),
    ),
}


@pytest.mark.parametrize("name", list(SHELL))
async def test_a_shell_write_git_runs_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    command_text, setup, later = SHELL[name]
    case = Case("run_shell", {}, later, setup, key="")
    allow = ["run_shell(printf:*)", "run_shell(cp:*)", "run_shell(tee:*)"]
    rules = RuleSet(allow=[Rule.parse(r) for r in allow])
    judged = _prepare(tmp_path, "judged", case, monkeypatch)
    tool = default_registry().get("run_shell")
    assert tool is not None
    command = command_text.replace("{C}", str(judged.canary))
    decision = PermissionPipeline(judged.root, rules, Mode.ACCEPT_EDITS).judge(
        tool, {"command": command}
    )
    assert decision.kind == "ask", decision
    assert decision.step is Step.PROTECTED, decision
    bare = _prepare(tmp_path, "bare", case, monkeypatch)
    command = command_text.replace("{C}", str(bare.canary))
    await asyncio.to_thread(
        subprocess.run, ["bash", "-c", command], cwd=bare.root, env=dict(os.environ), check=False
    )
    said = await asyncio.to_thread(_later, bare, case)
    assert bare.canary.exists(), f"the attack does nothing bare:\n{said[-800:]}"
    lab = _prepare(tmp_path, "agent", case, monkeypatch)
    command = command_text.replace("{C}", str(lab.canary))
    policy = PermissionPipeline(lab.root, rules, Mode.ACCEPT_EDITS)
    assert not await _run(lab, policy, [("run_shell", {"command": command})])
    said = await asyncio.to_thread(_later, lab, case)
    assert not lab.canary.exists(), f"the planted code ran later:\n{said[-800:]}"


# -- .gitmodules: asks, though git 2.39 itself refuses its !command updates -------------------


def test_gitmodules_asks_at_any_depth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lab = _prepare(
        tmp_path, "modules", CASES["husky v9: write_file .husky/pre-commit"], monkeypatch
    )
    tool = default_registry().get("write_file")
    assert tool is not None
    policy = PermissionPipeline(lab.root, RuleSet(), Mode.ACCEPT_EDITS)
    for path in (".gitmodules", "lib/deps/.gitmodules"):
        decision = policy.judge(tool, {"path": path, "content": "[submodule]\n"})
        assert decision.kind == "ask", decision
        assert "submodules" in decision.reason


# -- everyday writes in such repositories stay free in accept-edits --------------------------


@pytest.mark.parametrize(
    "path",
    [
        "src/app.py",
        "README.md",
        "package.json",
        ".husky.md",
        "docs/hooks/pre-commit.md",
        "src/fixture.git.md",
        ".github/workflows/ci.yml",
    ],
)
def test_everyday_writes_stay_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    lab = _prepare(
        tmp_path, "everyday", CASES["husky v9: write_file .husky/pre-commit"], monkeypatch
    )
    _bare(lab)
    _include(lab)
    tool = default_registry().get("write_file")
    assert tool is not None
    policy = PermissionPipeline(lab.root, RuleSet(), Mode.ACCEPT_EDITS)
    decision = policy.judge(tool, {"path": path, "content": "x\n"})
    assert decision.kind == "allow", decision
