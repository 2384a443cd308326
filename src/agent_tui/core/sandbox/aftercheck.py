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
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.paths import data_dir

SAFE_GIT_KEYS = re.compile(
    r"^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|"
    r"precomposeunicode|symlinks|autocrlf|eol|worktree)|submodule\.[^.]+\.(url|active)|"
    r"remote\.[^.]+\.(url|fetch|pushurl)|"
    r"branch\.[^.]+\.(remote|merge|rebase)|init\.defaultbranch|user\.(name|email)|"
    r"extensions\.(objectformat|worktreeconfig)|pull\.rebase|push\.default|"
    r"fetch\.prune|color\.ui)$",
    re.IGNORECASE,
)
"""``.git/config`` keys that run nothing: what ``git init``/``clone`` write (``core.worktree``
and ``submodule.*.url``/``active`` for submodules; not ``submodule.*.update``, which may name
a command), and a few more."""


@dataclass(frozen=True)
class Moved:
    path: Path
    """Where the command created it."""
    to: Path
    """Where it is now."""
    box: Path
    """The quarantine directory of this command (the workspace's layout below it)."""


def git_config_runs_code(text: str) -> str | None:
    """The first key of a git config that is not known to be harmless, or None — read with
    git's own grammar (``gitconfig``); a config git would refuse is not harmless either."""
    from agent_tui.core.sandbox.gitconfig import ConfigError, entries

    try:
        for entry in entries(text):
            if not SAFE_GIT_KEYS.match(entry.name):
                return entry.shown
    except ConfigError as exc:
        return f"a config git cannot read: {exc}"[:80]
    return None


def absent(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    """Those of ``paths`` that do not exist (not even as a dangling link)."""
    return tuple(p for p in paths if not os.path.lexists(p))


def sweep(created_before: tuple[Path, ...], workspace: Path) -> list[Moved]:
    """Move aside the paths of ``created_before`` (absent before the command) that exist
    now. Blocking; a path that cannot be moved is left and not reported as moved."""
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
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = "\0"
            if git_config_runs_code(text) is None:
                continue
        elif new_git and path == workspace / ".git/hooks" and path.is_dir():
            victims += [p for p in path.iterdir() if not p.name.endswith(".sample")]
            continue
        victims.append(path)
    return quarantine(victims, workspace)


def quarantine(victims: list[Path], workspace: Path) -> list[Moved]:
    """Move ``victims`` into one new quarantine directory, keeping their place below the
    workspace. Blocking; a path that cannot be moved is left and not reported."""
    moved: list[Moved] = []
    box: Path | None = None
    for victim in victims:
        if not os.path.lexists(victim):
            continue
        if box is None:
            stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns() % 10**6:06d}"
            box = data_dir() / "quarantine" / stamp
        try:
            relative = victim.relative_to(workspace)
        except ValueError:
            relative = Path(*victim.parts[1:])
        target = box / relative
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(victim, target)
        except OSError:
            continue
        moved.append(Moved(victim, target, box))
    return moved
