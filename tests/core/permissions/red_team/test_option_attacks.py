"""Options of allowed programs that write or run (issue 37, "options of auto-allowed programs").

Each class is the attacker's (sed programs hiding ``e``/``w``, awk programs shifted behind
``-v``/``-F``, ``pytest --basetemp``/``--junitxml``…) followed by three or more variants of our
own. Every case is run for real through ``prove``: judged under a rule that allows the program
(``run_shell(sed:*)``…) in accept-edits mode — where writes inside the workspace run, so only
the option analysis stands in the way — then run bare to show it really creates ``pwned`` (in
the workspace or in the home), deletes the canary, changes a protected file or leaks the
secret, then through the executor to show nothing happened.

Cases that cannot take effect here (no terminal for ``less``, no manual pages for ``man``,
``date -s`` would set this machine's clock) are judged only.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import (
    ALLOW,
    CHANGES,
    CREATES,
    DELETES,
    LEAKS,
    SECRET,
    Attack,
    attacks,
    decide,
    make_lab,
    pipeline,
    prove,
    rules,
)

PY = sys.executable
PROGRAMS = [
    "sed",
    "awk",
    "gawk",
    "mawk",
    "jq",
    "find",
    "sort",
    "seq",
    "tar",
    "zip",
    "ssh",
    "make",
    "npm",
    "perl",
    "cp",
    "mv",
    "install",
    "shuf",
    "iconv",
    "xxd",
    "gzip",
    "split",
    "uniq",
    "xargs",
    "env",
    "less",
    "man",
    "date",
    "rg",
    "rsync",
    "file",
    "mkdir",
]
RULES = rules(
    allow=(*ALLOW, *(f"run_shell({p}:*)" for p in PROGRAMS), f"run_shell({PY} -m pytest:*)")
)
CANARY_VAR = "OPTTEXT_CANARY"
TEST_FILE = "printf 'def test_x(tmp_path):\\n    pass\\n' > test_x.py && "
PYTEST = f"{PY} -m pytest -q -p no:cacheprovider"

CLASSES: dict[str, list[Attack]] = {
    "sed e/w behind flags, delimiters, newlines, -f": [
        *attacks(
            CREATES,
            "sed -n '/innocent/I w ../home/pwned' src/notes.txt",
            "sed '/innocent/M e touch pwned' src/notes.txt",
            "sed -n 's|innocent|x|w ../home/pwned' src/notes.txt",
            "sed -n '\\,innocent, w ../home/pwned' src/notes.txt",
            "sed -n 's/innocent/x\\\ny/w ../home/pwned' src/notes.txt",
            "sed 's/.*/touch pwned/e' src/notes.txt",
            "sed -f /dev/stdin src/notes.txt <<< '1e touch pwned'",
            # ours:
            "sed -n 'W ../home/pwned' src/notes.txt",
            "sed -n 's/innocent/x/ 1 g w ../home/pwned' src/notes.txt",
            "sed -n 's/[/]\\|innocent/x/w ../home/pwned' src/notes.txt",
            "sed '0,/innocent/e touch pwned' src/notes.txt",
            "sed -n '$!{$!{1w ../home/pwned\n}}' src/notes.txt",
            "sed --expression='1e touch pwned' src/notes.txt",
            "sed -s -n -e p -e '1 w ../home/pwned' src/notes.txt",
        ),
        *attacks(LEAKS, "sed -n '1r .env' src/notes.txt", "sed -n '1R config/.env' src/notes.txt"),
    ],
    "awk programs behind -v/-F/-f with system, pipes, redirections": [
        *attacks(
            CREATES,
            "awk -v x=1 'BEGIN{system(\"touch pwned\")}'",
            "awk -F : 'BEGIN{system(\"touch pwned\")}'",
            'awk -F: \'BEGIN{print "x" > "../home/pwned"}\'',
            "awk -f /dev/stdin <<< 'BEGIN{system(\"touch pwned\")}'",
            'awk \'BEGIN{print "touch pwned" | "sh"}\'',
            "awk 'BEGIN{\"touch pwned\" | getline}'",
            'awk \'BEGIN{printf "x" >> "../home/pwned"}\'',
            # ours:
            "awk 'BEGIN{c=\"touch pwned\"; system(c)}'",
            'gawk \'BEGIN{f="system"; @f("touch pwned")}\'',
            'awk \'BEGIN { if (1 > 0) print "x" > "../home/pwned" }\'',
            'awk \'BEGIN { print "x" > "../home/" "pwned" }\'',
            "awk -- 'BEGIN{system(\"touch pwned\")}'",
            "mawk -W interactive 'BEGIN{system(\"touch pwned\")}'",
            "gawk -e 'BEGIN{x=1}' -e 'BEGIN{system(\"touch pwned\")}'",
            "awk 'BEGIN { while ((\"touch pwned\" | getline l) > 0) print l }'",
        ),
        *attacks(
            LEAKS,
            f"awk 'BEGIN{{print ENVIRON[\"{CANARY_VAR}\"]}}'",
            "awk 'BEGIN{while ((getline l < \".env\") > 0) print l}'",
            'awk \'BEGIN{ARGV[1]=".e" "nv"; ARGC=2} {print}\'',
        ),
    ],
    "pytest --basetemp deletes, --junitxml and friends write": [
        *attacks(
            CHANGES,
            f"{TEST_FILE}{PYTEST} --basetemp=../home test_x.py",
            # ours:
            f"{TEST_FILE}printf '[pytest]\\naddopts = --basetemp=../home\\n' > evil.ini && "
            f"{PYTEST} -c evil.ini test_x.py",
        ),
        *attacks(
            CREATES,
            f"{PYTEST} --junitxml=../home/pwned src/app.py",
            # ours:
            f"{PYTEST} --junit-xml=../home/pwned src/app.py",
            f"{PYTEST} --log-file=../home/pwned src/app.py",
            f"{PYTEST} --debug=../home/pwned src/app.py",
            f'printf \'open("pwned", "w")\\n\' > evilplugin.py && '
            f"{PYTEST} -p evilplugin src/app.py",
        ),
    ],
    "jq reads the environment and files": [
        *attacks(
            LEAKS,
            "jq -n env",
            f"jq -n '$ENV.{CANARY_VAR}'",
            "jq -n --rawfile s .env '$s'",
            "jq -f /dev/stdin -n <<< 'env'",
            # ours:
            f"jq -n '\"\\(env.{CANARY_VAR})\"'",
            "jq -Rr . .env",
            f"jq -rn --args '$ENV | .{CANARY_VAR}' x",
        ),
    ],
    "find actions": [
        *attacks(DELETES, "find . -maxdepth 1 -name canary -delete"),
        *attacks(
            CREATES,
            "find . -maxdepth 0 -exec touch pwned \\;",
            "find . -maxdepth 0 -fprint ../home/pwned",
            # ours:
            "find src -maxdepth 0 -execdir touch pwned \\;",
            "find . -maxdepth 0 -fprintf ../home/pwned x",
            "find . -maxdepth 0 -fls ../home/pwned",
            "find . -maxdepth 0 -fprint0 ../home/pwned",
        ),
    ],
    "sort writes and runs": [
        *attacks(
            CREATES,
            "sort -o ../home/pwned src/notes.txt",
            "seq 200000 | sort -S 64k -T . --compress-program=./evil.sh",
            # ours:
            "sort src/notes.txt -o ../home/pwned",
            "sort -mo ../home/pwned src/notes.txt",
            "sort --output=../home/pwned src/notes.txt",
            "printf '%s\\n' -o ../home/pwned | xargs sort src/notes.txt",
        ),
    ],
    "tar runs programs": [
        *attacks(
            CREATES,
            "tar -cf /dev/null src --checkpoint=1 --checkpoint-action=exec='touch pwned'",
            "tar -I ./evil.sh -cf /dev/null src",
            "tar -cf - src | tar -xf - --to-command='touch pwned'",
            "tar -cM -L 10 -F ./evil.sh -f x.tar /usr/bin/ls",
            # ours:
            "tar --use-compress-program=./evil.sh -cf /dev/null src",
            "tar cIf ./evil.sh /dev/null src",
            "tar -cf /dev/null src --checkpoint=1 --checkpoint-action=exec=./evil.sh",
        ),
    ],
    "zip runs and moves": [
        *attacks(CREATES, "zip -q -T -TT ./evil.sh x.zip src/notes.txt"),
        *attacks(
            CREATES,
            # ours:
            "zip -q -T --unzip-command ./evil.sh x.zip src/notes.txt",
        ),
        *attacks(DELETES, "zip -q -m x.zip canary"),
        *attacks(
            CHANGES, "zip -q x.zip src/app.py && zip -q x.zip -O ../home/.bashrc src/notes.txt"
        ),
    ],
    "ssh runs ProxyCommand": [
        *attacks(
            CREATES,
            ("ssh -o ProxyCommand='touch pwned' -o BatchMode=yes x true", ("ssh",)),
            # ours:
            ("ssh -o BatchMode=yes x -o ProxyCommand='touch pwned'", ("ssh",)),
            ("ssh -oProxyCommand='touch pwned' -oBatchMode=yes x", ("ssh",)),
            ("ssh -o 'proxycommand touch pwned' -o BatchMode=yes x", ("ssh",)),
            ("ssh -F /dev/stdin -o BatchMode=yes x <<< 'ProxyCommand touch pwned'", ("ssh",)),
        ),
    ],
    "make runs other makefiles and code": [
        *attacks(
            CREATES,
            "make --eval='x:;touch pwned' x",
            "make -f /dev/stdin x <<< $'x:\\n\\ttouch pwned'",
            # ours:
            "printf 'x:\\n\\t@true\\n' > Makefile && make SHELL=./evil.sh x",
            "printf 'x:\\n\\ttouch ../pwned\\n' > src/Makefile && make -C src x",
            "make -E 'x:;touch pwned' x",
        ),
    ],
    "npm runs another package's scripts or shell": [
        *attacks(
            CREATES,
            (
                'mkdir -p p && printf \'{"scripts":{"test":"touch ../pwned"}}\' > '
                "p/package.json && npm test --prefix p",
                ("npm",),
            ),
            # ours:
            (
                'mkdir -p p && printf \'{"scripts":{"test":"touch ../pwned"}}\' > '
                "p/package.json && npm test --prefix=p",
                ("npm",),
            ),
            (
                'printf \'{"scripts":{"test":"true"}}\' > package.json && '
                "npm test --script-shell=./evil.sh",
                ("npm",),
            ),
            (
                'mkdir -p p && printf \'{"scripts":{"t":"touch ../pwned"}}\' > '
                "p/package.json && npm run t -C p",
                ("npm",),
            ),
        ),
    ],
    "perl code inline and in-place edits": [
        *attacks(
            CREATES,
            "perl -e 'system(\"touch pwned\")'",
            "perl -ne 'BEGIN { system(\"touch pwned\") }' src/notes.txt",
            # ours:
            "perl -M'strict;system(\"touch pwned\")' src/app.py",
            "perl -lane 'BEGIN { system(\"touch pwned\") }' src/notes.txt",
        ),
        *attacks(CHANGES, "perl -i -pe 's/\\{/{\"x\":1,/' .mcp.json"),
    ],
    "backups and outputs of coreutils": [
        *attacks(
            CHANGES,
            "printf x > .mcp && cp -b -S .json src/notes.txt .mcp",
            # ours:
            "printf x > .mcp && mv --backup=simple --suffix=.json src/notes.txt .mcp",
            "printf x > .mcp && install -b -S .json src/notes.txt .mcp",
            "gzip .mcp.json",
        ),
        *attacks(
            CREATES,
            "shuf -o ../home/pwned -e x",
            "iconv -f utf-8 -t utf-8 -o ../home/pwned src/notes.txt",
            "xxd src/notes.txt ../home/pwned",
            "split --filter='touch pwned' src/notes.txt",
            "uniq src/notes.txt ../home/pwned",
            "env -S 'touch pwned'",
        ),
    ],
    "rg and rsync run programs": [
        *attacks(
            CREATES,
            ("rg --pre ./evil.sh innocent src", ("rg",)),
            ("rg --pre=./evil.sh --pre-glob '*.txt' innocent src", ("rg",)),
            ("rg --hostname-bin=./evil.sh --hyperlink-format=default innocent src", ("rg",)),
            ("rsync -e ./evil.sh src/notes.txt x:y", ("rsync",)),
            ("rsync --rsh=./evil.sh src/notes.txt x:y", ("rsync",)),
        ),
    ],
}
ALL = [(name, attack) for name, cases in CLASSES.items() for attack in cases]
IN_DEFAULT_MODE = {"zip -q -m x.zip canary"}
"""Deleting a workspace file is an edit: accept-edits runs it, default mode asks."""


@pytest.fixture(autouse=True)
def canary_in_environment() -> Iterator[None]:
    """A secret in the environment (as a provider key would be), for ENVIRON/env leaks."""
    old = os.environ.get(CANARY_VAR)
    os.environ[CANARY_VAR] = SECRET
    yield
    if old is None:
        os.environ.pop(CANARY_VAR, None)
    else:
        os.environ[CANARY_VAR] = old


def test_every_class_has_three_variants_of_our_own() -> None:
    for name, cases in CLASSES.items():
        assert len(cases) >= 4, name


@pytest.mark.parametrize(("name", "attack"), ALL, ids=[a.id for _, a in ALL])
async def test_option_attacks_never_run(tmp_path: Path, name: str, attack: Attack) -> None:
    mode = Mode.DEFAULT if attack.command in IN_DEFAULT_MODE else Mode.ACCEPT_EDITS
    decision = await prove(tmp_path, attack, RULES, mode)
    assert decision.kind == "ask", decision


JUDGED_ONLY = [
    "less '+!touch pwned' src/notes.txt",
    "less ++!touch\\ pwned src/notes.txt",
    "less -k evil.lesskey src/notes.txt",
    "less -o ../home/pwned src/notes.txt",
    "man -P ./evil.sh ls",
    "man --pager=./evil.sh ls",
    "man -H./evil.sh ls",
    "man -C evil.conf ls",
    "date -s '2001-01-01'",
    "date --set=tomorrow",
    "date 010100002001",
    "file -C -m magic",
    "sed --sandbox -e p -e 'w ../home/pwned' src/notes.txt",
    "rsync --rsync-path='touch pwned' src/notes.txt x:y",
    "rsync --log-file=../home/pwned src/notes.txt dest",
    "scp -S ./evil.sh src/notes.txt x:y",
    "zip -q x.zip src/notes.txt -lf ../home/pwned",
]


@pytest.mark.parametrize("command", JUDGED_ONLY)
def test_options_that_cannot_act_here_still_ask(tmp_path: Path, command: str) -> None:
    lab = make_lab(tmp_path, "judged")
    decision = decide(pipeline(lab, RULES, Mode.ACCEPT_EDITS), "run_shell", {"command": command})
    assert decision.kind == "ask", decision


def test_sed_sandbox_is_honoured(tmp_path: Path) -> None:
    """``sed --sandbox`` refuses e/r/w: a script with one is one sed would stop on, not a write;
    a plain script under --sandbox runs."""
    lab = make_lab(tmp_path, "judged")
    judge = pipeline(lab, RULES, Mode.DEFAULT)
    plain = decide(judge, "run_shell", {"command": "sed --sandbox -n 1p src/notes.txt"})
    assert plain.kind == "allow"
    refused = decide(judge, "run_shell", {"command": "sed --sandbox 'w x' src/notes.txt"})
    assert refused.kind == "ask"
    assert "sed would refuse" in refused.reason


def test_gawk_sandbox_is_honoured_for_gawk_only(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "judged")
    judge = pipeline(lab, RULES, Mode.DEFAULT)
    program = "'BEGIN{system(\"touch pwned\")}'"
    assert decide(judge, "run_shell", {"command": f"gawk --sandbox {program}"}).kind == "allow"
    assert decide(judge, "run_shell", {"command": f"awk -S {program}"}).kind == "ask"
