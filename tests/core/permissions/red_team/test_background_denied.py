"""``run_in_background`` changes nothing of what the permission engine judges: a denied command
is denied as a background job too, in every mode (bypass included), and never starts — its
canary file stays as it was and no job exists. An asked one that nobody can answer (no asker)
is refused the same way."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import ToolRejected, ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Mode, PermissionPipeline
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall
from tests.core.permissions.red_team.harness import rules

CANARY = "canary.txt"


async def attempt(root: Path, mode: Mode, deny: tuple[str, ...], command: str) -> list[object]:
    policy = PermissionPipeline(root, rules(allow=(), deny=deny), mode)
    executor = ToolExecutor(
        default_registry(),
        root,
        policy,
        None,
        FileStateCache(),
        store=SpillStore(root / ".agent-spill", root),
    )
    arguments = {"command": command, "run_in_background": True}
    call = ToolCall(id="c", name="run_shell", arguments=json.dumps(arguments))
    events: list[object] = [e async for e in executor.execute([call], [], asyncio.Event())]
    await asyncio.sleep(0.5)  # had it started, its write would be done by now
    assert executor.jobs.infos() == []
    await executor.jobs.aclose()
    return events


@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.ACCEPT_EDITS, Mode.BYPASS, Mode.PLAN])
async def test_a_denied_background_command_never_starts(tmp_path: Path, mode: Mode) -> None:
    canary = tmp_path / CANARY
    canary.write_text("untouched\n")
    command = f"echo pwned > {CANARY}; rm -f {CANARY}"
    events = await attempt(tmp_path, mode, ("run_shell(echo *)",), command)
    assert any(isinstance(e, ToolRejected) for e in events), events
    assert not any(isinstance(e, ToolResult) for e in events)
    assert canary.read_text() == "untouched\n"


async def test_an_ask_without_anyone_to_answer_never_starts(tmp_path: Path) -> None:
    canary = tmp_path / CANARY
    canary.write_text("untouched\n")
    events = await attempt(tmp_path, Mode.DEFAULT, (), f"rm {CANARY}")
    assert not any(isinstance(e, ToolResult) for e in events), events
    assert canary.read_text() == "untouched\n"
