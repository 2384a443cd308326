"""Rebase and cherry-pick to-do lists (``sandbox.sequencer``): a planted ``exec`` line is
undone by the git watch (``redteam3/test_planted_sequencer.py`` runs that attack for real),
while the agent's own rebase or cherry-pick that stops on a conflict keeps its state, so the
user can go on with it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.sandbox.git_watch import Watch
from agent_tui.core.sandbox.sequencer import todo_runs_code
from tests.core.sandbox.test_git_origin_everyday import repo  # noqa: F401

SAFE_LIST = b"""pick 1a2b3c first
  p 4d5e6f second
# exec rm -rf ~   (a comment)
reword 777777 third
fixup -C 888888 fourth
label onto
reset onto
merge -C 999999 topic # Merge branch topic
update-ref refs/heads/x
break
drop aaaaaa
noop
"""


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b"exec touch /tmp/pwned", "exec"),
        (b"x touch /tmp/pwned", "exec"),
        (b"   \texec make", "exec"),
        (b"merge -s ours -C 1 topic", "strategy"),
        (b"merge --strategy=evil topic", "strategy"),
        (b"frobnicate 1a2b3c", "does not know"),
    ],
)
def test_a_line_that_runs_code_is_named(line: bytes, why: str) -> None:
    reason = todo_runs_code(SAFE_LIST + line + b"\n")
    assert reason is not None
    assert why in reason


def test_a_list_that_only_picks_runs_nothing() -> None:
    assert todo_runs_code(SAFE_LIST) is None


def test_only_new_lines_are_judged() -> None:
    before = b"pick 1 a\nexec make test\npick 2 b\n"
    assert todo_runs_code(b"exec make test\npick 2 b\n", before) is None  # git went on
    assert todo_runs_code(b"exec make test\nexec make test\n", before) is not None


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=None, check=False
    )


def _conflicting_branches(repo: Path) -> str:  # noqa: F811
    """Two commits on ``topic`` and one on the base branch (returned), all changing ``f``;
    ``topic`` checked out."""
    base = _git(repo, "branch", "--show-current").stdout.strip()
    (repo / "f").write_text("base\n")
    _git(repo, "add", "f")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "checkout", "-qb", "topic")
    for n in (1, 2):
        (repo / "f").write_text(f"topic {n}\n")
        _git(repo, "commit", "-qam", f"topic {n}")
    _git(repo, "checkout", "-q", base)
    (repo / "f").write_text("main\n")
    _git(repo, "commit", "-qam", "main")
    _git(repo, "checkout", "-q", "topic")
    return base


def test_a_rebase_stopped_by_a_conflict_keeps_its_state(repo: Path) -> None:  # noqa: F811
    base = _conflicting_branches(repo)
    watch = Watch(repo)
    before = watch.look()
    done = _git(repo, "rebase", base)
    assert done.returncode != 0  # stopped on the conflict
    todo = repo / ".git/rebase-merge/git-rebase-todo"
    assert todo.exists()
    assert watch.check(before) == []
    assert todo.exists()
    assert "rebase in progress" in _git(repo, "status").stdout


def test_a_cherry_pick_stopped_by_a_conflict_keeps_its_state(repo: Path) -> None:  # noqa: F811
    base = _conflicting_branches(repo)
    _git(repo, "checkout", "-q", base)
    watch = Watch(repo)
    before = watch.look()
    done = _git(repo, "cherry-pick", f"{base}..topic")
    assert done.returncode != 0
    assert (repo / ".git/sequencer/todo").exists()
    assert watch.check(before) == []
    assert (repo / ".git/sequencer/todo").exists()


def test_a_rebase_with_exec_that_stops_has_its_list_undone(repo: Path) -> None:  # noqa: F811
    base = _conflicting_branches(repo)
    watch = Watch(repo)
    before = watch.look()
    done = _git(repo, "rebase", "--exec", "touch ran", base)
    assert done.returncode != 0
    moved = watch.check(before)
    assert [m.path.name for m in moved] == ["git-rebase-todo"]
    _git(repo, "checkout", "-q", "--theirs", "f")
    _git(repo, "add", "f")
    _git(repo, "-c", "core.editor=true", "rebase", "--continue")
    assert not (repo / "ran").exists()
