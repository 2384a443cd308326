"""A read-denied file's committed content, through a path limit that does not limit the diff
(redteam3): with ``read_file(.env)`` denied and ``.env`` committed alongside ``app.txt``,
``git log -p --full-diff -- app.txt`` prints every change of the commits that touch
``app.txt`` — ``.env``'s included — and ``git log -p --follow -- app.txt`` follows the file
to its earlier name. The judge took the path as limiting what is printed. Default mode with
``run_shell(git log:*)``; sandbox off and on (the sandbox hides ``.env``, not the objects)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from tests.core.permissions.red_team.harness import (
    SECRET,
    Lab,
    home_of,
    make_lab,
    pipeline,
    rules,
    run_bare,
    through_agent,
)
from tests.core.permissions.redteam3.lab import Case, judged, through_sandboxed

RULES = rules(allow=("run_shell(git log:*)", "run_shell(git show:*)"), deny=("read_file(.env)",))


def _git(lab: Lab, *args: str) -> None:
    subprocess.run(["git", *args], cwd=lab.root, env=lab.env, check=True, capture_output=True)


def together(lab: Lab) -> None:
    """``.env`` committed by mistake, in the same commit as ``app.txt``."""
    (lab.root / "app.txt").write_text("app\n")
    _git(lab, "add", "-f", ".env", "app.txt")
    _git(lab, "commit", "-qm", "oops")


def renamed(lab: Lab) -> None:
    """``.env`` committed, then renamed to ``app.txt`` and its secret scrubbed."""
    _git(lab, "add", "-f", ".env")
    _git(lab, "commit", "-qm", "oops")
    _git(lab, "mv", ".env", "app.txt")
    _git(lab, "commit", "-qm", "rename")
    (lab.root / "app.txt").write_text("scrubbed\n")
    _git(lab, "commit", "-qam", "scrub")
    (lab.root / ".env").write_text(f"TOKEN={SECRET}\n")  # the user's live copy, denied


CASES = {
    "--full-diff -- app.txt": ("git log -p --full-diff -- app.txt", together),
    "--full-diff app.txt": ("git log --full-diff -p app.txt", together),
    "--full-diff --all": ("git log --all -p --full-diff -- app.txt", together),
    "--follow -- app.txt": ("git log -p --follow -- app.txt", renamed),
    "--follow -M": ("git log --follow -M -p -- app.txt", renamed),
}
PROBLEM = Bubblewrap().problem()


@pytest.mark.parametrize("sandboxed", [False, True], ids=["sandbox-off", "sandbox-on"])
@pytest.mark.parametrize("name", list(CASES))
async def test_committed_content_of_a_denied_file_asks(
    tmp_path: Path, name: str, sandboxed: bool
) -> None:
    if sandboxed and PROBLEM is not None:
        pytest.skip(f"no sandbox here: {PROBLEM}")
    command, setup = CASES[name]
    decision = judged(tmp_path, Case(command, setup=setup), RULES, Mode.DEFAULT)
    assert decision.kind != "allow", decision
    bare = make_lab(tmp_path, "bare")
    setup(bare)
    assert SECRET in run_bare(bare, command), "the command does not print the secret bare"
    lab = make_lab(tmp_path, "agent")
    setup(lab)
    if sandboxed:
        ran, text = await through_sandboxed(lab, RULES, Mode.DEFAULT, command)
    else:
        with home_of(lab):
            outcome = await through_agent(
                lab, pipeline(lab, RULES, Mode.DEFAULT), "run_shell", {"command": command}
            )
        ran, text = outcome.ran, outcome.text
    assert SECRET not in text, f"LEAKED: {command}"
    assert not ran


@pytest.mark.parametrize(
    "command",
    [
        "git log -p -- app.txt",
        "git log --follow --oneline -- app.txt",
        "git log --full-diff --stat -- app.txt",
    ],
)
def test_limited_reads_stay_allowed(tmp_path: Path, command: str) -> None:
    decision = judged(tmp_path, Case(command, setup=together), RULES, Mode.DEFAULT)
    assert decision.kind == "allow", decision
