"""Claude Code's agent files as they are: in subfolders (``.claude/agents/team/builder.md``)
and with Claude Code's model names (``sonnet``, ``opus``, ``haiku``, ``inherit``), mapped by
the ``model.aliases`` setting or run on the session's model with one problem saying so."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.events import Event, ToolResult
from agent_tui.core.settings import ModelSettings
from agent_tui.core.subagents import load_agents
from tests.core.subagents.helpers import Routed, call, make_agent, reply, step

WAIT = 30.0


def _agent(folder: Path, rel: str, front: str, body: str = "Do the work.") -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}\n---\n{body}\n")
    return path


async def _run(agent: Any) -> list[Event]:
    async def collect() -> list[Event]:
        return [e async for e in agent.run("go")]

    return await asyncio.wait_for(collect(), WAIT)


def test_agents_in_subfolders_are_found(tmp_path: Path) -> None:
    claude = tmp_path / ".claude" / "agents"
    ours = tmp_path / ".agent-tui" / "agents"
    _agent(claude, "team/builder.md", "name: builder\ndescription: Builds it")
    _agent(claude, "team/qa/checker.md", "description: Checks it")  # name from the stem
    _agent(ours, "deep/a/b/c/reviewer.md", "name: reviewer\ndescription: Reviews")
    _agent(claude, "team/notes.txt", "name: not-an-agent")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    assert {"builder", "checker", "reviewer"} <= set(catalog.names())
    assert "not-an-agent" not in catalog.names()
    builder = catalog.get("builder")
    assert builder is not None
    assert builder.path == claude / "team" / "builder.md"
    assert builder.scope == "project"
    assert not catalog.problems


def test_the_users_agents_in_subfolders_are_found(tmp_path: Path) -> None:
    _agent(tmp_path / "user" / "agents", "mine/helper.md", "name: helper")
    assert load_agents(tmp_path, user_dir=tmp_path / "user").get("helper") is not None


def test_two_files_of_one_name_are_named(tmp_path: Path) -> None:
    claude = tmp_path / ".claude" / "agents"
    _agent(claude, "a/builder.md", "name: builder\ndescription: first")
    _agent(claude, "b/builder.md", "name: builder\ndescription: second")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    found = catalog.get("builder")
    assert found is not None
    assert found.description == "second"
    assert any("both define 'builder'" in p for p in catalog.problems)


def test_a_folder_link_is_not_followed(tmp_path: Path) -> None:
    """A link to a folder (a loop, or somewhere outside the project) is not walked."""
    claude = tmp_path / ".claude" / "agents"
    outside = tmp_path / "elsewhere"
    _agent(outside, "stray.md", "name: stray")
    claude.mkdir(parents=True)
    os.symlink(outside, claude / "linked")
    os.symlink(claude, claude / "loop")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    assert catalog.get("stray") is None


def _script(tmp_path: Path, text: str) -> Path:
    script = tmp_path / "child.json"
    script.write_text(json.dumps({"turns": [{"text": text}]}))
    return script


async def test_a_claude_model_name_runs_on_the_mapped_model(tmp_path: Path) -> None:
    script = _script(tmp_path, "from the mapped model")
    _agent(tmp_path / "user" / "agents", "team/fast.md", "name: fast\nmodel: Haiku")
    catalog = load_agents(
        tmp_path, user_dir=tmp_path / "user", models={"haiku": f"script:{script}"}
    )
    found = catalog.get("fast")
    assert found is not None
    assert found.model == f"script:{script}"
    assert not catalog.problems
    task = call("task", "t1", description="x", prompt="do it", agent="fast")
    provider = Routed([step(reply("", task)), step(reply("ok"))], {})
    events = await _run(make_agent(provider, tmp_path, catalog=catalog))
    result = next(e for e in events if isinstance(e, ToolResult) and e.id == "t1")
    assert result.content == "from the mapped model"
    assert [who for who, _ in provider.requests] == ["parent", "parent"]


@pytest.mark.parametrize("name", ["sonnet", "opus", "haiku"])
async def test_an_unmapped_claude_model_runs_on_the_sessions_model_and_says_so(
    tmp_path: Path, name: str
) -> None:
    _agent(tmp_path / ".claude" / "agents", "team/builder.md", f"name: builder\nmodel: {name}")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    found = catalog.get("builder")
    assert found is not None  # never fails the agent
    assert found.model is None
    said = [p for p in catalog.problems if "builder.md" in p]
    assert len(said) == 1
    assert f"'{name}' is a Claude Code model name" in said[0]
    assert "runs on the session's model" in said[0]
    assert f'"aliases": {{"{name}": ' in said[0]
    task = call("task", "t1", description="x", prompt="build it", agent="builder")
    provider = Routed(
        [step(reply("", task)), step(reply("ok"))], {"build it": [step(reply("built"))]}
    )
    events = await _run(make_agent(provider, tmp_path, catalog=catalog))
    result = next(e for e in events if isinstance(e, ToolResult) and e.id == "t1")
    assert "built" in result.content
    assert [who for who, _ in provider.requests] == ["parent", "build it", "parent"]


def test_inherit_is_the_sessions_model_without_a_word(tmp_path: Path) -> None:
    _agent(tmp_path / ".claude" / "agents", "x.md", "name: x\nmodel: inherit")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user", models={"sonnet": "demo"})
    found = catalog.get("x")
    assert found is not None
    assert found.model is None
    assert not catalog.problems


def test_a_project_agent_mapped_to_a_script_is_still_refused(tmp_path: Path) -> None:
    """The script rule judges the model the alias maps to, not the name the file gives."""
    script = _script(tmp_path, "pwned")
    _agent(tmp_path / ".claude" / "agents", "evil.md", "name: evil\nmodel: opus")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user", models={"opus": f"script:{script}"})
    assert catalog.get("evil") is None
    assert any("names a script" in p for p in catalog.problems)


def test_model_aliases_setting_refuses_a_script_and_a_bare_name() -> None:
    with pytest.raises(ValueError, match="names a script"):
        ModelSettings(aliases={"sonnet": "script:/tmp/x.json"})
    with pytest.raises(ValueError, match="not a provider spec"):
        ModelSettings(aliases={"sonnet": "claude-sonnet-4-5"})
    settings = ModelSettings(aliases={" Sonnet ": "anthropic:claude-sonnet-4-5"})
    assert settings.aliases == {"sonnet": "anthropic:claude-sonnet-4-5"}
