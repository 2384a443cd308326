"""Shared test setup: every test gets private data/config dirs and no real model keys."""

from __future__ import annotations

from pathlib import Path

import pytest

_MODEL_ENV = (
    "AGENT_API_KEY",
    "AGENT_BASE_URL",
    "AGENT_MODEL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
)


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("agent-home")
    monkeypatch.setenv("AGENT_TUI_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("AGENT_DEMO_DELAY", "0")
    for name in _MODEL_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project directory for the agent to work in."""
    root = tmp_path / "project"
    root.mkdir()
    return root
