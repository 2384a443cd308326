"""Everyday git stays allowed under the obvious rule (``run_shell(git log:*)`` for ``git log
…``), with the harness's deny rules in force — ``read_file(.env)`` among them — and the worst
case for them: ``.env`` committed. Options allow-listing and the read checks on committed
content must not make benign git ask. Commands that write the work tree are allowed in
accept-edits mode (and ask in default mode, where a write needs a rule)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, Step
from agent_tui.core.permissions.report import report
from agent_tui.core.tools.builtin import default_registry
from tests.core.permissions.red_team.harness import Lab, decide, home_of, make_lab, pipeline, rules

READING = [
    "git status",
    "git status -sb",
    "git status --porcelain",
    "git status --short --branch",
    "git log --oneline -n 5",
    "git log --oneline -10",
    "git log -1 --format=%H",
    "git log --format=%H -- src",
    "git log --graph --oneline --all -20",
    "git log --stat -3",
    'git log --since="1 week ago" --author=lab --oneline',
    'git log -5 --pretty=format:"%h %an %s"',
    "git log --oneline HEAD~1..HEAD",
    "git log -p -- src/app.py",
    "git log --follow -p -- src/app.py",
    "git log -n 3 --name-status",
    "git diff --stat",
    "git diff --name-only",
    "git diff --name-status HEAD~1",
    "git diff -- src/app.py",
    "git diff src/app.py",
    "git diff --cached --stat",
    "git diff HEAD --stat",
    "git diff --check -- src",
    "git diff HEAD~1 -- src/app.py",
    "git show --name-only HEAD",
    "git show --stat",
    "git show HEAD --stat",
    "git show HEAD:src/app.py",
    "git show HEAD~1:src/app.py",
    "git show -s --format=%ci HEAD",
    "git show --name-status HEAD~1",
    "git branch -a",
    "git branch --show-current",
    "git branch -vv",
    "git branch --list 'feat*'",
    "git branch --contains HEAD",
    "git tag -l",
    "git tag --list 'v*' --sort=-v:refname",
    "git remote -v",
    "git remote get-url origin",
    "git rev-parse HEAD",
    "git rev-parse --abbrev-ref HEAD",
    "git rev-parse --show-toplevel",
    "git rev-parse --short HEAD",
    "git ls-files",
    "git ls-files -m",
    "git ls-files --others --exclude-standard",
    "git ls-tree -r --name-only HEAD",
    "git describe --tags --always",
    "git shortlog -sn",
    "git stash list",
    "git blame -L 1,5 src/app.py",
    "git blame src/app.py",
    "git grep -n print -- src",
    "git grep -l print -- src/app.py",
    "git config user.name",
    "git config --get remote.origin.url",
    "git config --list --show-origin",
    "git count-objects -vH",
    "git merge-base HEAD HEAD~1",
    "git reflog -5",
    "git for-each-ref --format='%(refname:short)' refs/heads",
    "git show-ref --heads",
    "git symbolic-ref --short HEAD",
    "git name-rev HEAD",
    "git cat-file -t HEAD",
    "git cat-file -p HEAD",
    "git version",
    "git --version",
    "git --no-pager log -3 --oneline",
    "git -C src status --short",
    "cd src && git log --oneline -3",
    "git log --oneline | head -5",
    "git diff --stat && git status --short",
    "git add -A",
    "git add src/app.py",
    "git rm --cached src/notes.txt",
    'git commit -m "Fix the parser"',
    'git commit -am "Fix the parser"',
    "git checkout -b feature",
    "git switch -c feature",
    "git branch feature",
    "git tag v1.0",
    "git fsck",
    "git gc --auto",
    "git fetch --dry-run",
    "git help log",
]
"""Allowed in default mode (they read, or write only git's own bookkeeping)."""

WRITING = [
    "git stash",
    "git stash push -m wip",
    "git stash pop",
    "git switch master",
    "git checkout master",
    "git checkout -- src/app.py",
    "git restore src/app.py",
    "git reset --hard HEAD",
    "git merge --ff-only feature",
    "git mv src/notes.txt src/notes.md",
    "git cherry-pick --abort",
]
"""They write the work tree's files: allowed in accept-edits mode."""


def _lab(tmp_path: Path) -> Lab:
    lab = make_lab(tmp_path, "everyday")
    for args in (["add", "-f", ".env"], ["commit", "-qm", "env"]):
        subprocess.run(["git", *args], cwd=lab.root, env=lab.env, check=True)
    return lab


def _rules_for(command: str) -> tuple[str, ...]:
    """The obvious rule: ``run_shell(git SUB:*)`` for ``git SUB …`` (``run_shell(git:*)``
    when global options come first), and those of the other commands in the line."""
    out = ["run_shell(head:*)", "run_shell(git status:*)", "run_shell(git --version)"]
    for part in command.split("&&"):
        words = part.split()
        if words[:1] == ["git"] and len(words) > 1:
            if words[1].startswith("-"):
                out.append("run_shell(git:*)")
            else:
                out.append(f"run_shell(git {words[1]}:*)")
    return tuple(out)


@pytest.mark.parametrize("command", READING)
def test_everyday_git_is_allowed(tmp_path: Path, command: str) -> None:
    lab = _lab(tmp_path)
    with home_of(lab):
        decision = decide(
            pipeline(lab, rules(allow=_rules_for(command)), Mode.DEFAULT),
            "run_shell",
            {"command": command},
        )
    assert decision.kind == "allow", decision
    assert decision.step is Step.ALLOW_RULE


@pytest.mark.parametrize("command", WRITING)
def test_everyday_git_that_writes_the_work_tree(tmp_path: Path, command: str) -> None:
    lab = _lab(tmp_path)
    with home_of(lab):
        allowed = decide(
            pipeline(lab, rules(allow=_rules_for(command)), Mode.ACCEPT_EDITS),
            "run_shell",
            {"command": command},
        )
        asked = decide(
            pipeline(lab, rules(allow=_rules_for(command)), Mode.DEFAULT),
            "run_shell",
            {"command": command},
        )
    assert allowed.kind == "allow", allowed
    assert asked.kind == "ask", asked
    assert "write" in asked.reason, asked


UNCOMMITTED = [
    "git show",
    "git show HEAD",
    "git log -p",
    "git log -p -3 --all",
    "git diff HEAD",
    "git grep -n print HEAD",
    "git log -S print --oneline",
    "git blame -- src",
    "git stash show -p",
    "git format-patch -1 --stdout",
    "git push",
    "git push -u origin feature",
    "git push --force-with-lease origin HEAD",
]
"""They print (or send) committed content: allowed when no commit holds a protected file."""


@pytest.mark.parametrize("command", UNCOMMITTED)
def test_committed_content_is_allowed_when_no_commit_holds_a_protected_file(
    tmp_path: Path, command: str
) -> None:
    lab = make_lab(tmp_path, "clean")  # .env exists, but was never committed
    with home_of(lab):
        decision = decide(
            pipeline(lab, rules(allow=_rules_for(command)), Mode.DEFAULT),
            "run_shell",
            {"command": command},
        )
    assert decision.kind == "allow", decision


def test_there_are_enough_everyday_git_commands() -> None:
    assert len(READING) + len(WRITING) >= 90


def test_permissions_check_explains_an_option(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "check")
    tool = default_registry().get("run_shell")
    assert tool is not None
    with home_of(lab):
        p = pipeline(lab, rules(allow=("run_shell(git log:*)",), deny=()), Mode.DEFAULT)
        out = report(p, tool, {"command": "git log --output=x"})
        lines = "\n".join(out.lines())
        assert "git log --output  writes a file (x): asks" in lines, lines
        out = report(p, tool, {"command": "git grep -O'touch pwned' x"})
        lines = "\n".join(out.lines())
        assert "git grep -O  runs a program (a pager" in lines, lines
        out = report(p, tool, {"command": "git log --frobnicate"})
        lines = "\n".join(out.lines())
        assert "git log --frobnicate  an option the analysis does not know: asks" in lines
        assert out.as_json()["options"][0]["option"] == "git log --frobnicate"
