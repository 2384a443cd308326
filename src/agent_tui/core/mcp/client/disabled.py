"""Servers that are disabled, and why: remembered across sessions, switched by the manager.

A server is disabled (``DisabledBy``) when it is not trusted yet, not started by this command
(``only``), disabled for the project (remembered in the personal settings file) or for this
session (when that could not be saved), or disabled in its ``.mcp.json`` entry
(``"disabled": true``). ``DisabledServers`` belongs to one ``McpManager`` (``manager``, which
stops and starts the servers) and owns the answer to "is this server disabled, and what do we
tell the user"; ``turn`` switches one and remembers it (the words the user reads say "turned
off").

The servers disabled for a project are kept in the project's personal settings file,
``.agent-tui/settings.local.json`` (next to the "always allow" rules; not meant to be
committed)::

    {"mcp": {"disabled": ["github", "slow-server"]}}

The shared ``.mcp.json`` is never rewritten for this: teams commit it, and one person turning
a server off must not turn it off for everyone. An entry with ``"disabled": true`` in a
``.mcp.json`` is the team's choice and stays as it is. The file is rewritten atomically with
every other key kept; a file that is not valid JSON is never overwritten (the change is then
kept for the session only, and the caller says why).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.mcp.config.spec import ConfigProblem, ServerSpec
from agent_tui.core.settings import read_json_object, update_json_object

SECTION = "mcp"
KEY = "disabled"

DisabledBy = Literal["file", "project", "session", "command", "untrusted"]
"""Why a server is disabled: its entry says ``"disabled": true``; the user disabled it for the
project (remembered) or for this session; this command starts other servers only; or it comes
from the project's ``.mcp.json`` and the user has not trusted it yet."""


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


class DisabledServers:
    """The servers of one manager that are disabled: for the project, this session, this
    command (``only``), in their entry, or not trusted yet (``why``)."""

    def __init__(self, cwd: Path, file: Path, only: set[str] | None) -> None:
        self.cwd = cwd
        self.file = file
        """Where the servers disabled in this project are remembered."""
        self.only = only
        remembered, problem = read_disabled(file)
        self._remembered: set[str] = remembered
        """Disabled for the project (in ``file``)."""
        self._disabled: set[str] = set(remembered)
        """Disabled: for the project, or for this session when that could not be saved."""
        self.problem = ConfigProblem(file, problem.removeprefix(f"{file}: ")) if problem else None
        """What is wrong with ``file``, if anything."""

    def __contains__(self, name: str) -> bool:
        """Whether ``name`` was disabled (for the project or this session)."""
        return name in self._disabled

    def is_disabled(self, spec: ServerSpec) -> bool:
        return self.why(spec) is not None

    def why(self, spec: ServerSpec) -> tuple[DisabledBy, str] | None:
        """Whether ``spec`` is disabled, and why (a sentence for the user)."""
        name = spec.name
        if spec.untrusted:
            return "untrusted", (
                f"not trusted yet: {spec.source} comes with the project, and starting it runs "
                "its command; trust it at the prompt, in this panel (enable) or with "
                "`agent-tui trust`"
            )
        if self.only is not None and name not in self.only:
            return "command", "not started by this command"
        if name in self._disabled:
            if name in self._remembered:
                return "project", f"turned off for this project (remembered in {self.where()})"
            return "session", "turned off for this session"
        if spec.disabled:
            return "file", f'turned off in {spec.source} ("disabled": true)'
        return None

    def where(self) -> str:
        """``file``, relative to the project when it is inside."""
        with contextlib.suppress(ValueError):
            return str(self.file.relative_to(self.cwd))
        return str(self.file)

    async def turn(self, name: str, *, on: bool) -> str:
        """Mark ``name`` on or off and remember it for the project; says what was done."""
        verb = "enabled" if on else "disabled"
        if on:
            self._disabled.discard(name)
        else:
            self._disabled.add(name)
        try:
            inside = self.file.is_relative_to(self.cwd)  # a project file: no link followed
            within = self.cwd if inside else None
            await asyncio.to_thread(remember_disabled, self.file, name, not on, within=within)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return f"{name} {verb} for this session only: it could not be remembered ({reason})"
        if on:
            self._remembered.discard(name)
            return f"{name} {verb}"
        self._remembered.add(name)
        return f"{name} {verb}; remembered for this project in {self.where()}"


__all__ = ["DisabledBy", "DisabledServers", "read_disabled", "remember_disabled"]
