"""Servers turned off in a project are remembered in ``.agent-tui/settings.local.json``: a new
manager (a new session, ``mcp list``) keeps them off until they are enabled; ``.mcp.json`` is
never rewritten for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.cli.main import main
from agent_tui.core.mcp.client.disabled import read_disabled, remember_disabled
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.settings import load_settings, local_settings_path
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import DEADLINE, fixture_entry, write_config


def test_remembering_keeps_the_other_keys(tmp_path: Path) -> None:
    path = tmp_path / ".agent-tui" / "settings.local.json"
    assert read_disabled(path) == (set(), None)
    assert not remember_disabled(path, "gh", False)  # nothing to forget: no file is created
    assert not path.exists()
    path.parent.mkdir()
    path.write_text(json.dumps({"permissions": {"allow": ["read_file"]}, "mcp": {"x": 1}}))
    assert remember_disabled(path, "gh", True)
    assert not remember_disabled(path, "gh", True)
    assert remember_disabled(path, "web", True)
    data = json.loads(path.read_text())
    assert data == {
        "permissions": {"allow": ["read_file"]},
        "mcp": {"x": 1, "disabled": ["gh", "web"]},
    }
    assert read_disabled(path) == ({"gh", "web"}, None)
    assert remember_disabled(path, "gh", False)
    assert remember_disabled(path, "web", False)
    assert json.loads(path.read_text()) == {
        "permissions": {"allow": ["read_file"]},
        "mcp": {"x": 1},
    }
    # The settings loader knows the section: no "unknown section" warning.
    path.write_text(json.dumps({"mcp": {"disabled": ["gh"]}}))
    assert load_settings(tmp_path).problems == []


def test_broken_files_are_reported_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "settings.local.json"
    path.write_text('{"mcp": {"disabled": "gh"}}')
    names, problem = read_disabled(path)
    assert names == set()
    assert problem is not None
    assert '"mcp.disabled" must be a list of server names' in problem
    with pytest.raises(ValueError, match="not a list"):
        remember_disabled(path, "gh", True)
    path.write_text("{oops")
    names, problem = read_disabled(path)
    assert problem is not None
    assert "not valid JSON" in problem
    with pytest.raises(ValueError, match="not valid JSON"):
        remember_disabled(path, "gh", True)
    assert path.read_text() == "{oops"


async def test_disable_survives_a_new_manager_and_enable_forgets_it(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / ".mcp.json",
        {"fx": fixture_entry(name="remembered"), "team-off": fixture_entry(disabled=True)},
    )
    shared = config.read_text()
    local = local_settings_path(tmp_path)

    first = McpManager(tmp_path, default_registry(), paths=[config])
    try:
        await first.start()
        await first.wait_ready()
        assert first.state("fx").status == "connected"
        said = await first.disable("fx")
        assert said == "fx disabled; remembered for this project in .agent-tui/settings.local.json"
        assert first.state("fx").status == "disabled"
        assert first.state("fx").disabled_by == "project"
    finally:
        await first.aclose()
    assert json.loads(local.read_text()) == {"mcp": {"disabled": ["fx"]}}
    assert config.read_text() == shared  # the team's file is left alone

    # A new session: the server stays off and is never started.
    second = McpManager(tmp_path, default_registry(), paths=[config])
    try:
        await second.start()
        await second.wait_ready()
        state = second.state("fx")
        assert state.status == "disabled"
        assert state.reason == (
            "turned off for this project (remembered in .agent-tui/settings.local.json)"
        )
        assert "mcp__fx__echo" not in second.registry
        assert second.state("team-off").disabled_by == "file"
        assert '("disabled": true)' in (second.state("team-off").reason or "")
        said = await second.enable("team-off")
        assert "for this session only" in said
        assert '"disabled": true' in said
        assert await second.wait_for(
            lambda: second.state("team-off").status == "connected", DEADLINE
        )
        assert second.state("team-off").disabled_in_file
        assert await second.enable("fx") == "fx enabled"
        assert await second.wait_for(lambda: second.state("fx").status == "connected", DEADLINE)
    finally:
        await second.aclose()
    assert read_disabled(local) == (set(), None)
    assert config.read_text() == shared


def test_mcp_list_shows_what_is_remembered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(tmp_path / ".mcp.json", {"fx": fixture_entry(name="never-started")})
    remember_disabled(local_settings_path(tmp_path), "fx", True)
    code = main(["mcp", "--cwd", str(tmp_path), "list"])
    out = capsys.readouterr().out
    assert code == 0
    assert "fx  (stdio: " in out
    assert (
        "disabled: turned off for this project (remembered in .agent-tui/settings.local.json)"
        in out
    )
    code = main(["mcp", "--cwd", str(tmp_path), "list", "--json"])
    servers = {s["name"]: s for s in json.loads(capsys.readouterr().out)["servers"]}
    assert servers["fx"]["status"] == "disabled"
    assert servers["fx"]["tool_count"] == 0


async def test_a_broken_local_file_disables_for_the_session_only(tmp_path: Path) -> None:
    config = write_config(tmp_path / ".mcp.json", {"fx": fixture_entry()})
    local = local_settings_path(tmp_path)
    local.parent.mkdir()
    local.write_text("{not json")
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    try:
        problems = [p for p in manager.problems if p.path == local]
        assert problems
        assert "not valid JSON" in problems[0].message
        said = await manager.disable("fx")  # never started: nothing to stop
        assert said.startswith("fx disabled for this session only: it could not be remembered")
        state = manager.state("fx")
        assert (state.status, state.disabled_by) == ("disabled", "session")
        assert state.reason == "turned off for this session"
        assert local.read_text() == "{not json"
    finally:
        await manager.aclose()
