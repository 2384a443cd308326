"""Which configured MCP servers are off, and why: the manager's switches.

``TurnedOff`` belongs to one ``McpManager`` (``manager``, which stops and starts the servers)
and owns the answer to "is this server off, and what do we tell the user": not trusted yet,
not started by this command (``only``), turned off for the project (remembered in the
personal settings file, ``disabled``) or for this session (when that could not be saved), or
turned off in its ``.mcp.json`` entry. ``turn`` switches one and remembers it.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from agent_tui.core.mcp.config import ConfigProblem, ServerSpec
from agent_tui.core.mcp.disabled import read_disabled, remember_disabled
from agent_tui.core.mcp.state import DisabledBy


class TurnedOff:
    def __init__(self, cwd: Path, file: Path, only: set[str] | None) -> None:
        self.cwd = cwd
        self.file = file
        """Where the servers turned off in this project are remembered."""
        self.only = only
        remembered, problem = read_disabled(file)
        self._remembered: set[str] = remembered
        """Turned off for the project (in ``file``)."""
        self._disabled: set[str] = set(remembered)
        """Turned off: for the project, or for this session when that could not be saved."""
        self.problem = ConfigProblem(file, problem.removeprefix(f"{file}: ")) if problem else None
        """What is wrong with ``file``, if anything."""

    def __contains__(self, name: str) -> bool:
        """Whether ``name`` was turned off (for the project or this session)."""
        return name in self._disabled

    def is_off(self, spec: ServerSpec) -> bool:
        return self.why(spec) is not None

    def why(self, spec: ServerSpec) -> tuple[DisabledBy, str] | None:
        """Whether ``spec`` is off, and why (a sentence for the user)."""
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


__all__ = ["TurnedOff"]
