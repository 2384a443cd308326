"""Choices made in the TUI that outlive the session, saved to the user's ``settings.json``.

The file is rewritten atomically (``settings.update_json_object``) and only the changed key is
touched: every other section and key stays as it was. A file that is
not valid JSON is left alone (the user is editing it; we would destroy their work).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.settings import SettingsFileError, update_json_object, user_settings_path


class PreferenceError(Exception):
    """The setting could not be saved; the message says why."""


def save_user_setting(section: str, key: str, value: Any, path: Path | None = None) -> Path:
    """Set ``section.key`` to ``value`` in the user settings file; return the file's path."""
    path = path or user_settings_path()

    def put(settings: dict[str, Any]) -> bool:
        part = settings.get(section)
        if part is not None and not isinstance(part, dict):
            raise PreferenceError(f"{path}: {section!r} is not an object; fix it by hand")
        settings[section] = {**(part or {}), key: value}
        return True

    try:
        update_json_object(path, put)
    except SettingsFileError as exc:
        raise PreferenceError(str(exc)) from None
    except OSError as exc:
        raise PreferenceError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path
