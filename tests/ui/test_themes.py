"""Themes: the shipped files load; a broken file is skipped with a warning, never a crash."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agent_tui.ui.themes import DEFAULT_THEME, ThemeFile, load_themes, themes_dir


def test_the_shipped_themes_load() -> None:
    directory = themes_dir()
    assert directory is not None
    names = [theme.name for theme in load_themes(directory)]
    assert DEFAULT_THEME in names
    assert "agent-light" in names


def test_every_shipped_theme_file_is_valid() -> None:
    directory = themes_dir()
    assert directory is not None
    for entry in directory.iterdir():
        if entry.name.endswith(".json"):
            theme = ThemeFile.model_validate(json.loads(entry.read_text("utf-8")))
            assert entry.name == f"{theme.name}.json"


def test_broken_theme_files_are_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    good = {"name": "fine", "primary": "#336699", "dark": True}
    (tmp_path / "fine.json").write_text(json.dumps(good), encoding="utf-8")
    (tmp_path / "syntax.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "colour.json").write_text(
        json.dumps({"name": "colour", "primary": "not-a-colour"}), encoding="utf-8"
    )
    (tmp_path / "extra.json").write_text(
        json.dumps({**good, "name": "extra", "sparkle": True}), encoding="utf-8"
    )
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="agent_tui.ui.themes"):
        themes = load_themes(tmp_path)
    assert [theme.name for theme in themes] == ["fine"]
    skipped = sorted(r.getMessage().split()[2].rstrip(":") for r in caplog.records)
    assert skipped == ["colour.json", "extra.json", "syntax.json"]
