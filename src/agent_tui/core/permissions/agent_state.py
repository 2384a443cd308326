"""The agent's own state as protected paths, wherever it is.

agent-tui keeps its configuration (``settings.json``, ``mcp.json``, agents, themes), its data
(the trust store ``trust.json``, saved sessions and their checkpoint blobs, the quarantine, MCP
sign-in tokens, notices) and its cache (MCP tool lists) in three user directories. A write into
any of them — by ``write_file``, ``edit_file`` or a shell command whose writes are known — asks
in every mode, bypass included, wherever they are: with the workspace as the home directory
(containers, dotfile repositories) they are inside the workspace, where writes are otherwise
free in accept-edits and bypass mode. A planted trust entry would turn on a project's MCP
servers at the next start, a rewritten session would put words in the user's mouth at the
next ``--continue``. (Inside the sandbox they are read-only whatever the mode; loading them
checks their seal: ``core.state.seals``.)
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)


def _resolved(find: Callable[[], Path]) -> Path | None:
    try:
        return Path(os.path.realpath(find()))
    except Exception:  # no such directory can be found here (no HOME): nothing to protect
        # debug: a machine without one says so on every judgement
        what = getattr(find, "__name__", find)
        log.debug("no %s here: nothing of it to protect", what, exc_info=True)
        return None


def state_dirs() -> list[tuple[Path, str]]:
    """(resolved directory, what it holds) for the config, data and cache directories."""
    from agent_tui.core.state.paths import cache_dir, config_dir, data_dir, log_dir

    found: list[tuple[Path, str]] = []
    for find, what in (
        (config_dir, "is agent-tui's own configuration (settings, MCP servers, agents)"),
        (
            data_dir,
            "is agent-tui's own data (the trust store, saved sessions that --continue loads, "
            "checkpoints, the quarantine, MCP sign-in tokens)",
        ),
        (cache_dir, "is agent-tui's own cache (the MCP tool lists it trusts at start)"),
        (log_dir, "is agent-tui's own log (what went wrong, with the details)"),
    ):
        path = _resolved(find)
        if path is not None and all(path != p for p, _ in found):
            found.append((path, what))
    return found


def state_protection(path: Path) -> tuple[str, str] | None:
    """(key, what) when ``path`` (absolute, resolved) is in one of the agent's directories:
    ``key`` is the literal a rule must contain to name it (the directory's name)."""
    for directory, what in state_dirs():
        if path == directory or directory in path.parents:
            return directory.name, f"{directory} {what}"
    return None


def state_below(path: Path) -> tuple[str, str] | None:
    """(key, what) when one of the agent's directories is at or below ``path`` (a recursive
    delete, move or copy into ``path`` reaches it)."""
    for directory, what in state_dirs():
        if path == directory or path in directory.parents:
            return directory.name, f"{directory} (below {path}) {what}"
    return None
