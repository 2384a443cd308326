"""Choices made in the TUI that outlive the session, saved to the user's ``settings.json``.

The file is rewritten atomically (a temporary file in the same directory, then a rename) and
only the changed key is touched: every other section and key stays as it was. A file that is
not valid JSON is left alone (the user is editing it; we would destroy their work).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from agent_tui.core.settings import read_json_object, user_settings_path


class PreferenceError(Exception):
    """The setting could not be saved; the message says why."""


def save_user_setting(section: str, key: str, value: Any, path: Path | None = None) -> Path:
    """Set ``section.key`` to ``value`` in the user settings file; return the file's path."""
    path = path or user_settings_path()
    raw, _, problem = read_json_object(path)
    if problem is not None:
        raise PreferenceError(f"{path} {problem}")
    settings: dict[str, Any] = raw or {}
    part = settings.get(section)
    if part is not None and not isinstance(part, dict):
        raise PreferenceError(f"{path}: {section!r} is not an object; fix it by hand")
    settings[section] = {**(part or {}), key: value}
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(temp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise PreferenceError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path
