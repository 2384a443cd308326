"""The lifeline, for real: without the sandbox (``sandbox.mode`` off), a ``kill -9`` of the agent
still ends the command and all it started in its process group, and otherwise the watchdog
between the agent and ``bash`` is invisible: exit codes, signals, output, timeouts."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.lifeline import SCRIPT, lifeline_argv
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell
from agent_tui.core.tools.errors import ToolFailure

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the lifeline is Linux only")

PGID = "read -r _ _ _ _ pgid _ < /proc/$$/stat; echo $pgid"  # prints the shell's process group


async def _run(work: Path, command: str, timeout: float = 30) -> ToolOutput:
    sandbox = SessionSandbox(SandboxSettings(mode="off"), work)
    assert sandbox.state.shell is None
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command, timeout=timeout), ctx)


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs (zombies are dead: this machine's PID 1 may
    never reap the orphans it inherits)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _wait_gone(pgid: int, within: float = 10) -> float:
    start = time.monotonic()
    while _group_alive(pgid):
        assert time.monotonic() - start < within, f"process group {pgid} still runs"
        time.sleep(0.02)
    return time.monotonic() - start


def test_a_killed_agent_takes_its_unsandboxed_command_with_it(tmp_path: Path) -> None:
    """``kill -9`` of the agent mid-command: neither the command's canary nor that of a job it
    put in the background appears (without the lifeline both did, 2 s after the kill)."""
    agent = textwrap.dedent(
        f"""
        import asyncio
        from pathlib import Path
        from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
        from agent_tui.core.tools.base import ToolContext
        from agent_tui.core.tools.builtin import run_shell
        work = Path({str(tmp_path)!r})
        ctx = ToolContext(cwd=work, sandbox=SessionSandbox(SandboxSettings(mode="off"), work))
        command = (
            "(sleep 2; touch CANARY2) & echo $$ > STARTED.tmp && mv STARTED.tmp STARTED; "
            "sleep 2; touch CANARY"
        )
        asyncio.run(run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", agent], env={**os.environ})
    try:
        ready = tmp_path / "STARTED"
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert time.monotonic() < deadline, "the command never started"
            assert proc.poll() is None, "the agent ended early"
            time.sleep(0.02)
        pgid = os.getpgid(int(ready.read_text()))
        assert pgid != os.getpgrp()
        # the group's leader is the watchdog, the agent's child
        leader = Path(f"/proc/{pgid}/stat").read_text().rsplit(")", 1)[1].split()
        assert int(leader[1]) == proc.pid
        assert str(SCRIPT) in Path(f"/proc/{pgid}/cmdline").read_text()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    killed = time.monotonic()
    _wait_gone(pgid)
    time.sleep(max(0.0, killed + 6 - time.monotonic()))  # 3 times the commands' delay
    assert not (tmp_path / "CANARY").exists()
    assert not (tmp_path / "CANARY2").exists()


async def test_an_unsandboxed_command_runs_under_the_watchdog(tmp_path: Path) -> None:
    out = await _run(tmp_path, "tr '\\0' ' ' < /proc/$PPID/cmdline; echo; trap -p; echo ok")
    assert str(SCRIPT) in out.content
    assert out.content.endswith("\nok\n[exit code 0]")  # no signal left ignored (trap -p)


async def test_exit_codes_and_output_pass_through(tmp_path: Path) -> None:
    out = await _run(tmp_path, "echo out; echo err >&2; exit 7")
    assert out.content == "out\nerr\n[exit code 7]"
    assert out.is_error


async def test_a_self_signal_is_reported_as_the_shells(tmp_path: Path) -> None:
    out = await _run(tmp_path, "echo before; kill -TERM $$; echo after")
    assert out.content == "before\n[killed by signal SIGTERM (exit code -15)]"
    out = await _run(tmp_path, "yes | head -n 1; echo ${PIPESTATUS[0]}")  # SIGPIPE is default
    assert out.content == "y\n141\n[exit code 0]"


async def test_a_timed_out_command_leaves_nothing_running(tmp_path: Path) -> None:
    command = f"{PGID}; (sleep 2; touch LATE) & sleep 30"
    with pytest.raises(ToolFailure) as failure:
        await _run(tmp_path, command, timeout=1)
    assert failure.value.info.code == "timeout"
    assert "did not finish within 1 s" in failure.value.info.message
    pgid = int(failure.value.info.message.split("\n")[0])  # the output, whole, first
    await asyncio.to_thread(_wait_gone, pgid)
    await asyncio.sleep(1.5)  # past the background job's delay
    assert not (tmp_path / "LATE").exists()


def test_an_agent_already_gone_runs_nothing(tmp_path: Path) -> None:
    """The agent died before the watchdog armed itself: its parent is not the pid it was given,
    so it ends at once and the command never starts."""
    argv = lifeline_argv(["touch", str(tmp_path / "RAN")])
    argv[argv.index("--") - 1] = str(os.getppid())  # not the watchdog's parent
    done = subprocess.run(argv, start_new_session=True, check=False)
    assert done.returncode == -signal.SIGKILL
    assert not (tmp_path / "RAN").exists()


def test_a_missing_program_says_so(tmp_path: Path) -> None:
    done = subprocess.run(
        lifeline_argv(["no-such-program-here"]),
        start_new_session=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 127
    assert "lifeline: cannot run no-such-program-here" in done.stderr


def test_other_platforms_run_the_command_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert lifeline_argv(["bash", "-c", "true"]) == ["bash", "-c", "true"]


LEAVERS = {
    "a job in the background": "(sleep 2; touch LATE) &",
    "setsid": "setsid sh -c 'sleep 2; touch LATE' >/dev/null 2>&1 < /dev/null &",
    "nohup": "nohup sh -c 'sleep 2; touch LATE' >/dev/null 2>&1 &",
    "a double fork": "sh -c '(sleep 2; touch LATE) >/dev/null 2>&1 < /dev/null &' &",
}


@pytest.mark.parametrize("name", list(LEAVERS))
async def test_what_a_command_leaves_running_ends_with_it(tmp_path: Path, name: str) -> None:
    """A job the command leaves behind — in its group, or moved out of it — is killed and
    reaped when the command ends, before ``run_shell`` returns: as in the sandbox, nothing it
    started goes on after the checks that follow the command (before, each one touched LATE
    two seconds later)."""
    command = f"{LEAVERS[name]} echo started"
    out = await _run(tmp_path, command)
    assert out.content == "started\n[exit code 0]"
    assert _late_jobs() == [], "the job still runs"
    await asyncio.sleep(2.5)  # past the job's delay: had it lived, it would have touched LATE
    assert not (tmp_path / "LATE").exists()


def _late_jobs() -> list[str]:
    return [stat.parent.name for stat in Path("/proc").glob("[0-9]*/stat") if _is_late_job(stat)]


def _is_late_job(stat: Path) -> bool:
    """A live process of the test's job: its command line names LATE."""
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        cmdline = (stat.parent / "cmdline").read_bytes()
    except (OSError, IndexError):
        return False
    return fields[0] != "Z" and b"touch LATE" in cmdline
