"""Past the read rules' walk cap the sandbox refuses every command; the permission check says
so instead of asking (issue 37 follow-ups, point 4).

``sandbox.auto_allow`` used to *ask* ("the workspace is too large … might not hide them all"),
and an approval led to the refusal anyway. Now the decision is a **deny** with the refusal's
reason and what to do (narrow the rule), and with auto-allow off the question is replaced by
the same refusal (``run_shell``'s pre-check) — the user is never asked to approve a command
that cannot run. Each case proves, with an asker that would say yes, that nobody was asked,
nothing ran (a canary file is not made) and the secret was not shown.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import Event, ToolErrorEvent, ToolRejected, ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    Mode,
    PermissionPipeline,
    Rule,
    RuleSet,
    Step,
)
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox, walk
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall

PROBLEM = Bubblewrap().problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
SECRET = "walk-cap-secret-19d2"
CAP = 50
COMMAND = "touch ran; cat node_modules/pkg/.env"
"""Run through the executor: it names a protected file, so it asks before the sandbox step —
and the pre-check replaces that question with the refusal too."""
PLAIN = "touch ran; ls node_modules"
"""Judged: nothing but the sandbox step would ask about it."""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(walk, "MAX_ENTRIES", CAP)
    walk.forget()
    work = tmp_path / "work"
    pkg = work / "node_modules" / "pkg"
    pkg.mkdir(parents=True)
    for index in range(CAP * 2):
        (pkg / f"f{index}.js").touch()
    (pkg / ".env").write_text(f"TOKEN={SECRET}\n")
    return work


class Counting:
    """An asker that would approve everything, and counts the questions."""

    def __init__(self) -> None:
        self.asked = 0

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked += 1
        return Approval(True)


def _pipeline(work: Path, rules: list[str], mode: Mode, auto_allow: bool) -> PermissionPipeline:
    ruleset = RuleSet(
        deny=[Rule.parse(r) for r in rules if not r.startswith("ask:")],
        ask=[Rule.parse(r[4:]) for r in rules if r.startswith("ask:")],
    )
    p = PermissionPipeline(work, ruleset, mode)
    p.use_sandbox(SessionSandbox(SandboxSettings(auto_allow=auto_allow), work))
    return p


async def _run(p: PermissionPipeline, asker: Counting) -> list[Event]:
    assert p.sandbox is not None
    executor = ToolExecutor(
        default_registry(),
        p.workspace,
        p,
        asker,
        FileStateCache(),
        store=SpillStore(p.workspace.parent / "spill", p.workspace),
        sandbox=p.sandbox,
    )
    call = ToolCall(id="c", name="run_shell", arguments=json.dumps({"command": COMMAND}))
    return [e async for e in executor.execute([call], [], asyncio.Event())]


def _text(events: list[Event]) -> str:
    parts: list[str] = []
    for event in events:
        if isinstance(event, ToolResult):
            parts.append(event.content)
        elif isinstance(event, ToolRejected):
            parts.append(event.reason)
        elif isinstance(event, ToolErrorEvent):
            parts.append(f"{event.message} {event.next_step}")
    return "\n".join(parts)


CASES = [
    # (rules, mode, auto_allow): the case, then variants of our own
    (["read_file(.env)"], Mode.DEFAULT, True),
    (["ask:read_file(**/.env)"], Mode.DEFAULT, True),  # an ask rule hides files too
    (["read_file(node_modules/**/.env)"], Mode.ACCEPT_EDITS, True),  # a rule below the big tree
    (["read_file(.env)"], Mode.DEFAULT, False),  # auto-allow off: the pre-check says it
]


@pytest.mark.parametrize(("rules", "mode", "auto_allow"), CASES)
async def test_a_command_the_sandbox_would_refuse_is_not_asked_about(
    work: Path, rules: list[str], mode: Mode, auto_allow: bool
) -> None:
    p = _pipeline(work, rules, mode, auto_allow)
    tool = default_registry().get("run_shell")
    assert tool is not None
    decision = p.judge(tool, {"command": PLAIN})
    if auto_allow:
        assert (decision.kind, decision.step) == ("deny", Step.SANDBOX), decision
        assert "would refuse" in decision.reason
        assert "Narrow the rule" in decision.reason
    asker = Counting()
    events = await _run(p, asker)
    text = _text(events)
    assert asker.asked == 0, "the user was asked to approve a command that cannot run"
    assert not (work / "ran").exists()
    assert SECRET not in text
    assert "stopped after" in text
    assert "Narrow the rule" in text


async def test_a_command_allowed_otherwise_is_refused_by_the_run_with_the_same_words(
    work: Path,
) -> None:
    """Bypass mode allows it; the run itself refuses it, saying the same."""
    p = _pipeline(work, ["read_file(.env)"], Mode.BYPASS, False)
    asker = Counting()
    text = _text(await _run(p, asker))
    assert not (work / "ran").exists()
    assert "stopped after" in text
    assert asker.asked == 0


async def test_the_remedy_runs_without_asking(work: Path) -> None:
    """The rule narrowed as the message says: no walk needed, auto-allowed, secret hidden."""
    (work / ".env").write_text(f"TOP={SECRET}\n")
    p = _pipeline(work, ["read_file(/.env)"], Mode.DEFAULT, True)
    tool = default_registry().get("run_shell")
    assert tool is not None
    command = "cat .env; echo ok"
    assert p.judge(tool, {"command": "ls"}).kind == "allow"
    assert p.judge(tool, {"command": command}).kind == "ask"  # it names the protected file
