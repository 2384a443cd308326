"""Variable names bash evaluates: a subscript is arithmetic, and arithmetic runs code.

``printf -v 'a[$(touch pwned)]' x`` runs ``touch``: bash expands a subscript like a
double-quoted string and evaluates it, and a variable's value met there is evaluated again
(``a[b]`` with ``b='c[$(touch pwned)]'``). Every builtin that takes a variable name, every
assignment to a variable bash keeps as an integer, ``declare -i`` / ``-n``, array literals and
``{NAME}>file`` redirections are covered: each attack is run bare (the canary appears) and
through the agent with the builtins allowed by rules (nothing runs). With ``run_shell(rm:*)``
denied, ``rm`` inside such a subscript is *denied*, not asked. Names bash does not evaluate stay
allowed (``printf -v a[0]``, ``read -r line``, ``RANDOM=42``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from agent_tui.core.permissions.shell.varnames import ARITHMETIC_VARIABLES
from tests.core.permissions.red_team.harness import (
    ALLOW,
    CREATES,
    DELETES,
    Attack,
    attacks,
    decide,
    make_lab,
    pipeline,
    prove,
    rules,
)

BUILTINS = (
    *ALLOW,
    *(
        f"run_shell({r})"
        for r in (
            "read:*",
            "declare:*",
            "typeset:*",
            "local:*",
            "export:*",
            "unset:*",
            "test:*",
            "wait:*",
            "sleep:*",
            "mapfile:*",
            "let:*",
            "f",
            "builtin:*",
            "command:*",
            ":",
        )
    ),
)

A = "'a[$(touch pwned)]'"
"""A subscripted name, quoted: the analysis sees a literal word, bash runs its subscript."""
B = "b='c[$(touch pwned)]'; "
"""The code in a variable's value, evaluated when ``a[b]`` is."""

SUBSCRIPTS: list[Attack] = attacks(
    CREATES,
    # printf -v (the example, then ours)
    f"printf -v {A} x",
    "printf -v'a[$(touch pwned)]' x",
    f"builtin printf -v {A} x",
    f"{B}printf -v 'a[b]' x",
    "printf -v 'a[`touch pwned`]' x",
    "printf -v 'a[${x:-$(touch pwned)}]' x",
    # read (the example, then ours)
    f"read {A} <<< x",
    f"read -r -- {A} <<< x",
    f"IFS= read -r x {A} <<< 'x y'",
    f"command read {A} <<< x",
    f"{B}read 'a[b]' <<< x",
    # declare, typeset, local
    f"declare {A}=x",
    f"typeset {A}=x",
    f"f(){{ local {A}=x; }}; f",
    "declare -- 'a[$(touch pwned)]=x'",
    "declare 'a[$(touch pwned)]+=x'",
    f"declare -g {A}=x",
    # declare -i / -n: later assignments or uses evaluate
    "declare -i n='a[$(touch pwned)]'",
    "declare -i n; n='a[$(touch pwned)]'",
    "declare -i n; read n <<< 'a[$(touch pwned)]'",
    "declare -n r='a[$(touch pwned)]'; r=1",
    "f(){ local -i n='a[$(touch pwned)]'; }; f",
    "typeset -i 'n=a[$(touch pwned)]'",
    # unset
    f"a=(1 2); unset {A}",
    f"a=(1 2); unset -v {A}",
    "a=(1 2); unset -v a[$(touch pwned)]",
    f"a=(1 2); {B}unset 'a[b]'",
    # test -v, [ -v ], [[ -v ]]
    f"[[ -v {A} ]]",
    f"test -v {A}",
    f"[ -v {A} ]",
    f"{B}[[ -v a[b] ]]",
    # wait -p
    f"sleep 0 & wait -n -p {A}",
    f"sleep 0 & wait -p {A} $!",
    f"true & wait -np {A}",
    # {NAME}> redirections
    f"{B}echo hi {{a[b]}}>/dev/null",
    f"{B}echo hi {{a[b]}}</dev/null",
    f"{B}true {{a[b]}}>>/dev/null",
    # array literals
    f"{B}arr=([b]=1)",
    f"{B}declare -a arr=([b]=1)",
    f"{B}arr+=([b]=1)",
    "arr=(['$(touch pwned)']=1)",
    # variables bash keeps as integers
    "RANDOM='a[$(touch pwned)]'",
    "OPTIND='a[$(touch pwned)]'",
    "read OPTIND <<< 'a[$(touch pwned)]'",
    "printf -v HISTCMD %s 'a[$(touch pwned)]'",
    "for SRANDOM in 'a[$(touch pwned)]'; do :; done",
    "export RANDOM='a[$(touch pwned)]'",
    "mapfile SECONDS <<< 'a[$(touch pwned)]'",
    "BASHPID+='a[$(touch pwned)]'",
    # arithmetic contexts
    "let 'a[$(touch pwned)]'",
    "(( a[$(touch pwned)] ))",
    "x=1; echo ${x:$(touch pwned)}",
)

DENIED_INSIDE: list[Attack] = attacks(
    DELETES,
    "printf -v 'a[$(rm canary)]' x",
    "read 'a[$(rm canary)]' <<< x",
    "declare 'a[$(rm canary)]'=x",
    "a=(1 2); unset 'a[$(rm canary)]'",
    "[[ -v 'a[$(rm canary)]' ]]",
    "test -v 'a[$(rm canary)]'",
    "sleep 0 & wait -n -p 'a[$(rm canary)]'",
    "arr=(['$(rm canary)']=1)",
    "let 'a[$(rm canary)]'",
    "echo $(( a[$(rm canary)] ))",
    "(( a[$(rm canary)] ))",
    "x=1; echo ${x:0:$(rm canary)}",
)

BENIGN = (
    "printf -v 'a[0]' %s x",
    "printf -v name %s x",
    "read -r line <<< x",
    "read -r first rest <<< 'x y'",
    "arr=([0]=a [1]=b); echo ok",
    "RANDOM=42; echo ok",
    "unset x y; echo ok",
    "[ -v HOME ] && echo ok",
    "[[ -v PATH ]] && echo ok",
    "declare -a arr; echo ok",
    "declare -x FOO=bar; echo ok",
    "f(){ local x=1; echo $x; }; f",
)


@pytest.mark.parametrize("attack", SUBSCRIPTS, ids=lambda a: a.id)
async def test_a_subscript_bash_evaluates_is_never_allowed(tmp_path: Path, attack: Attack) -> None:
    decision = await prove(tmp_path, attack, rules(allow=BUILTINS), Mode.DEFAULT)
    assert not decision.understood, decision


@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.BYPASS], ids=["default", "bypass"])
@pytest.mark.parametrize("attack", DENIED_INSIDE, ids=lambda a: a.id)
async def test_a_denied_program_in_a_subscript_is_denied(
    tmp_path: Path, attack: Attack, mode: Mode
) -> None:
    decision = await prove(tmp_path, attack, rules(allow=BUILTINS), mode)
    assert decision.kind == "deny", decision


@pytest.mark.parametrize("command", BENIGN)
def test_names_bash_does_not_evaluate_stay_allowed(tmp_path: Path, command: str) -> None:
    lab = make_lab(tmp_path, "benign")
    decision = decide(
        pipeline(lab, rules(allow=BUILTINS), Mode.DEFAULT), "run_shell", {"command": command}
    )
    assert decision.kind == "allow", decision


FORMS = (
    "{v}='a[$(touch pwned)]'",
    "{v}+='a[$(touch pwned)]'",
    "for {v} in 'a[$(touch pwned)]'; do :; done",
    "read {v} <<< 'a[$(touch pwned)]'",
    "printf -v {v} %s 'a[$(touch pwned)]'",
    "declare {v}='a[$(touch pwned)]'",
    "export {v}='a[$(touch pwned)]'",
    "f(){{ local {v}='a[$(touch pwned)]'; }}; f",
    "mapfile {v} <<< 'a[$(touch pwned)]'",
    "{v}=1; {v}='a[$(touch pwned)]'",
)


def test_every_bash_variable_whose_assignment_runs_code_is_known(tmp_path: Path) -> None:
    """Differential: every variable bash itself defines (``compgen -v`` in a clean
    environment, and the dynamic ones that can be unset) is assigned code in every form the
    analysis models; each whose assignment runs the canary must be in the analysis' list."""
    names = subprocess.run(
        ["env", "-i", "bash", "-c", "compgen -v"], capture_output=True, text=True, check=True
    ).stdout.split()
    names = sorted({*names, "SRANDOM", "SECONDS", "LINENO", "EPOCHSECONDS", "BASH_ARGV0"})
    assert "RANDOM" in names
    running: set[str] = set()
    for name in names:
        script = "\n".join(
            f"( eval {_quote(form.format(v=name))} ) >/dev/null 2>&1; "
            f"if [ -e pwned ]; then echo ran; rm -f pwned; fi"
            for form in FORMS
        )
        done = subprocess.run(
            ["env", "-i", "bash", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=30,
        )
        if "ran" in done.stdout:
            running.add(name)
    assert running, "no variable ran the canary: the probe proves nothing"
    assert running <= ARITHMETIC_VARIABLES, sorted(running - ARITHMETIC_VARIABLES)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
