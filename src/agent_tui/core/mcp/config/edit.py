"""Adding and removing servers in a ``.mcp.json`` file (``agent-tui mcp add/remove``).

The file is rewritten atomically with two-space indentation; every other key and server in it
is kept. A file that is not valid JSON is never overwritten: the edit fails and says why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.mcp.config.load import read_file
from agent_tui.core.mcp.config.spec import SERVER_NAME
from agent_tui.core.permissions.mcp_names import clash_key, server_prefix
from agent_tui.core.state.nofollow import LinkRefused, find_link, split_below, write_below
from agent_tui.core.tools.builtin.atomic import atomic_write


class ConfigEditError(ValueError):
    """The edit cannot be made (bad name, broken file, unknown server)."""


def check_name(name: str) -> None:
    if not SERVER_NAME.fullmatch(name):
        raise ConfigEditError(
            f"{name!r} is not a valid server name: use letters, digits, '_' and '-' "
            "(it becomes part of tool names like mcp__NAME__tool)"
        )
    if "__" in name:
        raise ConfigEditError(
            f"{name!r}: a server name must not contain '__' (the separator in mcp__NAME__tool)"
        )


def _load(path: Path, within: Path | None = None) -> dict[str, Any]:
    if within is not None:
        link = find_link(*split_below(path, within))
        if link is not None:
            raise _link_refused(path, link)
    raw, problem = read_file(path)
    if problem is not None or raw is None:
        raise ConfigEditError(f"{path} {problem}; fix or remove it first (it was not changed)")
    servers = raw.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigEditError(f'{path}: "mcpServers" is not an object; fix it first')
    return raw


def _save(path: Path, raw: dict[str, Any], within: Path | None = None) -> None:
    """Write ``raw``; ``within``: the project ``path`` is in, below which no link is followed
    (a repository can ship ``.mcp.json`` as a symlink to a file a shell runs)."""
    text = json.dumps(raw, indent=2, ensure_ascii=False) + "\n"
    if within is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode("utf-8"))
        return
    anchor, parts = split_below(path, within)
    try:
        write_below(anchor, Path(*parts), text.encode("utf-8"), mode=0o666, keep_mode=True)
    except LinkRefused as link:
        raise _link_refused(path, link) from None


def _link_refused(path: Path, link: LinkRefused) -> ConfigEditError:
    return ConfigEditError(
        f"{path} is reached through a symbolic link ({link.link} -> {link.target}): agent-tui "
        "does not write a project's files through a link, which could point anywhere (at a "
        f"file your shell runs, say); it was not changed. Remove the link (rm {link.link}) and "
        "try again"
    )


def add_server(
    path: Path,
    name: str,
    entry: dict[str, Any],
    *,
    replace: bool = False,
    within: Path | None = None,
) -> bool:
    """Write ``entry`` as server ``name``; True when it replaced an existing entry."""
    check_name(name)
    raw = _load(path, within)
    servers = raw["mcpServers"]
    existed = name in servers
    if existed and not replace:
        raise ConfigEditError(
            f"a server named {name!r} already exists in {path}; remove it first or pass --replace"
        )
    twins = [other for other in servers if other != name and clash_key(other) == clash_key(name)]
    if twins:
        raise ConfigEditError(
            f"{name!r} would share {server_prefix(name)} with the server {twins[0]!r} of {path} "
            "(names that differ only by letter case or symbols): both would be refused; "
            "choose another name"
        )
    servers[name] = entry
    _save(path, raw, within)
    return existed


def remove_server(path: Path, name: str, *, within: Path | None = None) -> None:
    raw = _load(path, within)
    servers = raw["mcpServers"]
    if name not in servers:
        known = ", ".join(sorted(servers)) or "none"
        raise ConfigEditError(f"no server named {name!r} in {path} (configured there: {known})")
    del servers[name]
    _save(path, raw, within)
