"""Where agent-tui keeps things: user config and data dirs (overridable for tests)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "agent-tui"


def data_dir() -> Path:
    """Sessions and other per-user data. ``AGENT_TUI_DATA_DIR`` overrides."""
    override = os.environ.get("AGENT_TUI_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir(APP))


def config_dir() -> Path:
    """User settings. ``AGENT_TUI_CONFIG_DIR`` overrides."""
    override = os.environ.get("AGENT_TUI_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir(APP))


def cache_dir() -> Path:
    """Things kept to go faster, rebuilt when lost (the MCP tool caches). ``AGENT_TUI_CACHE_DIR``
    overrides; else ``<data dir>/cache`` when ``AGENT_TUI_DATA_DIR`` is set (one override moves
    all of agent-tui's state: tests, portable installs), else the platform's user cache dir."""
    override = os.environ.get("AGENT_TUI_CACHE_DIR")
    if override:
        return Path(override)
    if os.environ.get("AGENT_TUI_DATA_DIR"):
        return data_dir() / "cache"
    return Path(platformdirs.user_cache_dir(APP))
