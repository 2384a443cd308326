"""Servers the user turned off in a project, remembered across sessions.

They are kept in the project's personal settings file, ``.agent-tui/settings.local.json``
(next to the "always allow" rules; not meant to be committed)::

    {"mcp": {"disabled": ["github", "slow-server"]}}

The shared ``.mcp.json`` is never rewritten for this: teams commit it, and one person turning
a server off must not turn it off for everyone. An entry with ``"disabled": true`` in a
``.mcp.json`` is the team's choice and stays as it is. The file is rewritten atomically with
every other key kept; a file that is not valid JSON is never overwritten (the change is then
kept for the session only, and the caller says why).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.settings import read_json_object, update_json_object

SECTION = "mcp"
KEY = "disabled"


def read_disabled(path: Path) -> tuple[set[str], str | None]:
    """(the remembered server names, a problem with the file or the section, if any)."""
    data, _, problem = read_json_object(path)
    if problem is not None:
        return set(), f"{path} {problem}; no server is known to be turned off in this project"
    section = (data or {}).get(SECTION)
    if section is None:
        return set(), None
    names = section.get(KEY, []) if isinstance(section, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return set(), (
            f'{path}: "{SECTION}.{KEY}" must be a list of server names, e.g. '
            f'{{"{SECTION}": {{"{KEY}": ["github"]}}}}; it is ignored'
        )
    return set(names), None


def remember_disabled(path: Path, name: str, disabled: bool, *, within: Path | None = None) -> bool:
    """Add ``name`` to (``disabled``) or remove it from the remembered list; other keys are
    kept. Returns True when the file changed. Raises ``ValueError`` when the file cannot be
    used (it is then left untouched; a symlink on the way below ``within``, the project, is
    such a file) and ``OSError`` when it cannot be written."""

    def change(data: dict[str, Any]) -> bool:
        section: Any = data.get(SECTION, {})
        if not isinstance(section, dict):
            raise ValueError(f'{path}: "{SECTION}" is not an object; fix it by hand first')
        names = section.get(KEY, [])
        if not isinstance(names, list):
            raise ValueError(f'{path}: "{SECTION}.{KEY}" is not a list; fix it by hand first')
        if disabled:
            wanted = names if name in names else [*names, name]
        else:
            wanted = [n for n in names if n != name]
        if wanted == names:
            return False
        section = {**section, KEY: wanted}
        if not wanted:
            section.pop(KEY)
        if section:
            data[SECTION] = section
        else:
            data.pop(SECTION, None)
        return True

    return update_json_object(path, change, within=within)
