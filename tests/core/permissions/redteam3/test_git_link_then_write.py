"""A link a branch holds, checked out and written through in one command (redteam3): the
repository ships a branch whose tree has ``h -> .git/hooks``; ``git checkout evil && echo …
>> h/pre-commit`` — the checkout makes the link, the write goes through it into the user's
executable hook, run by their next ``git commit``. The judge saw ``./h/pre-commit``, a new
file. Accept-edits with ``run_shell(git:*)`` and ``run_shell(echo:*)``; bypass; sandbox off.
Now every link any commit holds is an alias of an unknown place for the writes of a command
that also writes git's work tree (``link_writes.committed_links``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import Lab, rules
from tests.core.permissions.redteam3.lab import Case, judged, prove, user_git

RULES = ("run_shell(git:*)", "run_shell(echo:*)")
COMMIT = user_git("", "commit", "-q", "--allow-empty", "-m", "y")


def _branch_with_link(lab: Lab) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=lab.root, env=lab.env, check=True, capture_output=True)

    (lab.root / ".git/hooks/pre-commit").chmod(0o755)  # the user's own hook
    git("checkout", "-q", "-b", "evil")
    os.symlink(".git/hooks", lab.root / "h")
    git("add", "h")
    git("commit", "-qm", "a link")
    git("checkout", "-q", "-")


PLANT = "echo 'touch pwned' >> h/pre-commit"
CASES = {
    "checkout": f"git checkout -q evil && {PLANT}",
    "switch": f"git switch -q evil && {PLANT}",
    "restore --source": f"git restore --source=evil -- h && {PLANT}",
    "checkout REV -- h": f"git checkout evil -- h && {PLANT}",
    "reset --hard": f"git reset -q --hard evil && {PLANT}",
}
MODES = {"accept-edits+rules": (Mode.ACCEPT_EDITS, RULES), "bypass": (Mode.BYPASS, ())}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
async def test_a_write_through_a_link_git_checks_out_asks(
    tmp_path: Path, name: str, mode: str
) -> None:
    which, allow = MODES[mode]
    case = Case(CASES[name], _branch_with_link, COMMIT)
    await prove(tmp_path, case, rules(allow=allow, deny=()), which)


@pytest.mark.parametrize(
    "command",
    ["git checkout -q -b feature && echo x > notes.txt", "git checkout -q evil", "git stash list"],
)
def test_everyday_git_writes_stay_allowed(tmp_path: Path, command: str) -> None:
    decision = judged(
        tmp_path, Case(command, _branch_with_link), rules(allow=RULES, deny=()), Mode.ACCEPT_EDITS
    )
    assert decision.kind == "allow", decision
