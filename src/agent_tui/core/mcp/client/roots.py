"""The roots the client offers to servers (``roots/list``): the workspace, plus extra ones.

The workspace is always the first root. More come from the settings files' ``mcp`` section
(``{"mcp": {"roots": ["../shared", "~/notes"]}}``: a path relative to the project, absolute, or
with ``~``), merged user file, then project, then local, without duplicates. An entry that is
not a string, or names no directory, is left out with a problem that says so (fail closed: a
root is a permission a server may act on, so a mistake must not grant something else). Only
the user's own file may name a root outside the workspace: the project's files come with the
repository.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.settings import read_json_object, settings_paths, user_settings_path


@dataclass(frozen=True)
class RootEntry:
    path: Path
    name: str

    @property
    def uri(self) -> str:
        return self.path.as_uri()


@dataclass(frozen=True)
class Roots:
    entries: tuple[RootEntry, ...]
    problems: tuple[tuple[Path, str], ...] = ()
    """(settings file, what is wrong) of each entry left out."""


def load_roots(cwd: Path, paths: Sequence[Path] | None = None) -> Roots:
    """The workspace and the ``mcp.roots`` of the settings files ``paths`` (default: the
    user's, the project's, the local one)."""
    workspace = Path(os.path.realpath(cwd))
    entries = [RootEntry(workspace, workspace.name or str(workspace))]
    problems: list[tuple[Path, str]] = []
    seen = {workspace}
    for file in paths if paths is not None else settings_paths(cwd):
        raw, _text, _problem = read_json_object(file)
        if raw is None:
            continue  # a broken settings file is reported by the settings loader
        section = raw.get("mcp")
        if not isinstance(section, dict) or "roots" not in section:
            continue
        listed = section["roots"]
        if not isinstance(listed, list):
            problems.append((file, '"mcp.roots" must be a list of directories; ignored'))
            continue
        for item in listed:
            if not isinstance(item, str) or not item.strip():
                problems.append((file, f'"mcp.roots" entry {item!r} is not a path; left out'))
                continue
            path = Path(item).expanduser()
            path = Path(os.path.realpath(path if path.is_absolute() else cwd / path))
            if not path.is_dir():
                problems.append(
                    (file, f'"mcp.roots" entry {item!r} is not a directory ({path}); left out')
                )
                continue
            if file != user_settings_path() and not path.is_relative_to(workspace):
                # a repository ships its project files: a root outside it is a permission a
                # repository must not be able to give a server (``~``, ``~/.ssh``)
                problems.append(
                    (
                        file,
                        f'"mcp.roots" entry {item!r} is outside the workspace ({path}): only '
                        f"your user settings ({user_settings_path()}) may add such a root; "
                        "left out",
                    )
                )
                continue
            if path not in seen:
                seen.add(path)
                entries.append(RootEntry(path, path.name or str(path)))
    return Roots(tuple(entries), tuple(problems))


__all__ = ["RootEntry", "Roots", "load_roots"]
