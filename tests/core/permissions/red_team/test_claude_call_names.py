"""Calls by Claude Code's tool names are judged exactly as the call of ours they run as: the
rewrite happens before validation, so the permission rules see ``run_shell`` with its
``command``, ``write_file`` / ``edit_file`` with their ``path``. Run for real through the agent
loop (the script provider, the built-in tools) on the lab's canaries, in the loosest modes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import Event, ToolRejected, ToolResult
from agent_tui.core.permissions import Mode, PermissionPipeline, Step
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from tests.core.helpers import collect, write_script
from tests.core.permissions.red_team.harness import (
    CHANGES,
    Lab,
    home_of,
    make_lab,
    pipeline,
    rules,
)

EVERYTHING = ("run_shell", "write_file", "edit_file(**)", "read_file")
MODES = pytest.mark.parametrize(
    "mode", [Mode.ACCEPT_EDITS, Mode.BYPASS], ids=["accept-edits", "bypass"]
)


async def _run(lab: Lab, policy: PermissionPipeline, calls: list[dict[str, Any]]) -> list[Event]:
    script = write_script(lab.root.parent / "script.json", [{"tool_calls": calls}, {"text": "k"}])
    agent = Agent(ScriptProvider(script), default_registry(), lab.root, policy=policy)
    with home_of(lab):
        events = await collect(agent, "go")
    await agent.close()
    return events


def _end(events: list[Event], call_id: str) -> Event:
    return next(
        e
        for e in events
        if getattr(e, "id", None) == call_id
        and e.type in ("tool_result", "tool_rejected", "tool_error")
    )


@MODES
@pytest.mark.parametrize(
    "arguments",
    [
        {"command": "rm -rf canary"},
        {"command": "rm -rf canary", "timeout": 120000, "description": "Clean up"},
        {"command": "echo ok && rm -rf canary"},
        {"command": "rm -r -f canary", "run_in_background": False},
    ],
    ids=["bare", "timeout+description", "compound", "flags-split"],
)
async def test_a_deny_of_run_shell_blocks_bash(
    tmp_path: Path, mode: Mode, arguments: dict[str, Any]
) -> None:
    lab = make_lab(tmp_path, "lab")
    policy = pipeline(lab, rules(allow=EVERYTHING, deny=("run_shell(rm *)",)), mode)
    events = await _run(lab, policy, [{"id": "a", "name": "Bash", "arguments": arguments}])
    end = _end(events, "a")
    assert isinstance(end, ToolRejected), end
    assert end.by == "rule"
    assert end.rule == "run_shell(rm *)"
    assert end.name == "run_shell"
    assert (lab.root / "canary").read_text() == "canary\n"


async def test_the_control_bash_runs_what_no_rule_denies(tmp_path: Path) -> None:
    """The same call with no deny removes the canary: the refusals above are the rule's."""
    lab = make_lab(tmp_path, "lab")
    policy = pipeline(lab, rules(allow=EVERYTHING, deny=()), Mode.BYPASS)
    events = await _run(
        lab, policy, [{"id": "a", "name": "Bash", "arguments": {"command": "rm -rf canary"}}]
    )
    assert isinstance(_end(events, "a"), ToolResult)
    assert not (lab.root / "canary").exists()


@MODES
@pytest.mark.parametrize("target", [".git/config", ".agent-tui/settings.json", ".mcp.json"])
async def test_writing_a_protected_file_through_write_is_refused(
    tmp_path: Path, mode: Mode, target: str
) -> None:
    lab = make_lab(tmp_path, "lab")
    before = lab.digest()
    arguments = {"file_path": target, "content": "[core]\n\tfsmonitor = touch pwned\n"}
    events = await _run(
        lab,
        pipeline(lab, rules(allow=EVERYTHING, deny=()), mode),
        [{"id": "w", "name": "Write", "arguments": arguments}],
    )
    end = _end(events, "w")
    assert isinstance(end, ToolRejected), end
    assert end.step == Step.PROTECTED.value
    assert not CHANGES.seen(lab, before, json.dumps([e.model_dump(mode="json") for e in events]))
    assert not (lab.root / "pwned").exists()


@MODES
@pytest.mark.parametrize("target", [".git/config", ".mcp.json"])
async def test_a_multi_edit_of_a_protected_file_is_refused(
    tmp_path: Path, mode: Mode, target: str
) -> None:
    """Read first, so the edits would apply: the refusal is the protection's, not a failed
    pre-check's."""
    lab = make_lab(tmp_path, "lab")
    text = (lab.root / target).read_text()
    first, second = text.splitlines()[0], text.splitlines()[-1]
    before = lab.digest()
    edits = [
        {"old_string": first, "new_string": first + " "},
        {"old_string": second, "new_string": second + "\n\tfsmonitor = touch pwned"},
    ]
    events = await _run(
        lab,
        pipeline(lab, rules(allow=EVERYTHING, deny=()), mode),
        [
            {"id": "r", "name": "Read", "arguments": {"file_path": target}},
            {"id": "m", "name": "MultiEdit", "arguments": {"file_path": target, "edits": edits}},
        ],
    )
    assert isinstance(_end(events, "r"), ToolResult)
    end = _end(events, "m")
    assert isinstance(end, ToolRejected), end
    assert end.step == Step.PROTECTED.value
    assert lab.digest() == before
    assert not (lab.root / "pwned").exists()


async def test_the_control_multi_edit_changes_an_ordinary_file(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "lab")
    edits = [
        {"old_string": "print", "new_string": "log"},
        {"old_string": "'app'", "new_string": "1"},
    ]
    events = await _run(
        lab,
        pipeline(lab, rules(allow=EVERYTHING, deny=()), Mode.BYPASS),
        [
            {"id": "r", "name": "Read", "arguments": {"file_path": "src/app.py"}},
            {
                "id": "m",
                "name": "MultiEdit",
                "arguments": {"file_path": "src/app.py", "edits": edits},
            },
        ],
    )
    assert isinstance(_end(events, "m"), ToolResult)
    assert (lab.root / "src" / "app.py").read_text() == "log(1)\n"


@MODES
async def test_a_deny_of_edit_file_blocks_multi_edit(tmp_path: Path, mode: Mode) -> None:
    lab = make_lab(tmp_path, "lab")
    edits = [{"old_string": "print", "new_string": "log"}]
    events = await _run(
        lab,
        pipeline(lab, rules(allow=EVERYTHING, deny=("edit_file(src/**)",)), mode),
        [
            {"id": "r", "name": "Read", "arguments": {"file_path": "src/app.py"}},
            {
                "id": "m",
                "name": "MultiEdit",
                "arguments": {"file_path": "src/app.py", "edits": edits},
            },
        ],
    )
    end = _end(events, "m")
    assert isinstance(end, ToolRejected), end
    assert end.rule == "edit_file(src/**)"
    assert (lab.root / "src" / "app.py").read_text() == "print('app')\n"
