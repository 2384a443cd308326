"""Fixtures shared by the UI tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(tmp_path / "config"))
