"""The agent's own state, out of a command's reach: its config, data, cache and log directories.

They hold what the agent trusts on its next start — the trust store (``trust.json``), the
saved sessions ``--continue`` loads, the user's settings and MCP configuration, the OAuth tokens
of MCP servers, the MCP tool caches. Usually they sit in the hidden home directory, out of
sight already; but the workspace can hold them (agent-tui started in ``~``, common in
containers and dotfile repositories, or ``AGENT_TUI_DATA_DIR`` pointing into it), or
``sandbox.allow_write`` can, and there a command could plant a trusted MCP server or rewrite
a session.

So each of them is *sealed* in the sandbox, wherever it is: an empty read-only directory is
mounted over it (nothing to read, nothing to write) — unless the sandbox hides it already (in
the hidden home or the private ``/tmp``, and in no place shown again there). A directory that
does not exist yet, but that a command could create (inside the workspace or
``allow_write``), is created first (mode 0700), so that it can be sealed too. When the
workspace itself lies inside one of them (agent-tui started in its own config dir), that
directory is mounted read-only instead, and the MCP tokens are still hidden.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.sandbox.refusal import SandboxRefused
from agent_tui.core.sandbox.sockets import already_hidden
from agent_tui.core.state.paths import cache_dir, config_dir, data_dir, log_dir

SECRET_STATE = ("mcp-auth",)
"""Below the data dir: hidden even where the data dir is shown read-only (OAuth tokens)."""


@dataclass(frozen=True)
class StateMasks:
    sealed: tuple[Path, ...] = ()
    """Replaced by an empty read-only directory."""
    read_only: tuple[Path, ...] = ()
    """Shown read-only (they hold the workspace)."""
    hidden: tuple[Path, ...] = ()
    """Secrets inside the read-only ones."""


def state_dirs() -> tuple[Path, ...]:
    """The config, data and cache directories, resolved (symbolic links followed), each
    once."""
    out: list[Path] = []
    for path in (config_dir(), data_dir(), cache_dir(), log_dir()):
        real = Path(os.path.realpath(path.expanduser()))
        if real not in out:
            out.append(real)
    return tuple(out)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def prepare(workspace: Path, writable: tuple[Path, ...]) -> None:
    """Make the state directories that do not exist yet but that a command could create
    (inside ``writable``: the workspace and ``allow_write``, resolved), mode 0700, so that
    they can be sealed. Blocking. ``SandboxRefused`` when one cannot be made."""
    for state in state_dirs():
        if state.exists() or _inside(workspace, state):
            continue
        if not any(_inside(state, root) for root in writable):
            continue  # a command cannot make it either (read-only, or a private tmpfs)
        try:
            state.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise SandboxRefused(
                f"Not run: agent-tui keeps its state in {state}, where a command could create "
                f"it, and could not create it first to keep it out of reach "
                f"({exc.strerror or exc}).",
                "Ask the user to create that directory, or to move agent-tui's state with "
                "AGENT_TUI_DATA_DIR / AGENT_TUI_CONFIG_DIR / AGENT_TUI_CACHE_DIR.",
            ) from None


def masks(workspace: Path, shown: tuple[Path, ...] = (), home: Path | None = None) -> StateMasks:
    """How to keep the state directories out of reach of a command in ``workspace``
    (resolved): those that exist are sealed, or read-only when they hold the workspace —
    unless the sandbox hides them already (in the hidden ``home`` or the private /tmp, and
    not in the workspace or a place ``shown`` again there: ``sockets.already_hidden``)."""
    sealed: list[Path] = []
    read_only: list[Path] = []
    hidden: list[Path] = []
    again = tuple(str(p) for p in (workspace, *shown))
    for state in state_dirs():
        if _inside(workspace, state):
            read_only.append(state)
            data = Path(os.path.realpath(data_dir()))
            hidden += [data / name for name in SECRET_STATE if (data / name).exists()]
        elif state.is_dir() and not already_hidden(str(state), again, home):
            sealed.append(state)
    # one inside another (the cache dir below the data dir): the outer seal covers it, and a
    # mount point cannot be made inside a read-only directory
    outer = tuple(p for p in sealed if not any(o != p and _inside(p, o) for o in sealed))
    return StateMasks(outer, tuple(read_only), tuple(hidden))
