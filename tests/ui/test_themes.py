"""Themes: the shipped files load; a broken file is skipped with a warning, never a crash."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agent_tui.core.settings import Settings, UISettings
from agent_tui.ui.chat import Notice
from agent_tui.ui.shell.preferences import PreferenceError, save_user_setting
from agent_tui.ui.shell.themes import DEFAULT_THEME, ThemeFile, load_themes, themes_dir

from .helpers import SIZE, make_agent, make_app, wait_for


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
    with caplog.at_level(logging.WARNING, logger="agent_tui.ui.shell.themes"):
        themes = load_themes(tmp_path)
    assert [theme.name for theme in themes] == ["fine"]
    skipped = sorted(r.getMessage().split()[2].rstrip(":") for r in caplog.records)
    assert skipped == ["colour.json", "extra.json", "syntax.json"]


def test_three_shipped_themes_dark_light_and_high_contrast() -> None:
    themes = {theme.name: theme for theme in load_themes(themes_dir())}
    assert {"agent-dark", "agent-light", "agent-contrast"} <= set(themes)
    assert themes["agent-dark"].dark
    assert not themes["agent-light"].dark
    assert themes["agent-contrast"].background == "#000000"


async def test_a_user_theme_is_picked_up_and_the_choice_persists(tmp_path: Path) -> None:
    config = tmp_path / "config"  # AGENT_TUI_CONFIG_DIR (tests/ui/conftest.py)
    (config / "themes").mkdir(parents=True)
    mine = {"name": "my-sunset", "primary": "#FF7755", "background": "#221111", "dark": True}
    (config / "themes" / "my-sunset.json").write_text(json.dumps(mine), encoding="utf-8")
    (config / "themes" / "broken.json").write_text("{", encoding="utf-8")
    settings = config / "settings.json"
    settings.write_text(json.dumps({"budget": {"preview_chars": 1234}}), encoding="utf-8")
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "my-sunset" in app.available_themes
        assert app.theme == DEFAULT_THEME
        notices = [n.text for n in app.main.chat.query(Notice)]
        assert any("broken.json" in text for text in notices)
        app.theme = "agent-light"  # the picker previews themes as it passes over them
        app.theme = "my-sunset"
        await wait_for(pilot, lambda: "my-sunset" in settings.read_text(), "the theme to be saved")
    saved = json.loads(settings.read_text(encoding="utf-8"))
    assert saved == {"budget": {"preview_chars": 1234}, "ui": {"theme": "my-sunset"}}
    assert not [p for p in config.iterdir() if p.name.startswith(".settings.json")]


async def test_the_saved_theme_is_used_at_start(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    agent.settings = Settings(ui=UISettings(theme="agent-light"))
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "agent-light"
    assert not (tmp_path / "config" / "settings.json").exists()  # nothing to save


async def test_an_unknown_saved_theme_is_reported(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    agent.settings = Settings(ui=UISettings(theme="nope"))
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == DEFAULT_THEME
        assert any("'nope'" in n.text for n in app.main.chat.query(Notice))


def test_saving_a_setting_keeps_the_rest_and_refuses_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    assert save_user_setting("ui", "theme", "agent-light", path) == path
    assert json.loads(path.read_text()) == {"ui": {"theme": "agent-light"}}
    path.write_text('{"ui": {"auto_expand": "never"}, "x": 1}', encoding="utf-8")
    save_user_setting("ui", "theme", "agent-dark", path)
    assert json.loads(path.read_text()) == {
        "ui": {"auto_expand": "never", "theme": "agent-dark"},
        "x": 1,
    }
    path.write_text('{"ui": ', encoding="utf-8")
    with pytest.raises(PreferenceError, match="not valid JSON"):
        save_user_setting("ui", "theme", "agent-dark", path)
    assert path.read_text() == '{"ui": '
