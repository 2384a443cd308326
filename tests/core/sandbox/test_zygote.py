"""The lifeline's zygote, for real (Linux): unsandboxed commands run under a watchdog cloned
from one process per agent thread, with the script's semantics. What the zygote adds: it may
die (the next command still runs watched), it serves concurrent commands (each one's orphans
end with that command, no earlier), it passes no fd of its own or of the agent's, and where it
cannot be used the script runs instead."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox, zygote
from agent_tui.core.sandbox.lifeline import SCRIPT
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or not zygote.usable(), reason="no zygote here"
)

WATCHDOG = (
    "read -r _ _ _ ppid _ < /proc/$PPID/stat; echo $PPID $ppid; tr '\\0' ' ' < /proc/$PPID/cmdline"
)
"""Prints the watchdog's pid, its parent's, then its command line."""


async def _run(work: Path, command: str, timeout: float = 60) -> ToolOutput:
    sandbox = SessionSandbox(SandboxSettings(mode="off"), work)
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command, timeout=timeout), ctx)


def _runs(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _environ(pid: int) -> str:
    return Path(f"/proc/{pid}/environ").read_text(errors="replace")


async def _until(probe: Callable[[], object], what: str, deadline: float = 60) -> None:
    end = time.monotonic() + deadline
    while not probe():
        assert time.monotonic() < end, f"never: {what}"
        await asyncio.sleep(0.05)


async def _watched(work: Path) -> tuple[int, str]:
    """Run a command; its watchdog's pid, after checking the watchdog is the agent's child
    (cloned by a zygote: the script's command line, no ``--``)."""
    out = await _run(work, WATCHDOG)
    first, cmdline = out.content.split("\n")[:2]
    watchdog, parent = (int(word) for word in first.split())
    assert parent == os.getpid()
    assert str(SCRIPT) in cmdline
    return watchdog, cmdline


async def test_commands_are_cloned_by_one_zygote(tmp_path: Path) -> None:
    first, cmdline = await _watched(tmp_path)
    second, _ = await _watched(tmp_path)
    assert "--zygote" in cmdline
    assert first != second
    assert len(zygote.running()) == 1


async def test_a_killed_zygote_leaves_the_next_command_watched(tmp_path: Path) -> None:
    await _watched(tmp_path)
    (old,) = zygote.running()
    os.kill(old, 9)
    await _until(lambda: not _runs(old), "the zygote ended")
    _, cmdline = await _watched(tmp_path)
    assert "--zygote" in cmdline
    (new,) = zygote.running()
    assert new != old
    # and a leaver still ends with its command: the watchdog is a subreaper
    out = await _run(
        tmp_path,
        "setsid sh -c 'echo $$ > orphan; exec sleep 60' >/dev/null 2>&1 < /dev/null &"
        " while [ ! -s orphan ]; do sleep 0.02; done; echo started",
    )
    assert out.content == "started\n[exit code 0]"
    assert not _runs(int((tmp_path / "orphan").read_text()))


async def test_a_zygote_killed_while_a_command_runs_leaves_it_watched(tmp_path: Path) -> None:
    """Its watchdogs are the agent's children, not the zygote's: they run on, subreapers."""
    command = (
        "setsid sh -c 'echo $$ > orphan; exec sleep 60' >/dev/null 2>&1 < /dev/null & "
        "while [ ! -e go ]; do sleep 0.02; done; kill -0 $(cat orphan) && echo alive"
    )
    call = asyncio.ensure_future(_run(tmp_path, command))
    await _until(lambda: (tmp_path / "orphan").exists() and zygote.running(), "the orphan")
    for pid in zygote.running():
        os.kill(pid, 9)
    (tmp_path / "go").touch()
    out = await call
    assert out.content == "alive\n[exit code 0]"
    assert not _runs(int((tmp_path / "orphan").read_text()))


async def test_concurrent_commands_each_end_their_own_orphans(tmp_path: Path) -> None:
    """20 commands at once, each leaving a setsid'd orphan: each orphan lives until its own
    command ends (its command sees it alive), and is gone when that command's call returns."""
    count = 20
    command = (
        "setsid sh -c 'echo $$ > orphan{i}.tmp; mv orphan{i}.tmp orphan{i}; exec sleep 120' "
        ">/dev/null 2>&1 < /dev/null & "
        "while [ ! -e go{i} ]; do sleep 0.05; done; kill -0 $(cat orphan{i}) && echo alive{i}"
    )
    calls = [
        asyncio.ensure_future(_run(tmp_path, command.format(i=i), timeout=300))
        for i in range(count)
    ]
    paths = [tmp_path / f"orphan{i}" for i in range(count)]
    await _until(lambda: all(path.exists() for path in paths), "every orphan", deadline=120)
    orphans = [int(path.read_text()) for path in paths]
    for i in range(count):
        assert all(_runs(pid) for pid in orphans[i:]), "an orphan ended before its command"
        (tmp_path / f"go{i}").touch()
        out = await calls[i]
        assert out.content == f"alive{i}\n[exit code 0]"
        assert not _runs(orphans[i]), f"orphan {i} outlived its command"


async def test_no_fd_leaks_into_a_command(tmp_path: Path) -> None:
    """Only the command's stdio: not the agent's fds (an inheritable one here), not the
    zygote's socket, not the request's."""
    for pid in zygote.running():  # a zygote started after the fd is opened
        os.kill(pid, 9)
    stray = os.open(tmp_path, os.O_RDONLY)
    os.set_inheritable(stray, True)
    try:
        out = await _run(tmp_path, "ls /proc/self/fd; echo -; ls /proc/$PPID/fd")
    finally:
        os.close(stray)
    assert out.content == "0\n1\n2\n3\n-\n0\n1\n2\n[exit code 0]"  # 3: ls's own listing
    (pid,) = zygote.running()
    assert len(os.listdir(f"/proc/{pid}/fd")) == 4  # stdio and its socket


async def test_a_missing_directory_fails_the_start(tmp_path: Path) -> None:
    read, write = os.pipe()
    try:
        with pytest.raises(FileNotFoundError):
            await zygote.start(["true"], tmp_path / "gone", {}, write)
    finally:
        os.close(read)
        os.close(write)


async def test_without_a_zygote_the_script_watches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zygote, "usable", lambda: False)
    out = await _run(tmp_path, WATCHDOG)
    first, cmdline = out.content.split("\n")[:2]
    assert int(first.split()[1]) == os.getpid()
    assert str(SCRIPT) in cmdline
    assert f"{os.getpid()} -- " in cmdline


AGENT = """
import asyncio, sys
from pathlib import Path
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox, zygote
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import run_shell

async def main() -> None:
    work = Path(sys.argv[1])
    ctx = ToolContext(cwd=work, sandbox=SessionSandbox(SandboxSettings(mode="off"), work))
    command = (
        "setsid sh -c 'echo $$ > o.tmp; mv o.tmp orphan; exec sleep 60' "
        ">/dev/null 2>&1 < /dev/null & sleep 60"
    )
    call = asyncio.ensure_future(run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx))
    while not (work / "orphan").exists() or not zygote.running():
        await asyncio.sleep(0.02)
    print(*zygote.running(), flush=True)
    await call

asyncio.run(main())
"""


async def test_kill_9_of_the_agent_ends_its_zygote_and_commands(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    agent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", AGENT, str(tmp_path), stdout=asyncio.subprocess.PIPE, env=env
    )
    try:
        assert agent.stdout is not None
        line = await asyncio.wait_for(agent.stdout.readline(), 60)
        (zygote_pid,) = (int(word) for word in line.split())
        orphan = int((tmp_path / "orphan").read_text())
        assert _runs(zygote_pid)
        assert _runs(orphan)
    finally:
        agent.kill()
        await agent.wait()
    await _until(lambda: not _runs(zygote_pid), "the zygote ended")
    await _until(lambda: not _runs(orphan), "the command's orphan ended")


def _clones() -> list[int]:
    """The watchdogs alive that the zygote cloned for us (the agent's children, the zygote's
    command line, not the zygote)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        pid = int(stat.parent.name)
        if int(fields[1]) == os.getpid() and b"--zygote" in cmdline and pid not in zygote.running():
            found.append(pid)
    return found


async def test_a_call_cancelled_before_its_watchdog_answers_runs_nothing(tmp_path: Path) -> None:
    """The zygote is held (SIGSTOP) while the call waits for its watchdog; the call is
    cancelled; let go, the zygote clones the watchdog, which never gets the word to run the
    command, ends, and is reaped."""
    read, write = os.pipe()
    try:
        done = await zygote.start(["true"], tmp_path, {}, write)  # a zygote ready
        assert done is not None
        await done.wait()
        (pid,) = zygote.running()
        os.kill(pid, signal.SIGSTOP)
        try:
            call = asyncio.ensure_future(
                zygote.start(["touch", str(tmp_path / "RAN")], tmp_path, {}, write)
            )
            for _ in range(20):  # the request sent, the call waits for the answer
                await asyncio.sleep(0)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        finally:
            os.kill(pid, signal.SIGCONT)
        # the zygote takes requests in order: once the next one is served, the cancelled
        # one's watchdog was cloned
        again = await zygote.start(["touch", str(tmp_path / "NEXT")], tmp_path, {}, write)
        assert again is not None
        assert await again.wait() == 0
        assert (tmp_path / "NEXT").exists()
        await _until(lambda: not _clones(), "the watchdog reaped")
        assert not (tmp_path / "RAN").exists()
    finally:
        os.close(read)
        os.close(write)


async def test_a_fresh_zygote_hands_commands_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watchdog keeps the zygote's initial environment block, readable by its command as
    ``/proc/$PPID/environ``; the zygote started after the keys were set must not carry them."""
    for key in zygote.running():
        os.kill(key, 9)
        await _until(lambda key=key: not _runs(key), "the old zygote ended")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-zygote-canary")
    monkeypatch.setenv("SOME_TOKEN", "zygote-canary-token")
    out = await _run(tmp_path, "tr '\\0' '\\n' </proc/$PPID/environ")
    (new,) = zygote.running()
    assert "zygote-canary" not in out.content, out.content
    assert "zygote-canary" not in _environ(new)
    # the command still gets what it needs from its own request
    out = await _run(tmp_path, "echo $PATH")
    assert out.content.split("\n")[0] == os.environ["PATH"]
