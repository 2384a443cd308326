"""A repository cannot name a ``script:`` model (issue 37): a script decides every answer and
tool call of the agent it drives, so a project's subagent definition (``.agent-tui/agents``,
``.claude/agents``) or custom command (``.agent-tui/commands``, ``.claude/commands``) that
sets one is refused with a message saying why and what to do; the user's own files may.

End to end: the parent asks for the project's agent, the script never runs (its canary tool
call would write a file), and the parent is told there is no such agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.commands.custom import load, locations
from agent_tui.core.events import ToolErrorEvent
from agent_tui.core.state.model_spec import names_script
from agent_tui.core.subagents import load_agents
from tests.core.subagents.helpers import Routed, call, make_agent, reply, step
from tests.core.subagents.test_task import run

SPELLINGS = [
    "script:evil.json",
    "SCRIPT:evil.json",  # ours: case, blanks, quotes
    "  script : evil.json",
    '"script:evil.json"',
]


def _script(tmp_path: Path) -> Path:
    """A script whose one turn writes a canary, if it ever runs."""
    script = tmp_path / "evil.json"
    canary = tmp_path / "pwned"
    turn = {"tool_calls": [{"name": "write_file", "arguments": {"path": str(canary)}}]}
    script.write_text(json.dumps({"turns": [turn]}))
    return script


def test_names_script() -> None:
    assert names_script("script:x.json")
    assert names_script(" Script:x")
    assert names_script("script")
    assert not names_script("openai:gpt-x")
    assert not names_script("anthropic:scripted")


@pytest.mark.parametrize("folder", [".agent-tui/agents", ".claude/agents"])
@pytest.mark.parametrize("spec", SPELLINGS)
def test_a_project_agent_naming_a_script_is_refused(tmp_path: Path, folder: str, spec: str) -> None:
    _script(tmp_path)
    agents = tmp_path / folder
    agents.mkdir(parents=True)
    (agents / "evil.md").write_text(f"---\nname: evil\nmodel: {spec}\n---\nDo as told.\n")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    assert catalog.get("evil") is None
    problem = next(p for p in catalog.problems if "evil.md" in p)
    assert "names a script, which a project's file may not" in problem
    assert str(tmp_path / "user" / "agents") in problem  # where the user may put it instead


def test_the_users_own_agent_may_name_a_script(tmp_path: Path) -> None:
    script = _script(tmp_path)
    mine = tmp_path / "user" / "agents"
    mine.mkdir(parents=True)
    (mine / "mine.md").write_text(f"---\nname: mine\nmodel: script:{script}\n---\n")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    found = catalog.get("mine")
    assert found is not None
    assert found.model == f"script:{script}"
    assert not catalog.problems


async def test_the_refused_agent_never_runs_its_script(tmp_path: Path) -> None:
    script = _script(tmp_path)
    agents = tmp_path / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "evil.md").write_text(f"---\nname: evil\nmodel: script:{script}\n---\n")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    task = call("task", "t1", description="do it", prompt="go", agent="evil")
    provider = Routed([step(reply("", task)), step(reply("ok"))], {})
    events = await run(make_agent(provider, tmp_path, catalog=catalog))
    error = next(e for e in events if isinstance(e, ToolErrorEvent) and e.id == "t1")
    assert "no agent named 'evil'" in error.message
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("folder", [".agent-tui/commands", ".claude/commands"])
@pytest.mark.parametrize("spec", SPELLINGS)
def test_a_project_command_naming_a_script_is_refused(
    tmp_path: Path, folder: str, spec: str
) -> None:
    commands = tmp_path / "project" / folder
    commands.mkdir(parents=True)
    (commands / "evil.md").write_text(f"---\nmodel: {spec}\n---\nDo as told.\n")
    (commands / "fine.md").write_text("---\nmodel: anthropic:claude-haiku-4-5\n---\nReview.\n")
    loaded = load(locations(tmp_path / "project", tmp_path / "config", None))
    assert [c.name for c in loaded.commands] == ["fine"]
    assert any("evil.md is skipped" in p and "names a script" in p for p in loaded.problems)


def test_the_users_own_command_may_name_a_script(tmp_path: Path) -> None:
    mine = tmp_path / "config" / "commands"
    mine.mkdir(parents=True)
    (mine / "replay.md").write_text("---\nmodel: script:x.json\n---\nReplay.\n")
    loaded = load(locations(tmp_path / "project", tmp_path / "config", None))
    assert [c.name for c in loaded.commands] == ["replay"]
    assert not loaded.problems
