"""The session's temp directory: the one place outside the workspace where writes need no
asking. Private (0700, made by the agent), ``TMPDIR`` of every command, writable and kept
between commands in the sandbox too, named in the reason of an outside ask. Spoofing it
(``TMPDIR=~/.bashrc.d``) does not work. With the sandbox, ``/tmp`` (private to each command)
counts too, and the hidden home makes a command's read of ``~/.ssh`` harmless."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Mode, PermissionPipeline, Step
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall
from tests.core.permissions.red_team.harness import (
    SECRET,
    Lab,
    Outcome,
    decide,
    home_of,
    rules,
)
from tests.core.permissions.red_team.outside_lab import (
    LOGIN_SHELL,
    RUNS,
    make_outside_lab,
    run_later,
)

PROBLEM = Bubblewrap().problem()
needs_sandbox = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")


def session(lab: Lab, mode: Mode, sandbox: str = "off") -> tuple[PermissionPipeline, Any]:
    box = SessionSandbox(SandboxSettings(mode=sandbox), lab.root)  # type: ignore[arg-type]
    policy = PermissionPipeline(lab.root, rules(allow=(), deny=()), mode)
    policy.use_sandbox(box)
    return policy, box


async def run(
    lab: Lab, policy: PermissionPipeline, box: SessionSandbox, tool: str, **arguments: Any
) -> Outcome:
    executor = ToolExecutor(
        default_registry(),
        lab.root,
        policy,
        None,
        FileStateCache(),
        store=SpillStore(lab.root / ".agent-spill", lab.root),
        sandbox=box,
    )
    call = ToolCall(id="c", name=tool, arguments=json.dumps(arguments))
    outcome = Outcome()
    async for event in executor.execute([call], [], asyncio.Event()):
        outcome.events.append(event)
    return outcome


def test_the_temp_dir_is_private_and_removed(tmp_path: Path) -> None:
    box = SessionSandbox(SandboxSettings(mode="off"), tmp_path)
    assert box.scratch is not None
    assert box.scratch.made is None
    temp = box.temp_dir
    assert temp is not None
    assert temp.is_dir()
    assert stat.S_IMODE(temp.stat().st_mode) == 0o700
    assert box.temp_dir == temp  # one per session
    other = SessionSandbox(SandboxSettings(mode="off"), tmp_path).temp_dir
    assert other != temp
    (temp / "link").symlink_to(tmp_path)  # removing never follows a link out
    (tmp_path / "keep.txt").write_text("keep\n")
    box.scratch.remove()
    assert not temp.exists()
    assert (tmp_path / "keep.txt").exists()


async def test_commands_get_it_as_tmpdir_and_may_write_there_in_bypass(tmp_path: Path) -> None:
    lab = make_outside_lab(tmp_path, "plain")
    with home_of(lab):
        policy, box = session(lab, Mode.BYPASS)
        temp = box.temp_dir
        out = await run(lab, policy, box, "run_shell", command='echo "tmp=$TMPDIR"')
        assert f"tmp={temp}" in out.text
        write = 'echo hi > "$TMPDIR/a.txt" && mktemp'
        assert decide(policy, "run_shell", {"command": write}).kind == "allow"
        out = await run(lab, policy, box, "run_shell", command=write)
        assert out.ran
        assert (temp / "a.txt").read_text() == "hi\n"
        assert str(temp) in out.text  # mktemp made its file there
        # file tools: the temp dir is like the workspace
        assert decide(policy, "write_file", {"path": f"{temp}/b.txt"}).kind == "allow"
        edits, _ = session(lab, Mode.ACCEPT_EDITS)
        assert decide(edits, "write_file", {"path": f"{box.temp_dir}/b.txt"}).kind == "ask"
        edits.use_sandbox(box)
        assert decide(edits, "write_file", {"path": f"{temp}/b.txt"}).kind == "allow"
        reads, _ = session(lab, Mode.DEFAULT)
        reads.use_sandbox(box)
        assert decide(reads, "read_file", {"path": f"{temp}/a.txt"}).kind == "allow"


async def test_without_the_sandbox_tmp_itself_is_outside(tmp_path: Path) -> None:
    lab = make_outside_lab(tmp_path, "tmp")
    canary = Path("/tmp") / f"agent-tui-outside-canary-{os.getpid()}"
    with home_of(lab):
        policy, box = session(lab, Mode.BYPASS)
        command = f"echo hi > {canary}"
        decision = decide(policy, "run_shell", {"command": command})
        assert decision.kind == "ask", decision
        assert decision.step is Step.OUTSIDE, decision
        assert f"$TMPDIR ({box.temp_dir})" in decision.reason  # says where to write instead
        out = await run(lab, policy, box, "run_shell", command=command)
        assert not out.ran
    assert not canary.exists()


@pytest.mark.parametrize(
    "command",
    [
        f"TMPDIR=../home/.bashrc.d; mkdir -p $TMPDIR; echo '{RUNS}' > $TMPDIR/x.sh",
        f"export TMPDIR=$HOME/.bashrc.d; mkdir -p $TMPDIR; echo '{RUNS}' > $TMPDIR/x.sh",
        f'mkdir -p ../home/.bashrc.d; declare TMP"DIR"=../home/.bashrc.d; '
        f"echo '{RUNS}' > $TMPDIR/x.sh",
        f"mkdir -p ../home/.bashrc.d; read TMPDIR <<< ../home/.bashrc.d; "
        f"echo '{RUNS}' > $TMPDIR/x.sh",
        f"mkdir -p ../home/.bashrc.d; : ${{TMPDIR:=x}}; echo '{RUNS}' > $TMPDIR/../x.sh",
    ],
)
async def test_tmpdir_cannot_be_spoofed(tmp_path: Path, command: str) -> None:
    """A command that sets TMPDIR (or climbs out of it) writes somewhere only known at run
    time: it asks in every mode, and the plant never runs."""
    lab = make_outside_lab(tmp_path, "spoof")
    with home_of(lab):
        policy, box = session(lab, Mode.BYPASS)
        decision = decide(policy, "run_shell", {"command": command})
        assert decision.kind == "ask", decision
        assert decision.every_mode, decision
        out = await run(lab, policy, box, "run_shell", command=command)
    assert not out.ran
    run_later(lab, LOGIN_SHELL)
    assert not (lab.home / "pwned").exists()


@needs_sandbox
async def test_in_the_sandbox_tmp_and_the_temp_dir_are_free_and_the_temp_dir_is_kept(
    tmp_path: Path,
) -> None:
    lab = make_outside_lab(tmp_path, "boxed")
    canary = Path("/tmp") / f"agent-tui-sandboxed-canary-{os.getpid()}"
    with home_of(lab):
        policy, box = session(lab, Mode.BYPASS, sandbox="required")
        command = f'echo hi > {canary} && echo kept > "$TMPDIR/k.txt"'
        assert decide(policy, "run_shell", {"command": command}).kind == "allow"
        out = await run(lab, policy, box, "run_shell", command=command)
        assert out.ran
        assert not canary.exists()
        out = await run(lab, policy, box, "run_shell", command='cat "$TMPDIR/k.txt"')
        assert "kept" in out.text  # the session's temp dir outlives one command
        # the home is hidden: a read there needs no asking and finds nothing
        read = "cat ~/.ssh/id_rsa; cat ../home/.aws/credentials"
        assert decide(policy, "run_shell", {"command": read}).kind == "allow"
        out = await run(lab, policy, box, "run_shell", command=read)
        assert SECRET not in out.text
        # a write elsewhere outside still asks, though the sandbox would catch it (the lab's
        # home lies under /tmp, which the sandbox makes private: a write there vanishes)
        plant = f"echo '{RUNS}' > /var/tmp/agent-tui-outside-{os.getpid()}"
        decision = decide(policy, "run_shell", {"command": plant})
        assert decision.step is Step.OUTSIDE, decision
        assert "/tmp, which is private to each sandboxed command" in decision.reason
