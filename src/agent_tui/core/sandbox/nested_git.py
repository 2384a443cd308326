"""Git directories below the workspace's own that a sandboxed command made run code later.

The sandbox keeps the workspace's ``.git/config`` and hooks read-only, but a command may make a
*nested* repository (``sub/.git``), a submodule's git directory (``.git/modules/NAME``) or a
``.git`` file pointing anywhere (``gitdir: ../build/evil``), and give it a config that runs a
program (``core.fsmonitor``, ``core.hooksPath``, an alias, a filter…) or a hook. Once the
nested repository is in the index as a gitlink, a plain ``git status`` at the top runs that
program, outside any sandbox, the next time the user types it; without the gitlink, it runs
when the user runs git in that directory.

So every git directory below the workspace is watched: its ``config``, ``config.worktree``,
hooks and ``commondir`` (and the config and hooks of the directory that names). After each
sandboxed command they are compared with what was known before (``Watch``); a file that is new
or changed is judged: a config setting only the plain keys ``git init``/``clone`` write
(``aftercheck.git_config_runs_code``) stays, anything else is moved to the quarantine, as are
new hooks and a changed ``commondir``, ``config.worktree`` or ``.git`` pointer whose target
runs code. What was there before the session's first command is the user's own and is left.

Finding the nested ``.git`` entries is a walk of the workspace (the read rules' cached walk,
``walk``: one ``stat`` per unchanged directory); past its limit the index's gitlinks are
looked at too.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.sandbox.aftercheck import Moved, git_config_runs_code, quarantine

Stamp = tuple[int, int, int]
"""(inode, size, mtime_ns) of a watched file; (0, 0, 0) for a directory of hooks."""
Finder = Callable[[Path], tuple[list[str], bool]]
"""The ``.git`` entries below a workspace (real paths) and whether the walk was complete."""

MAX_HOOKS = 200
"""Hooks looked at in one git directory (a directory of more is moved whole)."""
GITLINK = "160000"


@dataclass
class _Target:
    path: str
    kind: str
    """``config`` | ``hook`` | ``pointer`` (a ``.git`` file or link, ``commondir``)."""


def _git_dirs_of_pointer(pointer: str) -> list[str]:
    """The git directory a ``.git`` file (``gitdir: …``) or link names."""
    if os.path.islink(pointer):
        return [os.path.realpath(pointer)]
    try:
        with open(pointer, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(4096).strip()
    except OSError:
        return []
    if not first.startswith("gitdir:"):
        return []
    named = first.removeprefix("gitdir:").strip()
    return [os.path.realpath(os.path.join(os.path.dirname(pointer), named))]


def _commondir_of(gitdir: str) -> str | None:
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8", errors="replace") as f:
            named = f.readline(4096).strip()
    except OSError:
        return None
    return os.path.realpath(os.path.join(gitdir, named)) if named else None


def _targets_of_gitdir(gitdir: str, out: dict[str, _Target], depth: int = 0) -> None:
    """The files of a git directory that can make git run code: added to ``out``."""
    for name in ("config", "config.worktree"):
        path = os.path.join(gitdir, name)
        out.setdefault(path, _Target(path, "config"))
    hooks = os.path.join(gitdir, "hooks")
    out.setdefault(hooks, _Target(hooks, "hooks"))
    commondir = os.path.join(gitdir, "commondir")
    out.setdefault(commondir, _Target(commondir, "pointer"))
    common = _commondir_of(gitdir)
    if common is not None and depth < 2:
        _targets_of_gitdir(common, out, depth + 1)
    modules = os.path.join(gitdir, "modules")  # submodules' git directories, nested
    if depth < 8 and os.path.isdir(modules) and not os.path.islink(modules):
        for sub in _module_dirs(modules):
            _targets_of_gitdir(sub, out, depth + 1)
    if depth == 0:
        _worktree_configs(gitdir, out)


def _worktree_configs(gitdir: str, out: dict[str, _Target]) -> None:
    """The ``config.worktree`` of each linked worktree of ``gitdir`` (``worktrees/NAME``)."""
    worktrees = os.path.join(gitdir, "worktrees")
    if not os.path.isdir(worktrees) or os.path.islink(worktrees):
        return
    try:
        names = os.listdir(worktrees)
    except OSError:
        return
    for name in names:
        path = os.path.join(worktrees, name, "config.worktree")
        out.setdefault(path, _Target(path, "config"))


def _module_dirs(modules: str) -> list[str]:
    """The git directories below ``.git/modules`` (a submodule named ``a/b`` lives at
    ``modules/a/b``): every directory holding a ``HEAD`` or a ``config``."""
    found: list[str] = []
    stack = [modules]
    seen = 0
    while stack and seen < 10_000:
        directory = stack.pop()
        try:
            with os.scandir(directory) as entries:
                names = {e.name: e for e in entries}
        except OSError:
            continue
        seen += len(names)
        if "HEAD" in names or "config" in names:
            found.append(directory)
            continue  # its own nested modules are found through it
        stack.extend(
            e.path
            for e in names.values()
            if e.is_dir(follow_symlinks=False) and e.name != "objects"
        )
    return found


def targets(workspace: Path, nested: Iterable[str]) -> dict[str, _Target]:
    """Every watched file: those of the workspace's ``.git/modules`` and worktrees, and of each
    nested ``.git`` (a directory, or a file or link together with the directory it names)."""
    out: dict[str, _Target] = {}
    top = os.path.join(str(workspace), ".git")
    if os.path.isdir(top) and not os.path.islink(top):
        for sub in _module_dirs(os.path.join(top, "modules")):
            _targets_of_gitdir(sub, out, 1)
        _worktree_configs(top, out)
    for entry in nested:
        if entry == top:
            continue
        if os.path.isdir(entry) and not os.path.islink(entry):
            _targets_of_gitdir(entry, out)
            continue
        out.setdefault(entry, _Target(entry, "pointer"))
        for gitdir in _git_dirs_of_pointer(entry):
            if gitdir != top:
                _targets_of_gitdir(gitdir, out, 1)
    return out


def _stamp(path: str) -> Stamp | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _hooks(directory: str) -> dict[str, Stamp]:
    """The hooks of a ``hooks`` directory that would run (not the ``*.sample`` files)."""
    found: dict[str, Stamp] = {}
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.endswith(".sample"):
                    continue
                stamp = _stamp(entry.path)
                if stamp is not None:
                    found[entry.path] = stamp
                if len(found) > MAX_HOOKS:
                    break
    except OSError:
        pass
    return found


def stamps(watched: dict[str, _Target]) -> dict[str, tuple[str, Stamp]]:
    """path → (kind, stamp) of what exists of ``watched`` (each hook on its own)."""
    out: dict[str, tuple[str, Stamp]] = {}
    for path, target in watched.items():
        if target.kind == "hooks":
            if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
                stamp = _stamp(path)
                if stamp is not None:
                    out[path] = ("hook", stamp)
                continue
            for hook, stamp in _hooks(path).items():
                out[hook] = ("hook", stamp)
            continue
        stamp = _stamp(path)
        if stamp is not None:
            out[path] = (target.kind, stamp)
    return out


def _config_runs_code(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(1_000_001)
    except OSError:
        return None  # gone or unreadable: git cannot read it either
    if len(data) > 1_000_000 or b"\0" in data:
        return "an unreadable config"
    return git_config_runs_code(data.decode("utf-8", errors="replace"))


def _pointer_runs_code(path: str) -> str | None:
    """Whether a ``.git`` pointer or ``commondir`` names a git directory whose config or hooks
    run code."""
    if os.path.basename(path) == "commondir":
        named = _commondir_of(os.path.dirname(path))
        gitdirs = [named] if named else []
    else:
        gitdirs = _git_dirs_of_pointer(path)
    for gitdir in gitdirs:
        for name in ("config", "config.worktree"):
            reason = _config_runs_code(os.path.join(gitdir, name))
            if reason is not None:
                return reason
        if _hooks(os.path.join(gitdir, "hooks")):
            return "hooks"
    return None


def find_nested_git(workspace: Path) -> tuple[list[str], bool]:
    """Every ``.git`` below ``workspace`` (directories, files, links), by the read rules'
    cached walk (``walk``) in its own namespace; and whether the walk was complete."""
    from agent_tui.core.sandbox.walk import find_protected

    def is_git(path: str) -> bool:
        return path.endswith("/.git")

    found = find_protected([workspace], is_git, key="nested-git", links=is_git, namespace="git")
    return [str(p) for p in found.paths], found.complete


def gitlinks(workspace: Path) -> list[str]:
    """The paths of the index's gitlinks (submodules, embedded repositories): where a plain
    ``git status`` at the top goes. ``git ls-files`` runs nothing of theirs."""
    try:
        result = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "ls-files", "--stage", "-z"],
            cwd=workspace,
            capture_output=True,
            timeout=30,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return []
    found: list[str] = []
    for record in result.stdout.split(b"\0"):
        head, _, name = record.partition(b"\t")
        if head.startswith(GITLINK.encode()) and name:
            path = os.path.join(str(workspace), os.fsdecode(name), ".git")
            if os.path.lexists(path):
                found.append(os.path.realpath(path) if not os.path.islink(path) else path)
    return found


@dataclass
class Watch:
    """What is known of a workspace's nested git directories: the state before the session's
    first sandboxed command, then after each command that passed the check."""

    workspace: Path
    find: Finder
    known: dict[str, tuple[str, Stamp]] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _look(self) -> dict[str, tuple[str, Stamp]]:
        nested, complete = self.find(self.workspace)
        if not complete:  # beyond the walk: at least where a top-level git status goes
            nested = [*nested, *gitlinks(self.workspace)]
        return stamps(targets(self.workspace, nested))

    def baseline(self) -> None:
        """Record the state before a command (only the first time: later, the last check's
        state is the baseline). Blocking: a walk of the workspace."""
        with self._lock:
            if self.known is None:
                self.known = self._look()

    def check(self) -> list[Moved]:
        """After a command: move to the quarantine what it made that runs code. Blocking."""
        with self._lock:
            now = self._look()
            known = self.known or {}
            suspects: list[tuple[str, str]] = []
            for path, (kind, stamp) in now.items():
                before = known.get(path)
                if before is not None and before[1] == stamp:
                    continue
                if kind == "hook":
                    reason: str | None = "a hook"
                elif kind == "config":
                    reason = _config_runs_code(path)
                else:
                    reason = _pointer_runs_code(path)
                if reason is not None:
                    suspects.append((path, reason))
            moved = quarantine([Path(p) for p, _ in suspects], self.workspace)
            self.known = self._look() if moved else now
            return moved
