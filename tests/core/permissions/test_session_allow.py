"""Red team: "allow for this session" remembers in memory only, and never outranks a deny.

After the user allows a call for the session, no settings file anywhere was written or
changed (compared byte for byte, the user's config dir included); the same call runs without
asking for the rest of the session; a deny rule still wins over it; a new session (a new
pipeline, a new agent) asks again.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import Approval, ApprovalRequest, Rule, Scope, Step
from agent_tui.core.permissions.pipeline import PermissionPipeline
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.state.paths import config_dir
from agent_tui.core.tools import ToolErrorInfo
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import ToolCall
from tests.core.helpers import collect, of_type, write_script

SETTINGS = {"permissions": {"allow": ["read_file"], "deny": ["run_shell(rm:*)"]}}


def _files(*roots: Path) -> dict[Path, bytes]:
    """Every file under ``roots`` and its bytes (directories that do not exist: none)."""
    return {
        path: path.read_bytes()
        for root in roots
        if root.exists()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _project(tmp_path: Path) -> Path:
    settings = tmp_path / ".agent-tui"
    settings.mkdir()
    (settings / "settings.json").write_text(json.dumps(SETTINGS))
    (settings / "settings.local.json").write_text(json.dumps({"theme": "x"}))
    user = config_dir()
    user.mkdir(parents=True, exist_ok=True)
    (user / "settings.json").write_text(json.dumps({"permissions": {"ask": []}}))
    return tmp_path


def _request(command: str, call_id: str = "1") -> ApprovalRequest:
    registry = default_registry()
    prepared = registry.prepare("run_shell", json.dumps({"command": command}))
    assert not isinstance(prepared, ToolErrorInfo)
    return ApprovalRequest(ToolCall(id=call_id, name="run_shell"), prepared.tool, prepared.input)


def _decide(pipeline: PermissionPipeline, command: str) -> str:
    return pipeline.decide(_request(command)).kind


def test_session_scope_allows_in_memory_and_writes_no_file(tmp_path: Path) -> None:
    cwd = _project(tmp_path)
    before = _files(cwd, config_dir())
    setup = build_pipeline(cwd)  # as the TUI builds it: "always" would save to a file
    pipeline = setup.pipeline
    assert pipeline.saves_rules
    request = _request("git status --short")
    assert pipeline.decide(request).kind == "ask"
    remembered = pipeline.remember(request, Scope.SESSION)
    assert [str(r) for r in remembered] == ["run_shell(git status:*)"]
    decision = pipeline.decide(_request("git status --short", "2"))
    assert (decision.kind, decision.step) == ("allow", Step.ALLOW_RULE)
    assert _files(cwd, config_dir()) == before  # byte for byte, and no new file
    assert setup.saved == []  # the save listener was never called


def test_a_deny_rule_wins_over_a_session_allow(tmp_path: Path) -> None:
    pipeline = build_pipeline(_project(tmp_path)).pipeline
    pipeline.remember(_request("git push origin main"), Scope.SESSION)
    assert _decide(pipeline, "git push origin main") == "allow"
    pipeline.rules.deny.append(Rule.parse("run_shell(git push:*)", source="test"))
    decision = pipeline.decide(_request("git push origin main"))
    assert (decision.kind, decision.step) == ("deny", Step.DENY_RULE)
    # the deny rule of the settings file wins too, even inside a compound command
    pipeline.remember(_request("echo hi"), Scope.SESSION)
    assert _decide(pipeline, "echo hi") == "allow"
    assert _decide(pipeline, "echo hi && rm -rf build") == "deny"


def test_a_new_session_asks_again(tmp_path: Path) -> None:
    cwd = _project(tmp_path)
    first = build_pipeline(cwd).pipeline
    first.remember(_request("git status"), Scope.SESSION)
    assert _decide(first, "git status") == "allow"
    assert _decide(build_pipeline(cwd).pipeline, "git status") == "ask"


def test_always_still_saves_and_session_does_not(tmp_path: Path) -> None:
    cwd = _project(tmp_path)
    setup = build_pipeline(cwd)
    setup.pipeline.remember(_request("git status"), Scope.SESSION)
    local = cwd / ".agent-tui" / "settings.local.json"
    assert json.loads(local.read_text()) == {"theme": "x"}
    setup.pipeline.remember(_request("make test"), Scope.ALWAYS)
    assert json.loads(local.read_text())["permissions"]["allow"] == ["run_shell(make test:*)"]


def _agent(cwd: Path, answers: list[Approval], asked: list[str]) -> Agent:
    async def asker(request: ApprovalRequest) -> Approval:
        asked.append(request.call.id)
        return answers.pop(0)

    call = {"name": "run_shell", "arguments": {"command": "touch made"}}
    script = write_script(
        cwd / "script.json",
        [
            {"tool_calls": [{"id": "1", **call}]},
            {"tool_calls": [{"id": "2", **call}]},
            {"text": "done"},
        ],
    )
    agent = Agent(
        ScriptProvider(script),
        default_registry(),
        cwd,
        policy=build_pipeline(cwd).pipeline,
        system="test",
    )
    agent.executor.asker = asker
    return agent


async def test_through_the_agent_the_session_allow_lasts_the_session_only(
    tmp_path: Path,
) -> None:
    cwd = _project(tmp_path)
    before = _files(cwd / ".agent-tui", config_dir())
    asked: list[str] = []
    agent = _agent(cwd, [Approval(allowed=True, scope=Scope.SESSION)], asked)
    events = await collect(agent, "go")
    assert asked == ["1"]  # the second, identical call ran without asking
    assert [e.id for e in of_type(events, "tool_result")] == ["1", "2"]
    assert _files(cwd / ".agent-tui", config_dir()) == before
    asked_again: list[str] = []
    fresh = _agent(cwd, [Approval(allowed=False), Approval(allowed=False)], asked_again)
    await collect(fresh, "go")
    assert asked_again == ["1", "2"]  # a new session asks again


async def test_a_new_conversation_in_the_same_process_asks_again(tmp_path: Path) -> None:
    """Ctrl+L / /clear: "allow for this session" meant the conversation that ended; "always"
    stays. Resuming another session forgets the session allows too."""
    cwd = _project(tmp_path)
    pipeline = build_pipeline(cwd).pipeline
    agent = Agent(
        ScriptProvider(write_script(cwd / "script.json", [{"text": "hi"}])),
        default_registry(),
        cwd,
        policy=pipeline,
        system="test",
    )
    pipeline.remember(_request("git status"), Scope.SESSION)
    pipeline.remember(_request("make test"), Scope.ALWAYS)
    assert _decide(pipeline, "git status") == "allow"
    await agent.new_session()
    assert _decide(pipeline, "git status") == "ask"
    assert _decide(pipeline, "make test") == "allow"
    pipeline.remember(_request("git status"), Scope.SESSION)
    assert agent.session is not None
    await agent.resume(agent.session.path)
    assert _decide(pipeline, "git status") == "ask"
    assert _decide(pipeline, "make test") == "allow"
