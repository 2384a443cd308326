"""Programs whose writes the analysis does not model, in bypass mode (redteam3): a protected
path (``.mcp.json``, ``.git/hooks/…``) asks "in every mode, bypass included" only when the
analysis sees the write. ``ar x shipped.a`` (a member named ``.mcp.json``) and ``python3 -m
zipfile -e shipped.zip .`` (a member ``.git/hooks/pre-commit``) write them, sandbox off;
``ar`` and ``python3 -m zipfile`` have no table, and bypass runs what it does not understand
(a list of tables can never be complete). So the defence is not the analysis: after every
unsandboxed command the after-command checks (``config_watch`` for the agent's config files,
the git watch for hooks and configs) put back what it changed — run here through the real
executor with the sandbox off, the user's ``git commit`` afterwards included. In the sandbox
the protected files are read-only mounts."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Mode
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall
from tests.core.permissions.red_team.harness import (
    Lab,
    Outcome,
    home_of,
    pipeline,
    rules,
)
from tests.core.permissions.redteam3.lab import Case, fresh, judged, user_git, works_bare


def _ar(lab: Lab) -> None:
    stage = lab.root.parent / "stage-ar"
    stage.mkdir()
    (stage / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "sh"}}}\n')
    subprocess.run(["ar", "rc", str(lab.root / "shipped.a"), ".mcp.json"], cwd=stage, check=True)


def _zip(lab: Lab) -> None:
    (lab.root / ".git/hooks/pre-commit").chmod(0o755)
    with zipfile.ZipFile(lab.root / "shipped.zip", "w") as archive:
        archive.writestr(".git/hooks/pre-commit", "#!/bin/sh\ntouch pwned\n")


def _mcp_changed(lab: Lab) -> bool:
    return (lab.root / ".mcp.json").read_text() != '{"mcpServers": {}}\n'


CASES = {
    "ar x: .mcp.json": Case("ar x shipped.a", _ar, effect=_mcp_changed),
    "python3 -m zipfile -e: a hook": Case(
        "python3 -m zipfile -e shipped.zip .",
        _zip,
        user_git("", "commit", "-q", "--allow-empty", "-m", "y"),
    ),
}


async def _through_unsandboxed(lab: Lab, command: str) -> Outcome:
    """``command`` through the real executor in bypass mode with the sandbox off, as a session
    with ``sandbox.mode`` off runs it."""
    executor = ToolExecutor(
        default_registry(),
        lab.root,
        pipeline(lab, rules(allow=(), deny=()), Mode.BYPASS),
        None,
        FileStateCache(),
        store=SpillStore(lab.root / ".agent-spill", lab.root),
        sandbox=SessionSandbox(SandboxSettings(mode="off"), lab.root),
    )
    call = ToolCall(id="attack", name="run_shell", arguments=json.dumps({"command": command}))
    outcome = Outcome()
    async for event in executor.execute([call], [], asyncio.Event()):
        outcome.events.append(event)
    return outcome


@pytest.mark.parametrize("name", list(CASES))
async def test_an_unmodelled_writer_cannot_change_a_protected_path(
    tmp_path: Path, name: str
) -> None:
    if name.startswith("ar") and shutil.which("ar") is None:
        pytest.skip("needs ar")
    case = CASES[name]
    # bypass runs what it does not understand: the analysis lets it through
    assert judged(tmp_path, case, rules(allow=(), deny=()), Mode.BYPASS).kind == "allow"
    works_bare(tmp_path, case)
    lab = fresh(tmp_path, "agent", case)
    with home_of(lab):
        outcome = await _through_unsandboxed(lab, case.command)
    assert outcome.ran, outcome.text
    assert "blocked by agent-tui's after-command check" in outcome.text
    if case.later is not None:
        case.later(lab)
    assert not case.effect(lab), f"the attack took effect through the agent: {outcome.text}"
