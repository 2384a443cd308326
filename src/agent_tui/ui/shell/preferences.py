"""Choices made in the TUI that outlive the session, saved to the user's ``settings.json``.

The file is rewritten atomically (``settings.update_json_object``) and only the changed key is
touched: every other section and key stays as it was. A file that is not valid JSON is left
alone (the user is editing it; we would destroy their work), and so is a section that is
invalid for another reason: the value saved there would be ignored at the next start with the
rest of that section, so the save is refused and the message says which field to fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_tui.core.schema_errors import format_validation_error
from agent_tui.core.settings import (
    SECTIONS,
    SettingsFileError,
    update_json_object,
    user_settings_path,
)


class PreferenceError(Exception):
    """The setting could not be saved; the message says why (file, line or field) and that
    the file was left as it was."""


def save_user_setting(section: str, key: str, value: Any, path: Path | None = None) -> Path:
    """Set ``section.key`` to ``value`` in the user settings file; return the file's path."""
    path = path or user_settings_path()

    def put(settings: dict[str, Any]) -> bool:
        part = settings.get(section)
        if part is not None and not isinstance(part, dict):
            raise PreferenceError(
                f"{path}: {section!r} is not an object; the file is left as it is (fix it by hand)"
            )
        changed = {**(part or {}), key: value}
        model = SECTIONS.get(section)
        if model is not None:
            try:
                model.model_validate(changed)
            except ValidationError as exc:
                raise PreferenceError(
                    f"{path}: the {section!r} section is invalid, so it is ignored at start "
                    f"(and {section}.{key} with it); the file is left as it is (fix it by "
                    f"hand):\n{format_validation_error(exc, (section,))}"
                ) from None
        settings[section] = changed
        return True

    try:
        update_json_object(path, put)
    except SettingsFileError as exc:
        raise PreferenceError(
            f"{path} {exc.problem}; the file is left as it is (fix it by hand)"
        ) from None
    except OSError as exc:
        raise PreferenceError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path
