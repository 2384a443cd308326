"""Claude Code's settings files, where Claude Code reads them.

``~/.claude/settings.json`` (the user's; ``$HOME/.claude``, or ``$CLAUDE_CONFIG_DIR``),
``.claude/settings.json`` (the project's, shared) and ``.claude/settings.local.json`` (the
project's, personal), least specific first. ``claude_settings`` reads each as it is — the
``hooks`` section untouched, for the hook loader — and ``unmapped`` names the keys nothing
here reads, so each is said once (which file, which key). ``user_claude_dir`` (defined in
``core.state.paths``, where the memory loader finds it too) is re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.settings import read_json_object
from agent_tui.core.state.paths import user_claude_dir

CLAUDE_DIR = ".claude"
SETTINGS_FILE = "settings.json"
LOCAL_SETTINGS_FILE = "settings.local.json"

READ_HERE = frozenset({"permissions", "hooks", "env", "$schema"})
"""Top-level keys agent-tui reads from a Claude Code settings file (``hooks`` by
``core.hooks``, ``env`` by ``core.claude.env``)."""
PERMISSION_KEYS = frozenset({"allow", "ask", "deny", "defaultMode", "additionalDirectories"})
"""Keys of ``permissions`` that mean something here (``core.claude.permissions``)."""


@dataclass(frozen=True)
class ClaudeSettingsFile:
    """One Claude Code settings file: its JSON object (``data``, None when missing or
    broken), its raw text, and what is wrong with it."""

    path: Path
    scope: str
    """``user`` or ``project`` (a project file is behind the trust gate)."""
    data: dict[str, Any] | None
    text: str = ""
    problem: str | None = None

    @property
    def project(self) -> bool:
        return self.scope == "project"

    @property
    def hooks(self) -> Any:
        """The file's ``hooks`` section exactly as written (None when it has none)."""
        return (self.data or {}).get("hooks")


def claude_settings_paths(cwd: Path) -> list[tuple[Path, str]]:
    """Claude Code's settings files of ``cwd`` and their scope, least specific first."""
    project = cwd / CLAUDE_DIR
    return [
        (user_claude_dir() / SETTINGS_FILE, "user"),
        (project / SETTINGS_FILE, "project"),
        (project / LOCAL_SETTINGS_FILE, "project"),
    ]


def claude_settings(cwd: Path) -> list[ClaudeSettingsFile]:
    """Every Claude Code settings file of ``cwd`` that exists, parsed, least specific first.
    A broken one is in the list with its ``problem`` and no data."""
    out = []
    for path, scope in claude_settings_paths(cwd):
        data, text, problem = read_json_object(path)
        if data is None and problem is None:
            continue  # no such file
        out.append(ClaudeSettingsFile(path, scope, data, text, problem))
    return out


def unmapped(file: ClaudeSettingsFile) -> list[str]:
    """One line per key of ``file`` that nothing here reads (``model``,
    ``permissions.disableBypassPermissionsMode``…)."""
    data = file.data or {}
    lines = [
        f"{file.path}: the Claude Code key {key!r} has no equivalent in agent-tui; ignored"
        for key in data
        if key not in READ_HERE
    ]
    section = data.get("permissions")
    if isinstance(section, dict):
        lines.extend(
            f"{file.path}: the Claude Code key 'permissions.{key}' has no equivalent in "
            "agent-tui; ignored"
            for key in section
            if key not in PERMISSION_KEYS
        )
    return lines
