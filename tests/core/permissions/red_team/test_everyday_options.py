"""Everyday uses of the programs that now have option tables stay allowed by the obvious rules
(with the usual deny rules and a ``.env`` in the project): the tables allow-list options
without making benign commands ask. The writing ones run in accept-edits. (``find … | xargs
grep`` and ``-exec grep {} +`` still ask while a read rule is in force: the files are named
only at run time; that is issue 37's point 11, not the tables'.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, Step
from tests.core.permissions.red_team.harness import decide, make_lab, pipeline, rules
from tests.core.permissions.red_team.test_everyday import OBVIOUS

MORE_RULES = tuple(
    f"run_shell({r})"
    for r in (
        "sed:*",
        "awk:*",
        "gawk:*",
        "python -m pytest:*",
        "python3 -m pytest:*",
        "ls:*",
        "tar:*",
        "gzip:*",
        "zcat:*",
        "xxd:*",
        "od:*",
        "stat:*",
        "file:*",
        "sha256sum:*",
        "column:*",
        "comm:*",
        "paste:*",
        "nl:*",
        "date:*",
        "base64:*",
        "man:*",
        "less:*",
        "perl:*",
        "ssh:*",
        "cp:*",
        "mv:*",
        "pip list:*",
        "pip show:*",
        "pip install:*",
        "npm run:*",
        "npm install:*",
        "split:*",
    )
)

EVERYDAY = [
    "sed -n '1,20p' src/app.py",
    "sed -n '/def /p' src/app.py",
    "sed 's/foo/bar/g' src/app.py | head",
    "sed -E 's/([0-9]+)/<\\1>/g' src/notes.txt",
    "sed -e '/^#/d' -e '/^$/d' src/app.py",
    "sed '$!N;s/\\n/ /' src/notes.txt",
    "awk '{print $1}' src/notes.txt",
    "awk -F: '{print $1}' /etc/passwd",
    "awk -F, -v OFS=, '{print $2, $1}' src/notes.txt",
    "awk 'NR % 2 == 0' src/notes.txt",
    "awk '$1 > 5 {n++} END {print n}' src/notes.txt",
    "awk '{ sum += $2 } END { printf \"%.2f\\n\", sum / NR }' src/notes.txt",
    "awk 'length($0) > 80 {print FILENAME \": \" FNR}' src/app.py",
    "awk '/def/ {print $2}' src/app.py | sort -u",
    "python -m pytest -q -x tests",
    "python3 -m pytest -q tests/test_x.py -k 'a and not b' --tb=short",
    "python -m pytest -n auto -p no:cacheprovider tests",
    "pytest -q -x --lf",
    "pytest -vv -s -m 'not slow' tests",
    "find . -name '*.py' | head",
    "find src -type f -newer README.md -print",
    "find . -path ./node_modules -prune -o -name '*.js' -print",
    "find . -name '*.txt' -exec echo found {} \\;",
    "sort -u src/notes.txt",
    "sort -t, -k2,2n -k1 src/notes.txt",
    "sort -rn src/notes.txt | head -5",
    "jq .name package.json",
    "jq -r '.dependencies | keys[]' package.json",
    "jq -c '.[] | select(.env == \"prod\")' data.json",
    "jq --arg v 1 '.version = $v' package.json",
    "ls -lah --group-directories-first src",
    "ls -1t | head -3",
    "head -n 5 src/app.py",
    "tail -n +2 src/notes.txt",
    "tail -20 src/notes.txt",
    "wc -l src/*.py",
    "grep -rn --include='*.py' 'import' src",
    "grep -E -o '[0-9]+' src/notes.txt",
    "cut -d: -f1 /etc/passwd | sort | uniq -c",
    "tr -s ' ' < src/notes.txt",
    "diff -u src/app.py src/notes.txt",
    "tar -tzf archive.tgz",
    "tar -xzf archive.tgz -C build",
    "zcat log.gz | head",
    "gzip -dc log.gz | tail",
    "xxd src/app.py | head",
    "od -c src/notes.txt | head",
    "stat -c '%s %n' src/app.py",
    "file src/app.py",
    "sha256sum src/app.py",
    "column -t -s, data.csv",
    "date -u +%Y-%m-%dT%H:%M:%SZ",
    "base64 -d payload.b64",
    "man -P cat ls | head",
    "less -R src/notes.txt",
    "perl script.pl src/notes.txt",
    "ssh -o BatchMode=yes -o ConnectTimeout=5 host uptime",
    "cp -r src build",
    "mv -n src/notes.txt src/old-notes.txt",
    "pip list --outdated",
    "pip show -f pytest",
    "pip install -r requirements.txt",
    "pip install -e .",
    "npm run build -- --watch=false",
    "npm install --save-dev --no-audit typescript",
    "split -l 100 src/notes.txt parts/chunk-",
]
"""``man -P cat`` names a pager: it asks (below, not here)."""

NOT_EVERYDAY = {"man -P cat ls | head"}


@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.ACCEPT_EDITS], ids=["default", "accept-edits"])
@pytest.mark.parametrize("command", [c for c in EVERYDAY if c not in NOT_EVERYDAY])
def test_everyday_option_commands_are_allowed(tmp_path: Path, command: str, mode: Mode) -> None:
    lab = make_lab(tmp_path, "everyday")
    writes = command.startswith(("cp ", "mv ", "split ", "tar -x"))  # tar -x: its members
    decision = decide(
        pipeline(lab, rules(allow=(*OBVIOUS, *MORE_RULES)), mode), "run_shell", {"command": command}
    )
    if writes and mode is Mode.DEFAULT:
        assert decision.kind == "ask", decision  # a write: default mode asks, as always
        return
    assert decision.kind == "allow", decision
    assert decision.step is Step.ALLOW_RULE
    assert decision.understood


def test_sed_in_place_runs_in_accept_edits_and_asks_in_default(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "everyday")
    command = {"command": "sed -i 's/a/b/' src/notes.txt"}
    allow = rules(allow=(*OBVIOUS, *MORE_RULES))
    assert decide(pipeline(lab, allow, Mode.ACCEPT_EDITS), "run_shell", command).kind == "allow"
    assert decide(pipeline(lab, allow, Mode.DEFAULT), "run_shell", command).kind == "ask"


def test_a_pager_named_on_the_command_line_asks(tmp_path: Path) -> None:
    """``man -P cat`` is harmless, but the analysis does not tell pagers apart: it asks (man
    already prints without a pager when its output is not a terminal: ``man ls | head``)."""
    lab = make_lab(tmp_path, "everyday")
    allow = rules(allow=(*OBVIOUS, *MORE_RULES))
    decision = decide(pipeline(lab, allow, Mode.DEFAULT), "run_shell", {"command": "man -P cat ls"})
    assert decision.kind == "ask"
    ok = decide(pipeline(lab, allow, Mode.DEFAULT), "run_shell", {"command": "man ls | head"})
    assert ok.kind == "allow"
