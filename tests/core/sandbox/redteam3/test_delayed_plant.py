"""A plant that outlives its command (redteam3): the git watch compares the workspace's git
config before and after each command, sandboxed or not, and undoes what the command planted.
Unsandboxed, a background job that leaves the command's process group (``setsid``, ``nohup
… &``) keeps running after the command ends — and after the watch looked — then writes
``.git/config``; the next command's baseline takes that as the user's own. The user's next
``git status`` runs the planted ``core.fsmonitor``. Bypass mode (the opaque ``sh ./plant.sh``
runs there by design: this layer is the backstop), sandbox off; in the sandbox the job dies
with the command's PID namespace and ``.git/config`` is read-only. Unsandboxed, the command's
watchdog is a subreaper: whatever the command leaves running comes to it and is killed when
the command ends, so the job never gets to plant."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.core.sandbox.git_origin_lab import (
    Case,
    prepare,
    run_bare,
    through_executor,
    user_runs_git,
)

PID = "echo $$ > job.pid; "
"""The job's first act: where the test can see whether it still runs."""
FSMON = "printf '[core]\\n\\tfsmonitor = \"touch {C}; false\"\\n' >> .git/config; touch planted"
CASES = {
    "setsid, later .git/config": "setsid sh -c '"
    + PID
    + "$WAIT; "
    + FSMON.replace("'", "'\\''")
    + "' >/dev/null 2>&1 < /dev/null &",
    "nohup subshell": "nohup sh -c '"
    + PID
    + "$WAIT; "
    + FSMON.replace("'", "'\\''")
    + "' >/dev/null 2>&1 &",
    "a hook, later": "sh -c '" + PID + '$WAIT; printf "#!/bin/sh\\ntouch {C}\\n" > '
    ".git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; touch planted' "
    ">/dev/null 2>&1 < /dev/null &",
}


WAIT = "i=0; while [ ! -e go ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done"
"""The job waits until the test says the command (and the watch after it) is over: ``go``."""
STARTED = "\ni=0; while [ ! -s job.pid ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\n"
"""The command ends once its job has started (has written its pid)."""


async def _settle(root: Path) -> None:
    """Let the background job go, then wait until it says it planted (``planted``), under a
    generous deadline."""
    (root / "go").touch()
    deadline = time.monotonic() + 60
    while not (root / "planted").exists():
        assert time.monotonic() < deadline, "the background job never finished"
        await asyncio.sleep(0.1)


async def _gone(pid: int) -> None:
    """Wait, under a generous deadline, until process ``pid`` no longer runs (a zombie has
    ended: this machine's PID 1 may never reap what it inherits)."""
    deadline = time.monotonic() + 60
    while _runs(pid):
        assert time.monotonic() < deadline, f"the background job {pid} still runs"
        await asyncio.sleep(0.1)


def _runs(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.parametrize("name", list(CASES))
async def test_a_delayed_plant_is_undone(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = Case(
        CASES[name].replace("$WAIT", WAIT) + STARTED,
        later=(("", ("commit", "-q", "--allow-empty", "-m", "y"), False),),
    )
    bare = prepare(tmp_path, "bare", case, monkeypatch)
    run_bare(bare)
    await _settle(bare.root)
    user_runs_git(bare, case)
    assert bare.canary.exists(), "the attack does nothing bare"
    lab = prepare(tmp_path, "agent", case, monkeypatch)
    await through_executor(lab, sandboxed=False)
    job = int((lab.root / "job.pid").read_text())  # written before the command ended
    (lab.root / "go").touch()
    await _gone(job)
    assert not (lab.root / "planted").exists()
    user_runs_git(lab, case)
    assert not lab.canary.exists(), "the planted code ran at the user's git, later"
