"""A read-denied file's committed content under ``sandbox.auto_allow`` (issue 37, method 7).

The sandbox hides ``.env`` from commands, but not the repository's objects: ``git show
HEAD:.env``, ``git show HEAD``, ``git log -p`` print the committed copy from ``.git/objects``.
So these are judged as reads of ``.env`` before the sandbox is asked: with ``read_file(.env)``
denied they ask in every mode, auto-allow or not. Proven for real: approved by hand, the
sandboxed command does print the secret; without an approval, nothing is printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import Event, ToolRejected, ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    Asker,
    Mode,
    PermissionPipeline,
    Rule,
    RuleSet,
    Step,
)
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall

PROBLEM = Bubblewrap().problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
SECRET = "committed-canary-41c"
COMMANDS = ("git show HEAD:.env", "git show HEAD", "git log -p", "git grep TOKEN HEAD")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    (work / ".env").write_text(f"TOKEN={SECRET}\n", encoding="utf-8")
    (work / "app.py").write_text("print(1)\n", encoding="utf-8")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "one"],
    ):
        subprocess.run(["git", *args], cwd=work, env=env, check=True)
    return work


def _pipeline(work: Path) -> PermissionPipeline:
    rules = RuleSet(deny=[Rule.parse("read_file(.env)", source="test")])
    pipeline = PermissionPipeline(work, rules, Mode.DEFAULT)
    pipeline.use_sandbox(SessionSandbox(SandboxSettings(auto_allow=True), work))
    return pipeline


async def _yes(request: ApprovalRequest) -> Approval:
    return Approval(True)


async def _run(p: PermissionPipeline, command: str, asker: Asker | None) -> list[Event]:
    executor = ToolExecutor(
        default_registry(),
        p.workspace,
        p,
        asker,
        FileStateCache(),
        store=SpillStore(p.workspace.parent / "spill", p.workspace),
        sandbox=p.sandbox,
    )
    call = ToolCall(id="c1", name="run_shell", arguments=json.dumps({"command": command}))
    return [e async for e in executor.execute([call], [], asyncio.Event())]


def _text(events: list[Event]) -> str:
    return "\n".join(e.content for e in events if isinstance(e, ToolResult))


@pytest.mark.parametrize("command", COMMANDS)
async def test_committed_content_of_a_read_denied_file_asks_under_auto_allow(
    work: Path, command: str
) -> None:
    p = _pipeline(work)
    tool = default_registry().get("run_shell")
    assert tool is not None
    decision = p.judge(tool, {"command": command})
    assert decision.kind == "ask", decision
    assert decision.step is Step.READ_DENY
    events = await _run(p, command, None)
    assert [e for e in events if isinstance(e, ToolRejected)]
    assert SECRET not in _text(events)


async def test_the_sandbox_alone_does_not_hide_committed_content(work: Path) -> None:
    """Approved by hand, the sandboxed command prints the secret from the object store: the
    judgement is what keeps it out, not the sandbox."""
    events = await _run(_pipeline(work), "git show HEAD:.env", _yes)
    results = [e for e in events if isinstance(e, ToolResult)]
    assert results
    assert results[0].facts.sandboxed is True
    assert SECRET in _text(events)
    plain = await _run(_pipeline(work), "cat .env", _yes)
    assert SECRET not in _text(plain)  # the file itself is hidden
