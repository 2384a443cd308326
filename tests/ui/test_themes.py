"""Themes: the shipped files load; a broken file is skipped with a warning, never a crash."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agent_tui.core.events import SessionStart
from agent_tui.core.settings import Settings, UISettings, load_settings
from agent_tui.ui.chat import Notice
from agent_tui.ui.shell.preferences import PreferenceError, save_user_setting
from agent_tui.ui.shell.themes import DEFAULT_THEME, ThemeFile, load_themes, themes_dir

from .helpers import SIZE, QuietApp, make_agent, make_app, wait_for


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


def _app_with_user_settings(tmp_path: Path) -> QuietApp:
    """The app as the CLI builds it: the settings loaded from the files, their problems in
    the session's warnings."""
    loaded = load_settings(tmp_path)
    agent = make_agent(tmp_path, [])
    agent.settings = loaded.settings
    start = SessionStart(
        session_id="s", model="script", cwd=str(tmp_path), warnings=loaded.messages()
    )
    return make_app(agent, session=start)


def _messages(app: QuietApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_a_broken_user_settings_file_is_reported_and_no_theme_is_saved(
    tmp_path: Path,
) -> None:
    settings = tmp_path / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"ui": ', encoding="utf-8")
    app = _app_with_user_settings(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: list(app.main.chat.query(Notice)), "the start-up notice")
        [notice] = [n.text for n in app.main.chat.query(Notice)]
        assert str(settings) in notice
        assert "is not valid JSON" in notice
        assert "line 1 column 8" in notice
        assert "the defaults apply" in notice
        assert "theme" not in notice
        assert app.theme == DEFAULT_THEME
        await pilot.press("ctrl+q")  # quitting saves a theme picked a moment ago: none was
    assert not [m for m in _messages(app) if "theme" in m]
    assert settings.read_text(encoding="utf-8") == '{"ui": '


async def test_no_theme_choice_no_settings_file(tmp_path: Path) -> None:
    app = _app_with_user_settings(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.theme_keeper is not None, "the theme keeper")
        await pilot.press("ctrl+q")
    assert _messages(app) == []
    assert not (tmp_path / "config" / "settings.json").exists()


async def test_a_picked_theme_that_cannot_be_saved_says_why(tmp_path: Path) -> None:
    settings = tmp_path / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"ui": ', encoding="utf-8")
    app = _app_with_user_settings(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.theme_keeper is not None, "the theme keeper")
        app.theme = "agent-light"
        await wait_for(pilot, lambda: _messages(app), "the theme's save to fail")
        [message] = _messages(app)
        assert message.startswith("The theme 'agent-light' is used for this session but not ")
        assert f"{settings} is not valid JSON: Expecting value at line 1 column 8" in message
        assert "the file is left as it is" in message
        assert "defaults apply" not in message  # that is what loading does, not saving
        assert app.theme == "agent-light"
    assert settings.read_text(encoding="utf-8") == '{"ui": '


async def test_a_theme_is_not_saved_into_an_invalid_section(tmp_path: Path) -> None:
    settings = tmp_path / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    text = json.dumps({"ui": {"theme": "agent-contrast", "auto_expand": "sometimes"}})
    settings.write_text(text, encoding="utf-8")
    app = _app_with_user_settings(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: list(app.main.chat.query(Notice)), "the start-up notice")
        [notice] = [n.text for n in app.main.chat.query(Notice)]
        assert "invalid 'ui' section, ignored, its valid keys too (theme)" in notice
        assert "$.ui.auto_expand:" in notice
        assert app.theme == DEFAULT_THEME  # the section, theme included, is ignored
        app.theme = "agent-light"
        await wait_for(pilot, lambda: _messages(app), "the theme's save to fail")
        [message] = _messages(app)
        assert "the 'ui' section is invalid, so it is ignored at start" in message
        assert "$.ui.auto_expand:" in message
    assert settings.read_text(encoding="utf-8") == text


async def test_a_broken_theme_file_names_the_file_the_field_and_the_problem(
    tmp_path: Path,
) -> None:
    themes = tmp_path / "config" / "themes"
    themes.mkdir(parents=True)
    colour = themes / "x.json"
    colour.write_text(json.dumps({"name": "x", "primary": "nope"}), encoding="utf-8")
    syntax = themes / "y.json"
    syntax.write_text('{"name": "y",\n "primary": }', encoding="utf-8")
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.main.chat.query(Notice)) == 2, "two notices")
        first, second = [n.text for n in app.main.chat.query(Notice)]
        assert first == f"theme file {colour} is skipped:\n  - $.primary: not a colour: 'nope'"
        assert second == (
            f"theme file {syntax} is skipped: it is not valid JSON: Expecting value at line 2 "
            "column 13"
        )
        assert "validation error" not in first


async def test_an_unknown_saved_theme_says_what_is_used_instead(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    agent.settings = Settings(ui=UISettings(theme="nope"))
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: list(app.main.chat.query(Notice)), "the notice")
        [notice] = [n.text for n in app.main.chat.query(Notice)]
        assert notice == (
            "theme 'nope' (ui.theme in the settings) is not installed; using 'agent-dark'"
        )
