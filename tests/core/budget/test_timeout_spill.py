"""A command killed by its timeout loses nothing (issue 38, item 1): 358,314 lines printed
kept 50, without a spill. Now its whole output goes through the budget like any result:
spilled byte for byte (compared with what the shell itself wrote with ``tee``), the model
reading the tail, what happened, and the pointer."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools import ToolRegistry
from agent_tui.core.tools.builtin import read_file, run_shell
from tests.core.helpers import collect, of_type, write_script

LINES = 358_314


def _bytes(path: Path) -> bytes:
    return path.read_bytes()


async def test_a_timed_out_command_is_spilled_whole(tmp_path: Path) -> None:
    # prints its lines, copies them with tee, then hangs until the timeout kills it
    command = f"seq 1 {LINES} | tee copy.txt; sleep 60"
    call = {"id": "c1", "name": "run_shell", "arguments": {"command": command, "timeout": 3}}
    script = write_script(tmp_path / "script.json", [{"tool_calls": [call]}, {"text": "done"}])
    registry = ToolRegistry([run_shell.TOOL, read_file.TOOL])
    settings = Settings.model_validate({"sandbox": {"mode": "off"}})
    agent = Agent(
        ScriptProvider(script),
        registry,
        tmp_path,
        policy=SimplePolicy(["run_shell"]),
        settings=settings,
    )
    events = await collect(agent, "go")
    [error] = of_type(events, "tool_error")
    [spill] = of_type(events, "spill")
    assert error.code == "timeout"
    assert error.spill is not None
    assert _bytes(tmp_path / error.spill.path) == _bytes(tmp_path / "copy.txt")
    assert spill.lines == LINES
    # the model's text: the last lines, what happened, and where the rest is
    told = json.loads(next(m.content for m in agent.messages if m.role == "tool"))
    assert f"\n{LINES}\n" in told["error"]
    assert "[killed: the command did not finish within 3 s" in told["error"]
    assert error.spill.path in told["error"] or Path(error.spill.path).name in told["error"]
    assert "timeout" in told["code"]


async def test_an_interrupted_command_keeps_its_output(tmp_path: Path) -> None:
    """Esc while a command streams: the output it printed is kept (spilled whole when big),
    then the interrupt; before, the card said "interrupted" and the output was gone."""
    command = "seq 1 200000 | tee copy.txt; echo printed > done.txt; sleep 60"
    call = {"id": "c1", "name": "run_shell", "arguments": {"command": command}}
    script = write_script(tmp_path / "script.json", [{"tool_calls": [call]}, {"text": "done"}])
    registry = ToolRegistry([run_shell.TOOL, read_file.TOOL])
    settings = Settings.model_validate({"sandbox": {"mode": "off"}})
    agent = Agent(
        ScriptProvider(script),
        registry,
        tmp_path,
        policy=SimplePolicy(["run_shell"]),
        settings=settings,
    )
    events = []
    async for event in agent.run("go"):
        events.append(event)
        if event.type == "tool_progress" and (tmp_path / "done.txt").exists():
            agent.interrupt()
    [error] = of_type(events, "tool_error")
    assert error.code == "interrupted"
    assert error.spill is not None
    assert _bytes(tmp_path / error.spill.path) == _bytes(tmp_path / "copy.txt")
    assert "[The user interrupted this call before it finished" in error.message
