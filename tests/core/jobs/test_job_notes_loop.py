"""The agent loop and background jobs: a job that ended is told to the next model request
(once, a short line naming it, its exit and its unread lines) and shown as a typed
``jobs_ended`` event; closing the agent kills what still runs."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.agent.job_notes import offered
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import JobsEnded
from agent_tui.core.jobs import JOB_TOOLS, JobState
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from tests.core.helpers import collect, write_script
from tests.core.jobs.helpers import pids_with


def _agent(tmp_path: Path, turns: list[dict[str, Any]]) -> Agent:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    store = SessionStore(tmp_path / "sessions")
    return Agent(
        ScriptProvider(write_script(tmp_path / "script.json", turns)),
        default_registry(),
        ws,
        policy=SimplePolicy({"*"}),
        session=store.new(ws, "script"),
        sessions=store,
        system="test",
    )


def _bg(call_id: str, command: str) -> dict[str, Any]:
    arguments = {"command": command, "run_in_background": True}
    return {"tool_calls": [{"id": call_id, "name": "run_shell", "arguments": arguments}]}


async def test_the_next_prompt_is_told_once(tmp_path: Path) -> None:
    # The job waits for `go`, made once the first turn is over: a job that ends before the
    # first turn's next request is told there (the next boundary), not to the next prompt.
    command = "until [ -e go ];do sleep .02;done;echo one;echo two;exit 1"
    turns = [_bg("a", command), {"text": "started"}, {"text": "ok"}]
    turns += [{"text": "ok again"}]
    agent = _agent(tmp_path, turns)
    first = await collect(agent, "start it")
    assert not any(isinstance(e, JobsEnded) for e in first)
    job = agent.executor.jobs.get("1")
    (tmp_path / "ws" / "go").touch()  # the job's working directory: the workspace
    await asyncio.wait_for(job.done.wait(), 60)
    events = await collect(agent, "what now")
    ended = [e for e in events if isinstance(e, JobsEnded)]
    assert len(ended) == 1
    got = ended[0].jobs[0]
    assert (got.id, got.state, got.exit_code, got.new_lines) == ("1", "exited", 1, 2)
    prompt = agent.messages[-2].content
    assert "what now" in prompt
    assert f"background job 1 `{command}` exited 1; 2 new lines" in prompt
    assert 'use shell_output(id="1")' in prompt
    events = await collect(agent, "and now")
    assert not any(isinstance(e, JobsEnded) for e in events)
    assert "<background-jobs>" not in agent.messages[-2].content
    await agent.close()


async def test_a_job_ending_during_a_turn_is_told_at_the_next_boundary(tmp_path: Path) -> None:
    wait = {"tool_calls": [{"id": "w", "name": "run_shell", "arguments": {"command": "sleep 1"}}]}
    turns = [_bg("a", "exit 4"), wait, {"text": "done"}]
    agent = _agent(tmp_path, turns)
    events = await collect(agent, "go")
    ended = [e for e in events if isinstance(e, JobsEnded)]
    assert [e.jobs[0].exit_code for e in ended] == [4]
    notes = [m for m in agent.messages if m.role == "user" and "<background-jobs>" in m.content]
    assert len(notes) == 1
    assert "exited 4; no new output" in notes[0].content
    await agent.close()


async def test_closing_the_agent_kills_its_jobs(tmp_path: Path) -> None:
    marker = f"sleeper-{secrets.token_hex(4)}"
    agent = _agent(tmp_path, [_bg("a", f"exec -a {marker} sleep 300"), {"text": "k"}])
    await collect(agent, "go")
    assert pids_with(marker)
    await agent.close()
    assert not pids_with(marker)
    assert agent.executor.jobs.infos()[0].state is JobState.KILLED


async def test_the_job_tools_are_offered_once_there_is_a_job(tmp_path: Path) -> None:
    """They cost every request ~300 tokens: offered only once the session has a job."""
    agent = _agent(tmp_path, [_bg("a", "exit 0"), {"text": "k"}])
    names = set(offered(agent.registry, agent.executor.jobs).names())
    assert "run_shell" in names
    assert not names & JOB_TOOLS
    await collect(agent, "go")
    assert set(offered(agent.registry, agent.executor.jobs).names()) >= JOB_TOOLS
    await agent.close()
