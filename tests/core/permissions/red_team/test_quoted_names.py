"""Variable names as bash sees them: a quoted or escaped name, a declaration builtin run as a
command, and ``cd -`` (issue 37 follow-ups, point 2).

``declare -x NODE"_OPTIONS"=…`` sets ``NODE_OPTIONS`` (bash removes the quotes before it
reads the name), while tree-sitter cuts the word in two (``NODE`` and ``"_OPTIONS"=…``): the
analysis used to see two harmless names. Each attack below runs for real (bare, it makes the
canary), asks in default and bypass mode, and does nothing through the executor. The
differential test runs each declaration form in bash and checks that every name bash sets is
a name the analysis reports.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.permissions.shell import analyse
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall
from tests.core.permissions.red_team.harness import (
    CREATES,
    Attack,
    attacks,
    decide,
    make_lab,
    pipeline,
    prove,
    rules,
)

ALLOW = (
    "run_shell(declare:*)",
    "run_shell(typeset:*)",
    "run_shell(export:*)",
    "run_shell(readonly:*)",
    "run_shell(local:*)",
    "run_shell(builtin:*)",
    "run_shell(command:*)",
    "run_shell(node:*)",
    "run_shell(ls:*)",
    "run_shell(bash:*)",
    "run_shell(true)",
    "run_shell(cd:*)",
    "run_shell(echo:*)",
)
NODE = ("node",)
DENY: tuple[str, ...] = ()
"""No deny rule: with one in force, node -e's code would ask first (it could run or read it)."""

QUOTED_NAMES: list[Attack] = attacks(
    CREATES,
    # the examples: a quote inside the name, for each declaration builtin
    ('declare -x NODE"_OPTIONS"=--require=./evil.js; node -e 1', NODE),
    ("export NODE'_OPTIONS'=--require=./evil.js; node -e 1", NODE),
    'readonly P"ATH"=./bin; ls',  # PATH is exported already: the new value reaches ls
    ('typeset -x BASH"_ENV"=./0; bash -c true', ()),
    ('f() { local -x BASH"_ENV"=./0; bash -c true; }; f', ()),
    'export P"ATH"=./bin; ls',
    "export 'PA'TH=./bin; ls",
    # variants of our own
    'export "BASH_ENV+=./0"; bash -c true',  # += from a quoted word: the name is BASH_ENV
    "builtin export PATH=./bin; ls",  # the builtin run as a command: no declaration node
    'command declare -x P"ATH"=./bin; ls',
    "'export' PATH=./bin; ls",
    ("\\declare -x NODE_OPTIONS=--require=./evil.js; node -e 1", NODE),
    ('declare -x BASH"_"ENV=./0; bash -c true', ()),
)


@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.BYPASS], ids=["default", "bypass"])
@pytest.mark.parametrize("attack", QUOTED_NAMES, ids=lambda a: a.id)
async def test_a_quoted_dangerous_name_asks_in_every_mode(
    tmp_path: Path, attack: Attack, mode: Mode
) -> None:
    decision = await prove(tmp_path, attack, rules(allow=ALLOW, deny=DENY), mode)
    assert decision.kind == "ask", decision
    assert decision.every_mode, decision
    assert any(name in decision.reason for name in ("NODE_OPTIONS", "BASH_ENV", "PATH"))


@pytest.mark.parametrize(
    "command",
    [
        'export FOO"_BAR"=1; node -v',
        "declare -x NODE_ENV=test; node -v",
        'export CI"=true"; ls',
        "cd src && ls",
        "cd -P src; ls",
        "cd; ls",
        "cd -- src; ls",
    ],
)
def test_everyday_declarations_and_cds_stay_allowed(tmp_path: Path, command: str) -> None:
    lab = make_lab(tmp_path, "everyday")
    decision = decide(pipeline(lab, rules(allow=ALLOW), Mode.DEFAULT), "run_shell", {
        "command": command
    })  # fmt: skip
    assert decision.kind == "allow", decision


# -- differential: the names bash sets are the names the analysis sees ------------------------

FORMS = [
    'declare -x NODE"_OPTIONS"=a',
    "export NODE'_OPTIONS'=a",
    "export 'NODE_OPTIONS'=a",
    'export NODE_OPTIONS"=a"',
    "export NODE\\_OPTIONS=a",
    'readonly N"ODE_OPTIONS"=a',
    "export {A,B}_OPTS=1",
    'typeset -x P"Y"THONPATH=a',
    'declare -x A"B"+=c',
    'export "PYTHONPATH+=x"',
    "builtin export PYTHONPATH=x",
    'command export PY"THONPATH"=x',
    "'export' PYTHONPATH=x",
    'local -x LD"_PRELOAD"=x',
    'local "BASH_ENV=x"',
]


def _bash_sets(form: str) -> set[str]:
    """The variables ``form`` adds, as bash reports them (``local`` inside a function)."""

    def names(code: str) -> set[str]:
        body = (
            f"f() {{ {code}; compgen -v; }}; f"
            if form.startswith("local")
            else f"{code}; compgen -v"
        )
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        done = subprocess.run(["bash", "-c", body], env=env, capture_output=True, text=True)
        return set(done.stdout.split())

    return names(form) - names(":")


@pytest.mark.parametrize("form", FORMS)
def test_the_analysis_names_what_bash_sets(form: str) -> None:
    set_by_bash = _bash_sets(form)
    assert set_by_bash, f"bash sets nothing for {form!r}: the case proves nothing"
    code = f"f() {{ {form}; }}; f" if form.startswith("local") else form
    seen = {assignment.name for assignment in analyse(code).assignments}
    assert set_by_bash <= seen, (form, set_by_bash, seen)


def test_a_quoted_prefix_assignment_is_a_program_name_to_bash(tmp_path: Path) -> None:
    """``NODE"_OPTIONS"=x node`` is no assignment: bash runs a program named
    ``NODE_OPTIONS=x`` (and fails), so nothing is set — and no rule allows that program."""
    done = subprocess.run(
        ["bash", "-c", 'NODE"_OPTIONS"=x env'], capture_output=True, text=True, check=False
    )
    assert done.returncode == 127
    assert "NODE_OPTIONS=x: command not found" in done.stderr
    lab = make_lab(tmp_path, "prefix")
    command = 'NODE"_OPTIONS"=--require=./evil.js node -e 1'
    decision = decide(pipeline(lab, rules(allow=ALLOW), Mode.DEFAULT), "run_shell", {
        "command": command
    })  # fmt: skip
    assert decision.kind == "ask"


# -- cd -: $OLDPWD, not the home ----------------------------------------------------------------

CD_ATTACKS = [
    "cd -; echo planted > notes.txt",
    "cd -- -; echo planted > notes.txt",
    "cd -P -; echo planted > notes.txt",  # own variants: options before the -
    "cd -L -- -; echo planted > notes.txt",
    "(cd - >/dev/null && echo planted > notes.txt)",
    "pushd - >/dev/null; echo planted > notes.txt",
]


async def _through_executor(root: Path, policy: PermissionPipeline, command: str) -> bool:
    executor = ToolExecutor(
        default_registry(),
        root,
        policy,
        None,
        FileStateCache(),
        store=SpillStore(root / ".agent-spill", root),
    )
    call = ToolCall(id="cd", name="run_shell", arguments=json.dumps({"command": command}))
    ran = False
    async for event in executor.execute([call], [], asyncio.Event()):
        ran = ran or isinstance(event, ToolResult)
    return ran


@pytest.mark.parametrize("command", CD_ATTACKS)
async def test_cd_dash_goes_where_oldpwd_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """With the workspace as the home (a container, a dotfile repository), ``cd -`` taken as
    ``cd ~`` made ``cd -; echo > f`` a write inside the workspace, allowed in accept-edits.
    It goes to ``$OLDPWD``: here a directory outside, whose file is overwritten."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "notes.txt").write_text("mine\n")
    home = tmp_path / "ws"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OLDPWD", str(outside))
    ruleset = RuleSet(allow=[Rule.parse(r) for r in ALLOW])
    policy = PermissionPipeline(home, ruleset, Mode.ACCEPT_EDITS)
    decision = decide(policy, "run_shell", {"command": command})
    assert decision.kind == "ask", decision
    # bare: the file outside is overwritten
    bare = ["bash", "-c", command]
    await asyncio.to_thread(subprocess.run, bare, cwd=home, env=dict(os.environ), check=False)
    assert (outside / "notes.txt").read_text() == "planted\n"
    (outside / "notes.txt").write_text("mine\n")
    # through the executor (headless: the ask is refused): untouched
    assert not await _through_executor(home, policy, command)
    assert (outside / "notes.txt").read_text() == "mine\n"
