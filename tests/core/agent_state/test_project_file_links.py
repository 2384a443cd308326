"""Files the agent writes in the project — ``.agent-tui/settings.local.json`` (an "always
allow" answer, a server turned off) and ``.mcp.json`` (``agent-tui mcp add``) — are never
written through a link a repository ships or a command plants. JSON with a rule the model
chose is code to a shell: ``"run_shell(echo $(touch PWNED))"`` in a file bash sources runs the
command substitution (the line fails as a command only after its words are expanded)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.mcp.client.disabled import remember_disabled
from agent_tui.core.mcp.config.edit import ConfigEditError, add_server
from agent_tui.core.permissions import Rule
from agent_tui.core.permissions.config import add_local_rules
from agent_tui.core.permissions.setup import build_pipeline
from tests.core.agent_state.helpers import run_cli

RULE = "run_shell(echo $(touch PWNED))"


def sourced(rc: Path, cwd: Path) -> None:
    """A new shell that sources ``rc`` (as ~/.bashrc sources ~/.bashrc.d/*)."""
    subprocess.run(
        ["bash", "-c", f". {rc}"], cwd=cwd, capture_output=True, timeout=60, check=False,
        env={**os.environ, "HOME": str(cwd)},
    )  # fmt: skip


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """(workspace whose .agent-tui/settings.local.json is a link, the file it points to in a
    directory a login shell sources)."""
    workspace = tmp_path / "ws"
    (workspace / ".agent-tui").mkdir(parents=True)
    target = tmp_path / "home" / ".bashrc.d" / "zz-agent"
    target.parent.mkdir(parents=True)
    (workspace / ".agent-tui" / "settings.local.json").symlink_to(target)
    return workspace, target


def test_the_attack_is_real_json_with_the_rule_runs_in_a_shell(tmp_path: Path) -> None:
    rc = tmp_path / "rc"
    rc.write_text(json.dumps({"permissions": {"allow": [RULE]}}, indent=2) + "\n")
    sourced(rc, tmp_path)
    assert (tmp_path / "PWNED").exists()


def test_always_allow_refuses_a_symlinked_settings_local(planted: tuple[Path, Path]) -> None:
    workspace, target = planted
    setup = build_pipeline(workspace)
    [save] = setup.pipeline.on_remember
    save([Rule.parse(RULE, source="test")])
    assert not target.exists()
    [said] = setup.saved
    assert said.startswith("not saved")
    assert "allowed for this session only" in said
    assert "symbolic link" in said
    assert "rm " in said
    for rc in target.parent.iterdir():  # the later effect: a login shell finds nothing to run
        sourced(rc, workspace)
    assert not (workspace / "PWNED").exists()


@pytest.mark.parametrize(
    "link", [".agent-tui", ".agent-tui/settings.local.json"], ids=["dir", "file"]
)
def test_add_local_rules_through_a_link_changes_nothing(tmp_path: Path, link: str) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "settings.local.json").write_text("{}\n")  # a JSON file a link could aim at
    if link == ".agent-tui":
        (workspace / ".agent-tui").symlink_to(outside)
    else:
        (workspace / ".agent-tui").mkdir()
        (workspace / link).symlink_to(outside / "settings.local.json")
    with pytest.raises(ValueError, match="symbolic link"):
        add_local_rules(workspace, [Rule.parse(RULE, source="test")])
    assert (outside / "settings.local.json").read_text() == "{}\n"


def test_a_real_settings_local_is_still_written(tmp_path: Path) -> None:
    (tmp_path / ".agent-tui").mkdir()
    path = add_local_rules(tmp_path, [Rule.parse("run_shell(make test)", source="test")])
    assert json.loads(path.read_text()) == {"permissions": {"allow": ["run_shell(make test)"]}}
    assert not path.is_symlink()


def test_turning_a_server_off_refuses_a_symlinked_settings_local(
    planted: tuple[Path, Path],
) -> None:
    workspace, target = planted
    file = workspace / ".agent-tui" / "settings.local.json"
    with pytest.raises(ValueError, match="symbolic link"):
        remember_disabled(file, "$(touch PWNED)", True, within=workspace)
    assert not target.exists()


def test_mcp_add_refuses_a_symlinked_project_mcp_json(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / ".mcp.json").symlink_to(outside / "rc")
    with pytest.raises(ConfigEditError, match="symbolic link"):
        add_server(workspace / ".mcp.json", "x", {"command": "true"}, within=workspace)
    assert not (outside / "rc").exists()
    done = run_cli("mcp", "add", "x", "--", "true", cwd=workspace)  # the real command
    assert done.returncode != 0
    assert "symbolic link" in done.stderr
    assert not (outside / "rc").exists()
