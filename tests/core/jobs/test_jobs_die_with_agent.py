"""``kill -9`` of the agent: its background jobs die too. A real process plays the agent (the
core's run_shell with ``run_in_background``, as the agent runs it), starts ``http.server`` on
127.0.0.1, says its port, and is killed with SIGKILL: no chance to clean up. The server's
processes must be gone and the port closed — unsandboxed (the lifeline's death signal) and in
bubblewrap (``--die-with-parent``)."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import sys
from pathlib import Path

import pytest

from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from tests.core.jobs.helpers import pids_with, port_open, until

PROBLEM = Bubblewrap().problem()
REPO = Path(__file__).resolve().parents[3]

AGENT = """
import asyncio, sys
from pathlib import Path
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.tools.builtin import run_shell
from tests.core.jobs.helpers import PORT, job_context, server_command

async def main() -> None:
    cwd, marker, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    box = SessionSandbox(SandboxSettings(mode=mode, network="on"), cwd)
    ctx = job_context(cwd, box)
    inp = run_shell.RunShellInput(command=server_command(marker), run_in_background=True)
    out = await run_shell.TOOL.call(inp, ctx)
    job = ctx.jobs.get(out.data["job_id"])
    seen = ""
    while not (found := PORT.search(seen)):
        seen += (await job.read_new())[0]
        await asyncio.sleep(0.05)
    print("PORT", found.group(1), flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


async def kill_the_agent_and_check(tmp_path: Path, mode: str) -> None:
    marker = f"srv-{secrets.token_hex(4)}"
    repo = REPO
    env = {**os.environ, "PYTHONPATH": f"{repo}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        AGENT,
        str(tmp_path),
        marker,
        mode,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert agent.stdout is not None
        line = await asyncio.wait_for(agent.stdout.readline(), 30)
        assert line.startswith(b"PORT "), line
        port = int(line.split()[1])
        assert port_open(port)
        assert pids_with(marker)
    finally:
        agent.send_signal(signal.SIGKILL)  # kill -9: nothing of ours runs after this
        await agent.wait()

    async def gone() -> bool:
        return not pids_with(marker) and not port_open(port)

    await until(gone, deadline=15)


async def test_kill_9_of_the_agent_kills_its_server(tmp_path: Path) -> None:
    await kill_the_agent_and_check(tmp_path, "off")


@pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
async def test_kill_9_of_the_agent_kills_its_sandboxed_server(tmp_path: Path) -> None:
    await kill_the_agent_and_check(tmp_path, "required")
