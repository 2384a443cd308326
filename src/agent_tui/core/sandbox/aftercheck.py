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

import logging
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.nofollow import LinkRefused, open_below
from agent_tui.core.paths import data_dir

log = logging.getLogger(__name__)

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
_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"([^"]*)")?\s*\]')
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$)")


@dataclass(frozen=True)
class Moved:
    path: Path
    """Where the command created it."""
    to: Path
    """Where it is now."""
    box: Path
    """The quarantine directory of this command (the workspace's layout below it)."""


def git_config_runs_code(text: str) -> str | None:
    """The first key of a git config that is not known to be harmless, or None."""
    section = ""
    for line in text.splitlines():
        stripped = line.split("#", 1)[0].split(";", 1)[0]
        head = _SECTION.match(stripped)
        if head:
            name, sub = head.group(1), head.group(2)
            section = f"{name}.{sub}" if sub is not None else name
            rest = stripped[head.end() :]
            if not rest.strip():
                continue
            stripped = rest
        key = _KEY.match(stripped)
        if key is None:
            if stripped.strip():
                return stripped.strip()[:60]  # something it cannot read: not harmless
            continue
        full = f"{section}.{key.group(1)}"
        if not SAFE_GIT_KEYS.match(full):
            return full
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
            box = _made(box, relative.parts[:-1])
            target = box / relative
            shutil.move(victim, target)
        except OSError:
            continue
        moved.append(Moved(victim, target, box))
    return moved


def _made(box: Path, parts: tuple[str, ...]) -> Path:
    """``box`` with ``parts`` below it made as real directories (0700), no link followed —
    the data directory may be in the workspace (the workspace as the home directory), and a
    ``quarantine`` link there would send what is quarantined wherever it points. A link on
    the way: the box moves to a private temporary directory instead (returned). The command
    is over (its PID namespace died with it): nothing swaps a link in after the check."""
    base = data_dir()
    if box.is_relative_to(base):
        anchor, rel = base, box.relative_to(base).parts
        anchor.mkdir(mode=0o700, parents=True, exist_ok=True)
    else:  # the private directory already
        anchor, rel = box, ()
    try:
        os.close(open_below(anchor, (*rel, *parts), create=True, mode=0o700))
        return box
    except LinkRefused as link:
        log.warning("%s is a symbolic link: quarantining in a private directory instead", link)
    private = Path(tempfile.mkdtemp(prefix="agent-tui-quarantine-"))
    os.close(open_below(private, parts, create=True, mode=0o700))
    return private
