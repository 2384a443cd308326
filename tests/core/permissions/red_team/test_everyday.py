"""Everyday commands stay allowed by the obvious rules — no needless asks — with the usual
deny rules in force (``rm``, ``curl``, ``read_file(.env)``) and a ``.env`` in the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, Step
from tests.core.permissions.red_team.harness import decide, make_lab, pipeline, rules

OBVIOUS = tuple(
    f"run_shell({r})"
    for r in (
        "git status:*",
        "git diff:*",
        "git log:*",
        "git show:*",
        "git branch:*",
        "git rev-parse:*",
        "git stash list:*",
        "git ls-files:*",
        "ls:*",
        "cat:*",
        "head:*",
        "tail:*",
        "wc:*",
        "echo:*",
        "printf:*",
        "grep:*",
        "rg:*",
        "find:*",
        "sort:*",
        "uniq:*",
        "cut:*",
        "tr:*",
        "diff:*",
        "jq:*",
        "pwd",
        "which:*",
        "du:*",
        "df:*",
        "date",
        "uname:*",
        "test:*",
        "true",
        "npm test:*",
        "npm run lint:*",
        "npm run build:*",
        "pytest:*",
        "python3 -m pytest:*",
        "make test:*",
        "make:*",
        "cargo test:*",
        "cargo build:*",
        "go test:*",
        "go vet:*",
        "sed -n:*",
        "awk:*",
        "xargs:*",
        "env:*",
        "basename:*",
        "dirname:*",
        "realpath:*",
    )
)

EVERYDAY = [
    "git status --short",
    "ls -la | head",
    "npm test -- --watch=false",
    "cd src && ls",
    'echo "a && b"',
    "git status 2>&1",
    "git diff --stat HEAD~1",
    "git log --oneline -10",
    'grep -rn "TODO" src',
    'find . -name "*.py" | wc -l',
    "cat README.md | head -50",
    "ls -la src/ 2>/dev/null",
    "python3 -m pytest -x tests/ > /dev/null 2>&1; echo $?",
    "git status && git diff",
    'echo "$HOME"',
    'for f in src/*.py; do wc -l "$f"; done',
    "cd src && git status --short",
    "git log -1 --format=%H",
    'rg -n "def main" --type py',
    "head -n 20 src/app.py",
    "sort README.md | uniq -c | sort -rn",
    "make test",
    "cargo test --all",
    "go test ./...",
    "npm run lint",
    "git show HEAD --stat",
    "du -sh .",
    "jq . package.json",
    "diff -u README.md src/app.py",
    "tr a-z A-Z < README.md",
    "ls | grep py",
    "[ -f setup.py ] && echo yes",
    "test -d src && ls src",
    "which python3",
    "pwd",
    "git rev-parse --show-toplevel",
    "git branch --show-current",
    "echo done; ls",
    "true",
    "git diff -- src/app.py",
    "npm test 2>&1 | tail -n 50",
    'git log --since="2 weeks ago" --oneline',
    'grep -c "import" src/*.py',
    "cat <<'EOF2'\nhello\nEOF2",
    "git stash list",
    "ls -1 | sort",
    "echo $(git rev-parse HEAD)",
    'pytest -q tests/test_x.py::test_y -k "a and not b"',
    "git log --format='%h %s' | head -5",
    "find src -type f -name '*.py' -newer README.md",
    "echo 'quoted; not && a command'",
    "ls src/*.py",
    "wc -l src/*.py | sort -n",
    "grep -rl \"foo\" --include='*.py' .",
    "git diff HEAD~3..HEAD --name-only | xargs -n1 basename",
    "env | sort",
    "uname -a && date",
    "npm run build > /dev/null 2>&1 && echo ok",
    "sed -n '1,20p' src/app.py",
    "awk '{print $1}' README.md | sort | uniq",
    "find . -maxdepth 2 -type d -not -path '*/.git*'",
    "realpath src && dirname src/app.py && basename src/app.py",
    "git ls-files | head",
    "cargo build --release 2>&1 | tail -3",
    "if [ -d src ]; then ls src; else echo none; fi",
]


def test_there_are_enough_everyday_commands() -> None:
    assert len(EVERYDAY) >= 40


@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.ACCEPT_EDITS], ids=["default", "accept-edits"])
@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_commands_are_allowed(tmp_path: Path, command: str, mode: Mode) -> None:
    lab = make_lab(tmp_path, "everyday")
    decision = decide(pipeline(lab, rules(allow=OBVIOUS), mode), "run_shell", {"command": command})
    assert decision.kind == "allow", decision
    assert decision.step is Step.ALLOW_RULE
    assert decision.understood
