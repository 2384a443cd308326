"""A command in the sandbox holds no capability, whoever runs agent-tui: started as root (a
container, CI), bubblewrap keeps every capability unless told otherwise, and with them a
command could unmount what hides a secret, remount the read-only system writable, or
``mknod`` the disk. Each is tried for real, and the canaries prove nothing got through."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell

PROBLEM = Bubblewrap().problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")


async def _run(work: Path, command: str) -> ToolOutput:
    sandbox = SessionSandbox(SandboxSettings(deny_read=[".env"]), work)
    assert sandbox.state.shell is not None
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx)


async def test_a_command_has_no_capabilities(tmp_path: Path) -> None:
    out = await _run(tmp_path, "grep CapEff /proc/self/status")
    assert out.content.split()[1] == "0000000000000000", out.content


async def test_a_command_cannot_undo_the_mounts_that_confine_it(tmp_path: Path) -> None:
    """Meaningful where the agent runs as root (it does in containers and CI); elsewhere the
    same commands fail for lack of privilege either way."""
    work = tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text("TOKEN=canary-secret-caps\n", encoding="utf-8")
    system = Path("/var/tmp") / f"agent-tui-caps-canary-{os.getpid()}"
    out = await _run(
        work,
        f"umount .env; cat .env; mount -o remount,bind,rw /; touch {system}; "
        "mknod disk b 8 0 && head -c 512 disk | od -c | head -2; echo ran",
    )
    assert "ran" in out.content
    assert "canary-secret-caps" not in out.content
    assert not system.exists()
    assert not (work / "disk").exists() or (work / "disk").stat().st_size == 0
