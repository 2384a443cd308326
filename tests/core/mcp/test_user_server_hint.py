"""A user-level MCP server that fails to start: the hint names the file that configures it,
the user's own ``mcp.json`` (it said "check .mcp.json", a file the user never wrote)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.mcp.conftest import write_config
from tests.test_cli_headless import run_cli, write_script


def test_a_failing_user_server_names_the_users_mcp_json(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "agent-tui"
    config.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(config))
    write_config(config / "mcp.json", {"nocmd": {"command": str(workspace / "missing")}})
    script = write_script(workspace / "s.json", [{"text": "Hello."}])
    done = run_cli("-p", "hi", "--model", f"script:{script}", cwd=workspace, timeout=120)
    assert done.returncode == 0, done.stderr
    warning = next(
        line for line in done.stderr.splitlines() if "MCP server nocmd failed to start" in line
    )
    assert warning.endswith("; check ~/.config/agent-tui/mcp.json / run `agent-tui mcp list`")
    assert ".mcp.json" not in warning.replace("/mcp.json", "")
