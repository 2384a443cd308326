"""Fixtures shared by the UI tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture(autouse=True)
def _no_system_clipboard(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test puts text on the desktop's clipboard: no display, and not macOS (the clipboard
    tests make fake tools of their own)."""
    from agent_tui.ui.common import clipboard

    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setattr(clipboard, "PLATFORM", "linux")
