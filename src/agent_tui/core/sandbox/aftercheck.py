"""The protected paths a sandboxed command created: moved aside, never left to run later.

The sandbox keeps the protected files of the workspace read-only by mounting them over
themselves — which works only for files that exist when the command starts. A file that does
not exist yet (``.mcp.json``, ``.envrc``, ``.git/hooks/pre-commit`` in a repository without
hooks, ``~/.zshrc``) cannot be mounted without leaving an empty file behind, so it is checked
after the command instead: nothing the command started is still running then (the sandbox's
PID namespace ends with it), and whatever protected path appeared is moved to a quarantine
directory — kept, not deleted — and the card says where.

A command that makes a new repository (``git init``, ``git clone``) creates ``.git/config``
and ``.git/hooks`` legitimately: of a new ``.git`` only hooks that would run (not the
``*.sample`` files) are moved, and the config only when it sets a key outside the plain
ones git itself writes (``core.fsmonitor``, ``core.hooksPath``, a filter, an alias… run code).
A ``.git`` *file* or link made where there was no ``.git`` (``gitdir: build/evil``) points git
at a directory of the command's choosing: it is moved whole.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.sandbox import gitconfig
from agent_tui.core.sandbox.nested_git import read_small
from agent_tui.core.sandbox.quarantine import Moved, move

__all__ = ["Moved", "absent", "git_config_runs_code", "quarantine", "sweep"]


def git_config_runs_code(text: str) -> str | None:
    """The first key of a git config that is not known to be harmless (or why git would read
    it otherwise), or None: ``gitconfig.runs_code``, read as git reads it."""
    return gitconfig.runs_code(text.encode("utf-8", errors="surrogateescape"))


def absent(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    """Those of ``paths`` that do not exist (not even as a dangling link)."""
    return tuple(p for p in paths if not os.path.lexists(p))


def sweep(created_before: tuple[Path, ...], workspace: Path) -> list[Moved]:
    """Move aside the paths of ``created_before`` (absent before the command) that exist
    now. Blocking; each result says what became of the path."""
    new_git = {workspace / ".git/config", workspace / ".git/hooks"} <= set(created_before)
    pointer = workspace / ".git"
    if pointer in created_before and (os.path.islink(pointer) or pointer.is_file()):
        # a .git file (``gitdir: …``) or link: moved itself, nothing through it
        new_git = False
        created_before = (pointer,)
    victims: list[Path] = []
    for path in created_before:
        if not os.path.lexists(path):
            continue
        if path == pointer and path.is_dir() and not path.is_symlink():
            continue  # a new repository: its config and hooks are judged below
        if new_git and path == workspace / ".git/config":
            data = read_small(str(path))
            if data is not None and gitconfig.runs_code(data) is None:
                continue
        elif new_git and path == workspace / ".git/hooks" and path.is_dir():
            victims += [p for p in path.iterdir() if not p.name.endswith(".sample")]
            continue
        victims.append(path)
    return quarantine(victims, workspace)


def quarantine(victims: list[Path], workspace: Path) -> list[Moved]:
    """Move ``victims`` into one new quarantine directory, keeping their place below the
    workspace (``quarantine.move``: FIFOs, devices, huge files and other filesystems handled;
    each result says whether it was kept, removed or left). Blocking; never raises."""
    return move(victims, workspace)
