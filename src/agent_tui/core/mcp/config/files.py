"""Where the MCP configuration lives: the user's ``mcp.json`` in the config dir and the
project's ``.mcp.json``. Kept apart from ``load`` (pydantic, the whole format) so a run can tell
whether any server could be configured without importing how they are read."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.state.paths import config_dir

PROJECT_FILE = ".mcp.json"
USER_FILE = "mcp.json"


def user_config_path() -> Path:
    return config_dir() / USER_FILE


def project_config_path(cwd: Path) -> Path:
    return cwd / PROJECT_FILE


def config_paths(cwd: Path) -> list[Path]:
    return [user_config_path(), project_config_path(cwd)]
