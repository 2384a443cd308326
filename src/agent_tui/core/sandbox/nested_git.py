"""Where in a workspace git would find something that runs a program: found as git finds it.

Git run in a directory looks for ``.git`` there and in each parent — a directory, or a file
(``gitdir: …``) or link naming one — and, in git 2.39 by default (``safe.bareRepository`` is
``all``), takes any directory holding ``HEAD``, ``objects/`` and ``refs/`` (or a ``commondir``)
for a *bare* repository, whatever its name: ``src/x.git`` with a ``config`` is a repository for
the user's ``git status`` inside it. So the workspace is walked (``walk``: one ``stat`` per
unchanged directory) for

- every ``.git`` (directory, file, link) and every directory shaped like a git directory;
- every ``.gitattributes`` (drivers: ``gitattributes``) and ``.gitmodules`` (``!command``
  updates, remote helpers);

and of each git directory (``targets``) the files that can make git run code are watched:
``config``, ``config.worktree`` (and the configs they include, for ``core.hooksPath``),
``hooks/``, ``commondir``, ``info/attributes``, the git directories of submodules
(``modules/``) and linked worktrees (``worktrees/*/``), and the directory ``core.hooksPath``
names (``.husky/_``, ``.githooks``: a path in the worktree, whose files are then hooks — and,
for husky's ``_`` layout, the files of its parent, which husky's hooks run), from the
repository's config or the user's global one.

Past ``WALK_LIMIT`` entries the walk stops and the index's gitlinks (``gitlinks``, through the
hardened ``safe_git``) are added: at least where a plain ``git status`` at the top goes.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.sandbox import gitconfig, safe_git
from agent_tui.core.sandbox.sequencer import TODO_FILES

WALK_LIMIT = 200_000
"""Entries the walk looks at (cached: later walks cost a ``stat`` per directory)."""
MAX_DEPTH = 8
"""Nesting followed through ``modules/``, ``commondir`` and includes."""
READ_CAP = 4_000_000
"""Bytes of a watched file read (configs, attributes, hooks): a bigger one that a command
changes cannot be judged nor reverted, and is moved to the quarantine. (A repository with
thousands of tracked branches has a config of a few hundred KB.)"""
GITLINK = "160000"
WATCHED_NAMES = frozenset({".git", ".gitattributes", ".gitmodules"})


def looks_like_git_dir(names: frozenset[str]) -> bool:
    """Whether a directory holding ``names`` is a git directory to git (``is_git_directory``:
    ``HEAD`` and ``objects``/``refs``, or ``HEAD`` and a ``commondir`` naming them)."""
    return "HEAD" in names and (("objects" in names and "refs" in names) or "commondir" in names)


@dataclass
class Found:
    """What the walk found, as real paths."""

    gitdirs: dict[str, str | None] = field(default_factory=dict)
    """Each git directory and its work tree (None: bare)."""
    pointers: list[str] = field(default_factory=list)
    """``.git`` files and links."""
    attributes: list[str] = field(default_factory=list)
    gitmodules: list[str] = field(default_factory=list)
    complete: bool = True


def read_small(path: str, cap: int = READ_CAP) -> bytes | None:
    """The bytes of a regular file (following links, as git does), or None: missing, not a
    regular file — a FIFO is opened without blocking and never read — or over ``cap``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > cap:
            return None
        data = os.read(fd, cap + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= cap else None


def _first_line(path: str) -> str | None:
    data = read_small(path, 4096)
    if data is None:
        return None
    return os.fsdecode(data.split(b"\n", 1)[0].strip())


def git_dirs_of_pointer(pointer: str) -> list[str]:
    """The git directory a ``.git`` file (``gitdir: …``) or link names."""
    if os.path.islink(pointer):
        return [os.path.realpath(pointer)]
    first = _first_line(pointer)
    if first is None or not first.startswith("gitdir:"):
        return []
    named = first.removeprefix("gitdir:").strip()
    return [os.path.realpath(os.path.join(os.path.dirname(pointer), named))]


def commondir_of(gitdir: str) -> str | None:
    named = _first_line(os.path.join(gitdir, "commondir"))
    return os.path.realpath(os.path.join(gitdir, named)) if named else None


def find(workspace: Path, skip: tuple[str, ...] = ()) -> Found:
    """Every git directory, ``.git`` pointer, ``.gitattributes`` and ``.gitmodules`` below
    ``workspace`` (not below ``skip``: the quarantine). Blocking: the cached walk."""
    from agent_tui.core.sandbox.walk import find_protected

    def watched(path: str) -> bool:
        return os.path.basename(path) in WATCHED_NAMES or path in skip

    def is_pointer(path: str) -> bool:
        return path.endswith("/.git")

    hits = find_protected(
        [workspace],
        watched,
        key="git-origin",
        limit=WALK_LIMIT,
        links=is_pointer,
        namespace="git",
        shape=looks_like_git_dir,
    )
    found = Found(complete=hits.complete)
    root = str(workspace)
    try:
        if looks_like_git_dir(frozenset(os.listdir(root))):
            found.gitdirs[root] = None  # started inside a bare repository
    except OSError:
        pass
    for hit in map(str, hits.paths):
        name = os.path.basename(hit)
        if hit in skip or any(hit.startswith(s + "/") for s in skip):
            continue
        if name == ".gitattributes":
            found.attributes.append(hit)
        elif name == ".gitmodules":
            found.gitmodules.append(hit)
        elif name == ".git" and os.path.isdir(hit) and not os.path.islink(hit):
            found.gitdirs[hit] = os.path.dirname(hit)
        elif name == ".git":
            found.pointers.append(hit)
            for gitdir in git_dirs_of_pointer(hit):
                found.gitdirs.setdefault(gitdir, os.path.dirname(hit))
        else:
            found.gitdirs.setdefault(hit, None)  # shaped like one: bare
    if not found.complete:
        for dot in gitlinks(workspace):
            if os.path.isdir(dot) and not os.path.islink(dot):
                found.gitdirs.setdefault(dot, os.path.dirname(dot))
            else:
                found.pointers.append(dot)
                for gitdir in git_dirs_of_pointer(dot):
                    found.gitdirs.setdefault(gitdir, os.path.dirname(dot))
    return found


def gitlinks(workspace: Path) -> list[str]:
    """The ``.git`` of each gitlink in the workspace's index (submodules, embedded
    repositories): where a plain ``git status`` at the top goes. Hardened (``safe_git``)."""
    try:
        result = safe_git.run(workspace, "ls-files", "--stage", "-z")
    except (safe_git.Refused, OSError, ValueError, subprocess.SubprocessError):
        return []
    found: list[str] = []
    for record in result.stdout.split(b"\0"):
        head, _, name = record.partition(b"\t")
        if head.startswith(GITLINK.encode()) and name:
            path = os.path.join(str(workspace), os.fsdecode(name), ".git")
            if os.path.lexists(path):
                found.append(os.path.realpath(path) if not os.path.islink(path) else path)
    return found


# -- what of a git directory is watched -------------------------------------------------------

Kind = str
"""``config`` | ``hooks`` (a directory of hooks) | ``pointer`` (``.git`` file or link,
``commondir``) | ``attributes`` | ``gitmodules``."""


def _module_dirs(modules: str) -> list[str]:
    """The git directories below ``.git/modules`` (a submodule ``a/b`` lives at
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
            continue
        stack.extend(
            e.path
            for e in names.values()
            if e.is_dir(follow_symlinks=False) and e.name != "objects"
        )
    return found


def configs_with_includes(first: list[str]) -> Iterator[tuple[str, bytes]]:
    """Each config of ``first`` and, transitively, what its ``include.path`` and
    ``includeIf.*.path`` name (all of them: a superset of what git includes)."""
    stack = [(p, 0) for p in first]
    seen: set[str] = set()
    while stack:
        path, depth = stack.pop()
        if path in seen or depth > MAX_DEPTH:
            continue
        seen.add(path)
        data = read_small(path)
        if data is None:
            continue
        yield path, data
        for named in gitconfig.values_of(data, "include") or []:
            named = os.path.expanduser(named)
            if not os.path.isabs(named):
                named = os.path.join(os.path.dirname(path), named)
            stack.append((os.path.realpath(named), depth + 1))


def user_configs() -> list[str]:
    """The user's global config files (``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/config``)."""
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return [os.path.expanduser("~/.gitconfig"), os.path.join(xdg, "git", "config")]


def hook_settings(configs: list[str]) -> list[str]:
    """Every ``core.hooksPath`` value of ``configs`` and what they include."""
    out: list[str] = []
    for _path, data in configs_with_includes(configs):
        out += gitconfig.values_of(data, "core.hookspath") or []
    return out


def hooks_paths(
    gitdir: str, worktree: str | None, workspace: str, users: list[str] | None = None
) -> list[str]:
    """The directories ``core.hooksPath`` names for this repository (its configs, then the
    user's: ``users``, their values), inside the workspace; with husky's ``_`` layout, its
    parent too."""
    configs = [os.path.join(gitdir, "config"), os.path.join(gitdir, "config.worktree")]
    common = commondir_of(gitdir)
    if common is not None:
        configs.append(os.path.join(common, "config"))
    values = hook_settings(configs) + (hook_settings(user_configs()) if users is None else users)
    base = worktree or gitdir
    out: list[str] = []
    for value in values:
        named = os.path.expanduser(value)
        real = os.path.realpath(named if os.path.isabs(named) else os.path.join(base, named))
        if real != workspace and not real.startswith(workspace + os.sep):
            continue  # outside the workspace: the user's own
        out.append(real)
        if os.path.basename(real) == "_":
            out.append(os.path.dirname(real))
    return out


def _targets_of_gitdir(
    gitdir: str,
    worktree: str | None,
    workspace: str,
    out: dict[str, Kind],
    users: list[str],
    depth: int = 0,
) -> None:
    for name in ("config", "config.worktree"):
        out.setdefault(os.path.join(gitdir, name), "config")
    out.setdefault(os.path.join(gitdir, "hooks"), "hooks")
    out.setdefault(os.path.join(gitdir, "commondir"), "pointer")
    out.setdefault(os.path.join(gitdir, "info", "attributes"), "attributes")
    for directory, name in TODO_FILES:  # what git rebase/cherry-pick --continue goes on with
        out.setdefault(os.path.join(gitdir, directory, name), "todo")
    for hooks in hooks_paths(gitdir, worktree, workspace, users):
        out.setdefault(hooks, "hooks")
    if depth >= MAX_DEPTH:
        return
    common = commondir_of(gitdir)
    if common is not None and common != gitdir:
        _targets_of_gitdir(common, worktree, workspace, out, users, depth + 1)
    modules = os.path.join(gitdir, "modules")
    if os.path.isdir(modules) and not os.path.islink(modules):
        for sub in _module_dirs(modules):
            _targets_of_gitdir(sub, _module_worktree(sub), workspace, out, users, depth + 1)
    worktrees = os.path.join(gitdir, "worktrees")
    if os.path.isdir(worktrees) and not os.path.islink(worktrees):
        try:
            names = os.listdir(worktrees)
        except OSError:
            names = []
        for name in names[:1000]:
            here = os.path.join(worktrees, name)
            out.setdefault(os.path.join(here, "config.worktree"), "config")
            out.setdefault(os.path.join(here, "commondir"), "pointer")
            for directory, todo in TODO_FILES:
                out.setdefault(os.path.join(here, directory, todo), "todo")


def _module_worktree(gitdir: str) -> str | None:
    data = read_small(os.path.join(gitdir, "config"))
    values = gitconfig.values_of(data, "core.worktree") if data is not None else None
    if not values:
        return None
    return os.path.realpath(os.path.join(gitdir, values[-1]))


def targets(workspace: Path, found: Found) -> dict[str, Kind]:
    """Every watched path and what it is."""
    root = str(workspace)
    out: dict[str, Kind] = {}
    for path in found.pointers:
        out.setdefault(path, "pointer")
    for path in found.attributes:
        out.setdefault(path, "attributes")
    for path in found.gitmodules:
        out.setdefault(path, "gitmodules")
    users = hook_settings(user_configs())
    for gitdir, worktree in found.gitdirs.items():
        _targets_of_gitdir(gitdir, worktree, root, out, users)
    return out
