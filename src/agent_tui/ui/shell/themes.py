"""Themes as data: ``themes/*.json`` shipped with the app, and the user's own in
``<config dir>/themes/*.json``; validated with pydantic, registered with the app at start.

The shipped directory is ``agent_tui/themes`` inside an installed wheel (force-included there)
and the repository's top-level ``themes/`` for editable installs and source checkouts. A user
theme with a shipped theme's name replaces it. A broken theme file is skipped with a warning
(the app shows it); the app always starts.
"""

from __future__ import annotations

import json
import logging
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import Theme
from textual.timer import Timer

from agent_tui.core.schema_errors import format_validation_error
from agent_tui.core.settings import UISettings
from agent_tui.core.state.paths import config_dir
from agent_tui.ui.shell.boot import DEFAULT_THEME as DEFAULT_THEME
from agent_tui.ui.shell.boot import themes_dir as themes_dir
from agent_tui.ui.shell.preferences import PreferenceError, save_user_setting

log = logging.getLogger(__name__)


class ThemeFile(BaseModel):
    """The JSON format of a theme file (the fields of ``textual.theme.Theme``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    success: str | None = None
    warning: str | None = None
    error: str | None = None
    dark: bool = True
    variables: dict[str, str] = Field(default_factory=dict)

    @field_validator(
        "primary",
        "secondary",
        "accent",
        "foreground",
        "background",
        "surface",
        "panel",
        "boost",
        "success",
        "warning",
        "error",
    )
    @classmethod
    def _is_colour(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                Color.parse(value)
            except ColorParseError as exc:
                raise ValueError(f"not a colour: {value!r}") from exc
        return value

    def to_theme(self) -> Theme:
        return Theme(**self.model_dump())


def user_themes_dir() -> Path:
    """Where the user's own theme files are: ``<config dir>/themes``."""
    return config_dir() / "themes"


def load_themes(
    directory: Traversable | None = None, problems: list[str] | None = None
) -> list[Theme]:
    """Every valid theme in ``directory`` (default: ``themes_dir()``), sorted by file name.

    A file that is skipped is logged, and described in ``problems`` when given."""
    directory = directory if directory is not None else themes_dir()
    if directory is None:
        log.warning("no themes directory found; using Textual's built-in themes")
        return []
    if not directory.is_dir():
        return []
    themes: list[Theme] = []
    files = sorted(
        (entry for entry in directory.iterdir() if entry.name.endswith(".json")),
        key=lambda entry: entry.name,
    )
    for entry in files:
        try:
            themes.append(ThemeFile.model_validate(json.loads(entry.read_text("utf-8"))).to_theme())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as exc:
            wrong = theme_file_problem(exc)
            gap = "\n" if isinstance(exc, ValidationError) else " "
            log.warning("skipping theme %s:%s%s", entry.name, gap, wrong)
            if problems is not None:
                problems.append(f"theme file {entry} is skipped:{gap}{wrong}")
    return themes


def theme_file_problem(exc: Exception) -> str:
    """What is wrong with a theme file, for the user: the field and the problem of each
    schema error (``$.primary: not a colour: 'nope'``), where the JSON breaks, or why the
    file cannot be read."""
    if isinstance(exc, ValidationError):
        return format_validation_error(exc)  # one "  - $.field: problem" line each
    if isinstance(exc, json.JSONDecodeError):
        return f"it is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, OSError):
        return f"it cannot be read ({exc.strerror or exc})"
    return f"it is not UTF-8 text ({exc})"


def install_themes(
    app: App[Any],
    directory: Traversable | None = None,
    *,
    user_directory: Path | None = None,
    chosen: str | None = None,
) -> list[str]:
    """Register the shipped themes, then the user's; select ``chosen`` (the saved choice) if
    it is installed, else the default. Returns the problems to show the user."""
    problems: list[str] = []
    user = user_directory if user_directory is not None else user_themes_dir()
    for theme in [*load_themes(directory), *load_themes(user, problems)]:
        app.register_theme(theme)
    if chosen and chosen in app.available_themes:
        app.theme = chosen
    else:
        if DEFAULT_THEME in app.available_themes:
            app.theme = DEFAULT_THEME
        if chosen:
            problems.append(
                f"theme {chosen!r} (ui.theme in the settings) is not installed; using {app.theme!r}"
            )
    return problems


def save_theme(name: str) -> str | None:
    """Save ``name`` as the user's theme (``ui.theme`` in the user settings); the problem if
    it could not be saved."""
    try:
        save_user_setting("ui", "theme", name)
    except PreferenceError as exc:
        return str(exc)
    return None


THEME_SAVE_SECONDS = 1.0
"""A picked theme is saved once it has not changed for this long."""


class ThemeKeeper:
    """Saves the theme the user picks (``ui.theme`` in the user settings), once the picker
    settles: Textual's theme picker previews each theme it passes over.

    Only a pick is saved: the theme start-up applied (the saved one, or the default when none
    is saved or the saved one is missing) is the baseline, and a theme equal to it is never
    written — Textual also reports the theme start-up applies, a moment after it is set."""

    def __init__(self, app: App[Any], ui: UISettings) -> None:
        self.app = app
        self.ui = ui
        self.kept = app.theme
        """The theme in effect that needs no saving: the one start-up applied, then the last
        one saved (or that could not be)."""
        self._timer: Timer | None = None
        app.theme_changed_signal.subscribe(app, self._changed)

    def _changed(self, theme: Theme) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if theme.name != self.kept:
            self._timer = self.app.set_timer(THEME_SAVE_SECONDS, self.save_now)

    def save_now(self) -> None:
        """Save the current theme if the user picked another one (and stop waiting)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        name = self.app.theme
        if name == self.kept:
            return
        self.kept = name
        if (problem := save_theme(name)) is not None:
            self.app.notify(
                f"The theme {name!r} is used for this session but not saved: {problem}",
                severity="warning",
                timeout=12,
            )
            return
        self.ui.theme = name
