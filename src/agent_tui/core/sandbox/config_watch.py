"""After an unsandboxed command: what it changed of the files that configure the agent or run
code later, undone.

In the sandbox those files (``shell_sandbox.PROTECTED_IN_WORKSPACE`` — ``.mcp.json``,
``.agent-tui/``, ``.claude/``, ``.vscode/``, ``.envrc``, ``.npmrc``, ``.yarnrc.yml``) are
read-only mounts, and ``aftercheck`` moves aside those a command creates. Without the sandbox
only the permission analysis stood in the way: a write it sees asks in every mode, but a
program whose writes it does not model — ``ar x``, ``cpio -i``, ``python3 -m zipfile -e``, any
build tool — in bypass mode wrote ``.mcp.json`` (a server the next start runs) unasked. A list
of programs can never be complete; a look before and after the command can.

``look`` records each of those paths in the workspace's top directory — a file with its stamp
(``git_watch``'s: inode, size, times, mode) and content (up to ``nested_git.READ_CAP``), a
directory with everything below it (up to ``MAX_ENTRIES``). ``check`` looks again: a file the
command created (or a directory it made) is moved to the quarantine; a file it changed is put
back as it was (its version kept in the quarantine) when its earlier content is known, else
moved; a file it deleted is written back. What the agent wrote itself meanwhile (an "always
allow" rule saved while the command ran; ``core.state.own_writes``) is left. The git files
(``.git/config``, hooks…) are the git watch's.

A user who edits one of these files by hand *while* a command runs (a long background job
and ``.vscode/settings.json``) sees the edit undone too, with the card naming the quarantine
where it is kept: nothing is lost, and the check cannot tell whose the write was.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.sandbox.git_watch import stamp_of
from agent_tui.core.sandbox.nested_git import read_small
from agent_tui.core.sandbox.quarantine import Moved, move, new_box, restore, revert
from agent_tui.core.sandbox.shell_sandbox import PROTECTED_IN_WORKSPACE
from agent_tui.core.state import own_writes

WATCHED = tuple(p for p in PROTECTED_IN_WORKSPACE if not p.startswith(".git/"))
"""The top-level names watched (git's are the git watch's)."""
MAX_ENTRIES = 2_000
"""Entries recorded below the watched directories in all; past it the look is incomplete."""
ONLY = {
    ".claude": frozenset(
        {
            "settings.json",
            "settings.local.json",
            "CLAUDE.md",
            "commands",
            "agents",
            "skills",
            "hooks",
            "output-styles",
        }
    ),
}
"""Of these directories only the entries named are watched: the rest is data another program
writes all the time (Claude Code's ``projects/`` transcripts and ``todos/`` when the workspace
is the home directory), not config that runs."""
FILES_ONLY = frozenset({".vscode"})
"""Of these only the files directly inside (``settings.json``, ``tasks.json``…): below are
an editor's own data (``~/.vscode/extensions`` in a home workspace)."""


@dataclass(frozen=True)
class Entry:
    stamp: tuple[int, ...]
    content: bytes | None
    """A regular file's bytes (not a link's target), when small enough."""
    directory: bool


@dataclass
class Look:
    entries: dict[str, Entry]
    complete: bool = True


def look(workspace: Path) -> Look:
    """The watched paths of ``workspace`` (resolved), now. Blocking."""
    found = Look({})
    for name in WATCHED:
        _add(found, str(workspace / name), name)
    return found


def _add(found: Look, path: str, top: str | None = None) -> None:
    """``path`` and, for a directory, what is below it; ``top`` is set for a watched name
    itself (``ONLY`` and ``FILES_ONLY`` apply to its entries)."""
    stamp = stamp_of(path)
    if stamp is None:
        return
    mode = stamp[4]
    directory = stat.S_ISDIR(mode)
    content = read_small(path) if stat.S_ISREG(mode) else None
    found.entries[path] = Entry(stamp, content, directory)
    if not directory:
        return
    try:
        with os.scandir(path) as listing:
            names = sorted(
                entry.name
                for entry in listing
                if top not in FILES_ONLY or not entry.is_dir(follow_symlinks=False)
            )
    except OSError:
        found.complete = False
        return
    if top in ONLY:
        names = [n for n in names if n in ONLY[top]]
    for child in names:
        if len(found.entries) >= MAX_ENTRIES:
            found.complete = False
            return
        _add(found, os.path.join(path, child))


def check(workspace: Path, before: Look) -> tuple[list[Moved], str | None]:
    """Undo what a command changed since ``before`` (``Moved`` says how); and why the check
    was incomplete, if it was. Blocking; never raises for one file."""
    now = look(workspace)
    created: list[str] = []
    changed: list[str] = []
    for path, entry in now.entries.items():
        old = before.entries.get(path)
        if old is not None and old.stamp == entry.stamp:
            continue
        if old is not None and (old.directory and entry.directory):
            continue  # its entries are judged one by one
        if any(path.startswith(p + os.sep) for p in created):
            continue  # inside a directory the command made: moved with it
        if old is None:
            if not _agents(path, entry):
                created.append(path)
        elif not _agents(path, entry):
            changed.append(path)
    deleted = [
        path
        for path, old in before.entries.items()
        if path not in now.entries and not old.directory
    ]
    problem = None if before.complete and now.complete else "too many files to watch them all"
    if not (created or changed or deleted):
        return [], problem
    box = new_box()
    moved = move([Path(p) for p in created], workspace, box)
    for path in changed:
        old = before.entries[path]
        content = None if old.directory else old.content
        moved += revert(Path(path), content, old.stamp[4], workspace, box)
    for path in deleted:
        moved += _write_back(Path(path), before.entries[path], box)
    return moved, problem


def _agents(path: str, entry: Entry) -> bool:
    """Is ``path`` a file the agent itself wrote last (``core.state.own_writes``)?"""
    if entry.directory:
        return False
    try:
        return own_writes.ours(path, os.lstat(path))
    except OSError:
        return False


def _write_back(path: Path, old: Entry, box: Path) -> list[Moved]:
    """A file the command deleted, written back (its directories made again if they went)."""
    if old.content is None:  # a link, or too big to have been kept
        return [Moved(path, path, box, "removed", "deleted by the command; not restorable")]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        failed = restore(path, old.content, old.stamp[4])
    except OSError as exc:
        failed = exc.strerror or str(exc)
    if failed is not None:
        note = f"deleted by the command; not restored: {failed}"
        return [Moved(path, path, box, "removed", note)]
    return [Moved(path, path, box, "reverted", "it had been deleted")]
