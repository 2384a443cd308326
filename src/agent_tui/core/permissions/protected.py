"""Protected paths: files that configure the agent or make programs run code later.

A write to one of them — by ``write_file``, ``edit_file`` or a shell command — always asks, in
accept-edits and bypass mode too, unless an allow rule names that path explicitly (e.g.
``write_file(.mcp.json)``; ``write_file(**)`` or ``write_file`` alone does not count). The
prompt says what the file configures. A maintained table:

- in the project (at any depth): ``.git/`` (config, hooks), ``.agent-tui/``, ``.claude/``,
  ``.mcp.json``, ``.envrc``, ``.npmrc``, ``.yarnrc.yml``, ``.vscode/``, ``.gitattributes``,
  ``.gitmodules``;
- what a repository's git config makes run (``git_paths``): the ``core.hooksPath`` directory
  (``.husky/``, ``.githooks/``), a config file it includes, a bare repository's files — for
  every repository around the path, nested ones included;
- in the home directory: shell startup files, ``~/.ssh/``, ``~/.gitconfig``,
  ``~/.config/git/``, ``~/.config/fish/``, ``~/.npmrc``, ``~/.local/bin/``, autostart and
  systemd user units;
- agent-tui's own configuration, data and cache directories wherever they are
  (``agent_state``: the trust store, sessions, tokens…; inside the workspace too when the
  workspace is the home directory);
- ``/etc/``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.permissions.agent_state import state_below, state_protection
from agent_tui.core.permissions.git_paths import (
    BARE,
    bare_repository,
    git_protection,
    git_protection_below,
)


@dataclass(frozen=True)
class Protection:
    key: str
    """The literal an allow rule must contain to name such a path (``.git``, ``.bashrc``)."""
    what: str
    """What the file configures, for the prompt."""


SEGMENTS: dict[str, str] = {
    ".git": "configures git: hooks and settings such as core.fsmonitor or core.pager run programs",
    ".agent-tui": "configures agent-tui itself: permission rules, modes, commands",
    ".claude": "holds agent settings and commands that agents run",
    ".vscode": "configures the editor, whose tasks can run programs when the folder opens",
}
NAMES: dict[str, str] = {
    ".mcp.json": "configures the MCP servers agent-tui starts (their commands run at the next "
    "start, in any mode)",
    ".envrc": "is run by direnv when you enter the directory",
    ".npmrc": "configures npm, which can make it run programs (script-shell, hooks)",
    ".yarnrc.yml": "configures yarn, which can make it run a program of its choosing (yarnPath)",
    ".gitattributes": "picks the filter, diff and merge drivers git runs on the files it names "
    "(on add, diff, checkout, merge): a driver a git config defines runs its program",
    ".gitmodules": "tells git which repositories to fetch into the tree as submodules and how "
    "to update them (git submodule update, clone --recurse-submodules)",
}
HOME_FILES: dict[str, str] = {
    name: "is a shell startup file: it runs in every new shell"
    for name in (
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".mkshrc",
        ".inputrc",
    )
} | {
    ".gitconfig": "configures git for every repository (aliases and hooks run programs)",
    ".npmrc": "configures npm for every project",
    ".ssh": "holds SSH keys and the configuration of every SSH connection",
    ".config/git": "configures git for every repository",
    ".config/fish": "holds fish's startup files",
    ".local/bin": "holds programs on your PATH (a file there can take over a command name)",
    ".config/autostart": "starts programs when you log in",
    ".config/systemd/user": "defines services that systemd runs for you",
}


def _home() -> Path:
    return Path(os.path.realpath(os.path.expanduser("~")))


def protection(path: Path) -> Protection | None:
    """How ``path`` (absolute, resolved) is protected, or None."""
    parts = path.parts
    for segment, what in SEGMENTS.items():
        if segment in parts[:-1] or parts[-1:] == (segment,):
            return Protection(segment, f"{segment}/ {what}")
    if path.name in NAMES:
        return Protection(path.name, f"{path.name} {NAMES[path.name]}")
    state = state_protection(path)  # the config, data and cache dirs, wherever they are
    if state is not None:
        return Protection(*state)
    run_by_git = git_protection(path)  # a hooks path, an included config, a bare repository
    if run_by_git is not None:
        return Protection(*run_by_git)
    home = _home()
    if home in path.parents:
        rel = path.relative_to(home).as_posix()
        for name, what in HOME_FILES.items():
            if rel == name or rel.startswith(name + "/"):
                return Protection(name, f"~/{name} {what}")
    if parts[:2] == ("/", "etc"):
        return Protection("/etc", "/etc holds the system's configuration")
    return None


def protection_below(path: Path, *, depth: int = 3) -> Protection | None:
    """A protected path at or below directory ``path`` (a recursive delete or copy into it):
    ``path`` itself, the home and workspace entries under it, and a shallow scan."""
    found = protection(path)
    if found is not None:
        return found
    state = state_below(path) or git_protection_below(path)
    if state is not None:
        return Protection(*state)
    home = _home()
    if path == home or path in home.parents:
        return Protection("~", f"{path} holds your home directory's startup files and keys")
    if not path.is_dir():
        return None
    stack = [(path, 0)]
    seen = 0
    while stack:
        current, level = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > 5000:
                return Protection("*", f"{path} holds too many files to check for protected ones")
            name = entry.name
            if name in SEGMENTS or name in NAMES:
                hit = protection(Path(entry.path))
                if hit is not None:
                    return hit
            if entry.is_dir(follow_symlinks=False) and bare_repository(entry.path):
                return Protection(name, f"{entry.path} is a bare git repository: {BARE}")
            if level + 1 < depth and entry.is_dir(follow_symlinks=False):
                stack.append((Path(entry.path), level + 1))
    return None


def names_explicitly(pattern: str | None, key: str) -> bool:
    """Does a rule pattern name a protected path literally (not by a wildcard)?"""
    if not pattern:
        return False
    segments = pattern.replace("\\", "/").split("/")
    key_parts = key.split("/")
    return any(segments[i : i + len(key_parts)] == key_parts for i in range(len(segments)))
