"""Everyday commands keep working (issue 37, method 11) — and the rigour that lets them.

1. A leading assignment of a variable outside the dangerous list does not make an allowed
   command ask (``CI=true npm test`` under ``run_shell(npm test:*)``). Inside the dangerous
   families an allow-list names the harmless ones (``PYTHONDONTWRITEBYTECODE``); any other
   member stays dangerous — proven with ``PYTHONUSERBASE`` (its ``.pth`` files run),
   ``GIT_EXTERNAL_DIFF`` and ``npm_config_script_shell`` — and names outside the families
   that carry options, modules or programs are dangerous by their ending
   (``PYTEST_ADDOPTS``, ``PYTEST_PLUGINS`` — proven — ``DJANGO_SETTINGS_MODULE``…).
2. With a read rule in force (``read_file(.env)``), a command asks only where the denied file
   could be read: ``find -name '*.py' | xargs grep``, ``find … -exec grep {} +``,
   ``wc -l $(git ls-files src)``, ``diff <(sort a) <(sort b)`` and code a rule names word for
   word are allowed. The listing is walked as it would print: a planted name that splitting
   would cut into ``.env`` (``x .env y.py``, a newline in a name), or a ``*.py`` symlink to
   ``.env`` (also under ``grep -R --include='*.py'``, whose filter applies to the link's own
   name), still asks — each proven to leak the secret when run bare.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import (
    ALLOW,
    CREATES,
    DENY,
    LEAKS,
    Attack,
    Lab,
    decide,
    home_of,
    make_lab,
    missing,
    pipeline,
    rules,
    run_bare,
    through_agent,
)

EVERYDAY_RULES = (
    *ALLOW,
    *(
        f"run_shell({r})"
        for r in (
            "npm test:*",
            "pytest:*",
            "python3 -m pytest:*",
            "date",
            "cargo test:*",
            "find:*",
            "xargs:*",
            "git ls-files:*",
            "git diff:*",
            "git show:*",
            "sed:*",
            "head:*",
            "diff:*",
            "python3 -c 'print(1)':*",
            "node -e 'console.log(1)':*",
        )
    ),
)

LEADING_VARIABLES = (
    "CI=true npm test",
    "NODE_ENV=test npm test",
    "FORCE_COLOR=0 npm test",
    "PYTHONDONTWRITEBYTECODE=1 pytest",
    "LANG=C sort src/notes.txt",
    "LC_ALL=C sort src/notes.txt",
    "TZ=UTC date",
    "DEBUG=1 npm test",
    "RUST_BACKTRACE=1 cargo test",
    "NO_COLOR=1 npm test",
    "COLUMNS=200 ls",
    # ours
    "PYTHONUNBUFFERED=1 pytest -q",
    "GIT_TERMINAL_PROMPT=0 git status --short",
    "CARGO_TERM_COLOR=never cargo test",
    "HYPOTHESIS_PROFILE=ci pytest -x",
    "TERM=dumb git log --oneline -5",
    "LANG=C.UTF-8 LC_ALL=C.UTF-8 sort src/notes.txt",
    "CI=1 npm test -- --watch=false",
    "NODE_ENV=production FORCE_COLOR=0 npm test",
)

READS = (
    "find . -name '*.py' | xargs grep foo",
    "wc -l $(git ls-files src)",
    "diff <(sort src/notes.txt) <(sort src/app.py)",
    "python3 -c 'print(1)'",
    # ours
    "find src -name '*.py' -exec grep -l foo {} +",
    "find src -name '*.py' -exec grep -l foo {} \\;",
    "find src -type f -name '*.txt' -print0 | xargs -0 wc -l",
    "cat $(find src -name '*.py')",
    'grep -c foo "$(git ls-files src/app.py)"',
    "find . -maxdepth 3 -iname '*.PY' | xargs -n 20 grep -n def",
    "git ls-files src | xargs wc -l",
    "diff <(git show HEAD:src/app.py) src/app.py",
    "find . -name '*.py' | sort | xargs grep foo",
    "git ls-files src | head -5 | xargs wc -l",
    "node -e 'console.log(1)'",
)


@pytest.mark.parametrize("command", LEADING_VARIABLES)
@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.ACCEPT_EDITS], ids=["default", "accept-edits"])
def test_harmless_leading_variables_do_not_make_an_allowed_command_ask(
    tmp_path: Path, command: str, mode: Mode
) -> None:
    lab = make_lab(tmp_path, "vars")
    ruleset = rules(allow=EVERYDAY_RULES)
    decision = decide(pipeline(lab, ruleset, mode), "run_shell", {"command": command})
    assert decision.kind == "allow", decision


@pytest.mark.parametrize("command", READS)
def test_a_read_rule_asks_only_where_the_file_could_be_read(tmp_path: Path, command: str) -> None:
    lab = make_lab(tmp_path, "reads")
    assert "read_file(.env)" in DENY
    assert (lab.root / ".env").exists()
    ruleset = rules(allow=EVERYDAY_RULES)
    decision = decide(pipeline(lab, ruleset, Mode.DEFAULT), "run_shell", {"command": command})
    assert decision.kind == "allow", decision


STILL_ASKS = (
    "find . | xargs grep foo",  # .env is among what find prints
    "find . -name '.env*' | xargs cat",
    "wc -l $(git ls-files)",  # the whole tree: .env and config/.env
    "find . -name '*.py' -o -name x | xargs grep foo",  # -o: not modelled
    "find -L . -name '*.py' | xargs grep foo",  # follows links: not modelled
    "find . -name '*.py' | xargs -d , grep foo",  # another delimiter
    "find . -name '*.py' -print0 | xargs grep foo",  # NULs read as blanks
    "cat $(cat src/notes.txt)",  # not a listing
    "wc -l $(git -C src ls-files)",  # names relative to another directory
    "wc -l $(git ls-files -z src)",  # NULs dropped: names run together
    "python3 -c 'print(2)'",  # code no rule names
    "cd src && cat $(git ls-files ..)",
)


@pytest.mark.parametrize("command", STILL_ASKS)
def test_where_the_file_could_be_read_it_still_asks(tmp_path: Path, command: str) -> None:
    lab = make_lab(tmp_path, "asks")
    ruleset = rules(allow=(*EVERYDAY_RULES, "run_shell(cd:*)"))
    decision = decide(pipeline(lab, ruleset, Mode.BYPASS), "run_shell", {"command": command})
    assert decision.kind == "ask", decision
    assert decision.every_mode, decision


# -- attacks on a planted tree --------------------------------------------------------------


def _spaced(lab: Lab) -> None:
    (lab.root / "x .env y.py").write_text("")


def _newline(lab: Lab) -> None:
    (lab.root / "src" / "a\n.env\n.py").write_text("")


def _linked(lab: Lab) -> None:
    (lab.root / "src" / "link.py").symlink_to(lab.root / ".env")


def _spaced_txt(lab: Lab) -> None:
    (lab.root / "src" / "a .env").write_text("")


def _tracked_spaced(lab: Lab) -> None:
    (lab.root / "src" / "b .env").write_text("")
    env = {**lab.env}
    subprocess.run(["git", "-C", str(lab.root), "add", "src"], check=True, env=env)
    subprocess.run(["git", "-C", str(lab.root), "commit", "-qm", "b"], check=True, env=env)


def _user_site(lab: Lab) -> None:
    version = subprocess.run(
        ["python3", "-c", "import sys; print('python%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    site = lab.root / "ub" / "lib" / version / "site-packages"
    site.mkdir(parents=True)
    (site / "x.pth").write_text("import os; open(os.path.join(os.getcwd(), 'pwned'), 'w')\n")


def _changed(lab: Lab) -> None:
    (lab.root / "src" / "app.py").write_text("print('changed')\n")


def _dotted(lab: Lab) -> None:
    (lab.root / "src" / "a.env.py").write_text("")


def _plugin(lab: Lab) -> None:
    (lab.root / "evilplug.py").write_text("open('pwned', 'w')\n")


def _package(lab: Lab) -> None:
    (lab.root / "package.json").write_text('{"scripts": {"test": "echo hi"}}\n')


PLANTED: list[tuple[Attack, Callable[[Lab], None]]] = [
    (Attack("find . -name '*.py' | xargs grep TOKEN", LEAKS), _spaced),
    (Attack("find src -name '*.py' | xargs grep TOKEN", LEAKS), _newline),
    (Attack("find src -name '*.py' | xargs grep TOKEN", LEAKS), _linked),
    (Attack("find src -name '*.py' -exec grep TOKEN {} +", LEAKS), _linked),
    (Attack("grep -R --include='*.py' TOKEN src", LEAKS), _linked),
    (Attack("find src -name '*.py' | grep -o '\\.env' | xargs cat", LEAKS), _dotted),
    (Attack("find src -name '*.py' | sed 's/.*\\(\\.env\\).*/\\1/' | xargs cat", LEAKS), _dotted),
    (Attack("cat $(find src -type f)", LEAKS), _spaced_txt),
    (Attack("grep TOKEN $(git ls-files src)", LEAKS), _tracked_spaced),
    (Attack("git ls-files src | xargs grep TOKEN", LEAKS), _tracked_spaced),
    (Attack("PYTHONUSERBASE=ub python3 -c 'print(1)'", CREATES), _user_site),
    (Attack("GIT_EXTERNAL_DIFF=./evil.sh git diff", CREATES), _changed),
    (Attack("npm_config_script_shell=./evil.sh npm test", CREATES, ("npm",)), _package),
    (Attack("PYTEST_PLUGINS=evilplug python3 -m pytest --co -q", CREATES), _plugin),
    (Attack("PYTEST_ADDOPTS='-p evilplug' python3 -m pytest --co -q", CREATES), _plugin),
]


@pytest.mark.parametrize(("attack", "plant"), PLANTED, ids=lambda x: getattr(x, "id", ""))
async def test_planted_names_and_dangerous_family_members_never_run(
    tmp_path: Path, attack: Attack, plant: Callable[[Lab], None]
) -> None:
    ruleset = rules(allow=EVERYDAY_RULES)
    judged = make_lab(tmp_path, "judged")
    plant(judged)
    with home_of(judged):
        decision = decide(
            pipeline(judged, ruleset, Mode.BYPASS), "run_shell", {"command": attack.command}
        )
    assert decision.kind == "ask", decision
    assert decision.every_mode, decision
    if not missing(attack.needs):
        bare = make_lab(tmp_path, "bare")
        plant(bare)
        output = run_bare(bare, attack.command)
        assert attack.effect.seen(bare, bare.digest(), output), output[-500:]
    lab = make_lab(tmp_path, "agent")
    plant(lab)
    with home_of(lab):
        outcome = await through_agent(
            lab, pipeline(lab, ruleset, Mode.BYPASS), "run_shell", {"command": attack.command}
        )
    assert not outcome.ran, outcome.text[-300:]
    assert not attack.effect.seen(lab, lab.digest(), outcome.text)
