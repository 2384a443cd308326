"""A subagent's background job is the session's: it shows in the session's job list (the
cards, ``/shells``), the parent can read and kill it, and it is killed when the session
closes — not left running when the child's work is done."""

from __future__ import annotations

import secrets
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.jobs import JobState
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.settings import Settings
from agent_tui.core.subagents import install, load_agents
from agent_tui.core.tools.builtin import default_registry
from tests.core.jobs.helpers import pids_with
from tests.core.subagents.helpers import Routed, call, reply, step


async def test_a_subagents_job_is_the_sessions(tmp_path: Path) -> None:
    work = tmp_path / "work"
    agents = work / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "runner.md").write_text("---\nname: runner\ntools: run_shell\n---\n")
    marker = f"sleeper-{secrets.token_hex(4)}"
    start = call("run_shell", "s1", command=f"exec -a {marker} sleep 300", run_in_background=True)
    task = call("task", "t1", description="serve", prompt="serve", agent="runner")
    provider = Routed(
        [
            step(reply("", task)),
            step(reply("", call("shell_kill", "k1", id="1"))),
            step(reply("k")),
        ],
        {"serve": [step(reply("", start)), step(reply("started"))]},
    )
    agent = Agent(
        provider,
        default_registry(),
        work,
        policy=SimplePolicy(["run_shell", "task"]),
        settings=Settings.model_validate({"sandbox": {"mode": "off"}}),
        system="test",
    )
    install(agent, load_agents(work, user_dir=tmp_path / "user"))
    events = [e async for e in agent.run("go")]
    assert events
    infos = agent.executor.jobs.infos()
    assert [(i.id, i.state, i.killed_by) for i in infos] == [("1", JobState.KILLED, "model")]
    assert not pids_with(marker)
    await agent.close()
