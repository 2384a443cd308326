"""Files outside ``.git/`` that make git run a program: protected like ``.git/`` itself.

``protected`` names ``.gitattributes`` and ``.gitmodules`` at any depth. This module finds the
places a repository's *config* makes dangerous, for a path about to be written (by
``write_file``, ``edit_file`` or a shell command), by looking at every repository that
encloses it — a ``.git`` directory, file or link in the path's directory or one above it, or
a directory shaped like a git directory (``HEAD`` with ``objects`` and ``refs``, or a
``commondir``: a *bare* repository such as ``src/x.git``, which git uses when the user runs
git inside it):

- the **hooks path**: the directory ``core.hooksPath`` names (in the repository's config, the
  configs it includes, or the user's global config; relative to the work tree), such as
  ``.husky/``, ``.husky/_`` (and, for husky's ``_`` layout, ``.husky/`` itself, whose files
  its hooks run) or ``.githooks/``: git runs its files as hooks;
- a **config file the repository includes** (``include.path = ../.gitconfig``, a common way
  to share settings): its ``core.fsmonitor``, aliases and filters run programs;
- a **bare repository**'s files: its ``config`` and ``hooks/`` (any file below it, to be safe).

The after-command git watch (``sandbox.git_watch``) undoes such a write made by a command, but
only when the next command ends; a file tool's write would stand until then, and the user's
``git commit`` in between runs it. Hence the question before the write, in every mode.

A hooks path that a repository names *outside its own work tree* (a nested repository's
``core.hooksPath = ../hooks``) is found only when that repository encloses the path written;
otherwise the git watch is what catches it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from agent_tui.core.sandbox import gitconfig, nested_git

BARE = "its config and hooks make git run programs when git is used in it"
MAX_ANCESTORS = 64
"""Directories above a path looked at (a path deeper than this is rare; the rest go unseen)."""


def git_protection(path: Path) -> tuple[str, str] | None:
    """``(key, what)`` when writing ``path`` (absolute, resolved) changes what git runs:
    ``key`` is what an allow rule must name to allow it, ``what`` says why."""
    text = str(path)
    made = _completes(path)
    if made is not None:
        name = os.path.basename(made)
        return name, (
            f"{name} becomes a git repository with this write (bare: HEAD, objects, refs or "
            f"a commondir): {BARE}"
        )
    for gitdir, worktree in _enclosing(path):
        if worktree is None and (text == gitdir or text.startswith(gitdir + os.sep)):
            name = os.path.basename(gitdir)
            return name, f"{name} is a git repository (bare: HEAD, objects, refs): {BARE}"
        base = worktree or gitdir
        for hooks, named_in in _hooks_dirs(gitdir, worktree):
            if text == hooks or text.startswith(hooks + os.sep):
                key = _relative(hooks, base)
                return key, (
                    f"{key} is the hooks directory of the repository in {_shown(base)} "
                    f"(core.hooksPath in {_shown(named_in)}): git runs the files there as "
                    "hooks (pre-commit, post-checkout…)"
                )
        for included, by in _included(gitdir):
            if text == included:
                key = os.path.basename(included)
                return key, (
                    f"{key} is included by {_shown(by)} (include.path): its settings "
                    "(core.fsmonitor, aliases, filters, hooksPath) make git run programs"
                )
    return None


def git_protection_below(path: Path) -> tuple[str, str] | None:
    """The same for a write of a whole tree at ``path`` (a recursive copy or delete): a hooks
    directory or an included config of an enclosing repository that lies below it."""
    prefix = str(path).rstrip(os.sep) + os.sep
    for gitdir, worktree in _enclosing(path):
        base = worktree or gitdir
        for hooks, named_in in _hooks_dirs(gitdir, worktree):
            if hooks.startswith(prefix):
                key = _relative(hooks, base)
                return key, (
                    f"{_shown(str(path))} holds {key}, the hooks directory of the repository in "
                    f"{_shown(base)} (core.hooksPath in {_shown(named_in)}): git runs the "
                    "files there as hooks"
                )
        for included, by in _included(gitdir):
            if included.startswith(prefix):
                return os.path.basename(included), (
                    f"{_shown(str(path))} holds {included}, which {_shown(by)} includes "
                    "(include.path): its settings make git run programs"
                )
    return None


# -- the repositories around a path ------------------------------------------------------------


def _enclosing(path: Path) -> Iterator[tuple[str, str | None]]:
    """``(git directory, work tree or None for a bare one)`` of every repository whose work
    tree or git directory holds ``path``, nearest first (``path`` itself counts)."""
    seen: set[str] = set()
    for index, directory in enumerate((path, *path.parents)):
        if index > MAX_ANCESTORS:
            return
        here = str(directory)
        dot = os.path.join(here, ".git")
        found: list[tuple[str, str | None]] = []
        if os.path.isdir(dot) and not os.path.islink(dot):
            found.append((dot, here))
        elif os.path.lexists(dot):
            found += [(gitdir, here) for gitdir in nested_git.git_dirs_of_pointer(dot)]
        if _shaped(here):
            found.append((here, None))
        for gitdir, worktree in found:
            if gitdir not in seen:
                seen.add(gitdir)
                yield gitdir, worktree


def _shaped(directory: str) -> bool:
    """A directory git takes for a git directory (``nested_git.looks_like_git_dir``), by a few
    ``stat`` calls rather than a listing."""
    head = os.path.join(directory, "HEAD")
    if not os.path.lexists(head) or os.path.isdir(head):
        return False  # a link to ``refs/…`` with nothing at its end is a HEAD to git
    if os.path.lexists(os.path.join(directory, "commondir")):
        return True
    # git only checks it may ``access`` them: an executable file will do
    return all(os.path.lexists(os.path.join(directory, name)) for name in ("objects", "refs"))


SHAPE = ("HEAD", "commondir", "objects", "refs")


def _completes(path: Path) -> str | None:
    """The directory that writing ``path`` makes a git directory (its ``HEAD``, ``commondir``,
    ``objects`` or ``refs`` being the last piece missing), or None. Its config may have been
    written first, while the directory was not yet shaped like one: the write that completes
    the shape is the one that turns that config on."""
    parts = path.parts
    for index in range(1, len(parts)):
        if parts[index] not in SHAPE:
            continue
        directory = os.path.join(*parts[:index])
        if _shaped(directory):
            continue  # already one: ``_enclosing`` judges it

        def has(name: str, directory: str = directory, index: int = index) -> bool:
            return parts[index] == name or os.path.lexists(os.path.join(directory, name))

        if has("HEAD") and (has("commondir") or (has("objects") and has("refs"))):
            return directory
    return None


def _configs(gitdir: str) -> list[str]:
    configs = [os.path.join(gitdir, "config"), os.path.join(gitdir, "config.worktree")]
    common = nested_git.commondir_of(gitdir)
    if common is not None:
        configs.append(os.path.join(common, "config"))
    return configs


def _settings(config: str) -> tuple[list[str], list[str]]:
    """``(core.hooksPath values, include paths)`` of one config file as git reads it (both
    empty when it is missing), remembered while its stamp (inode, size, mtime, ctime) holds:
    a write is judged often, a config rarely changes."""
    try:
        info = os.stat(config)
    except OSError:
        return [], []
    stamp = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    cached = _SETTINGS.get(config)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    data = nested_git.read_small(config)
    hooks = (gitconfig.values_of(data, "core.hookspath") or []) if data else []
    includes = (gitconfig.values_of(data, "include") or []) if data else []
    if len(_SETTINGS) > 1000:
        _SETTINGS.clear()
    _SETTINGS[config] = (stamp, (hooks, includes))
    return hooks, includes


_SETTINGS: dict[str, tuple[tuple[int, ...], tuple[list[str], list[str]]]] = {}


def _reached(first: str) -> Iterator[tuple[str, list[str]]]:
    """``first`` and every file its includes name, transitively (missing ones too: writing
    one is what plants its settings), each with its ``core.hooksPath`` values."""
    stack = [(first, 0)]
    seen: set[str] = set()
    while stack:
        config, depth = stack.pop()
        if config in seen or depth > nested_git.MAX_DEPTH:
            continue
        seen.add(config)
        hooks, includes = _settings(config)
        yield config, hooks
        for named in includes:
            named = os.path.expanduser(named)
            if not os.path.isabs(named):
                named = os.path.join(os.path.dirname(config), named)
            stack.append((os.path.realpath(named), depth + 1))


def _hooks_dirs(gitdir: str, worktree: str | None) -> list[tuple[str, str]]:
    """``(real directory, the config naming it)`` of each ``core.hooksPath`` value for this
    repository (its configs and what they include, then the user's global configs); with
    husky's ``_`` layout its parent too."""
    base = worktree or gitdir
    out: list[tuple[str, str]] = []
    for first in (*_configs(gitdir), *nested_git.user_configs()):
        for config, values in _reached(first):
            for value in values:
                named = os.path.expanduser(value)
                real = os.path.realpath(
                    named if os.path.isabs(named) else os.path.join(base, named)
                )
                out.append((real, config))
                if os.path.basename(real) == "_":
                    out.append((os.path.dirname(real), config))
    return out


def _included(gitdir: str) -> list[tuple[str, str]]:
    """``(real file, the config including it)`` for each file that the repository's configs
    (or the user's global ones) include (``include.path``, ``includeIf.*.path``: all of
    them), transitively, outside its git directory (inside, ``.git/`` protects it already).
    A file that does not exist yet counts: writing it is what plants the settings."""
    out: list[tuple[str, str]] = []
    for first in (*_configs(gitdir), *nested_git.user_configs()):
        for config, _values in _reached(first):
            if config != first and not config.startswith(gitdir + os.sep):
                out.append((config, first))
    return out


def bare_repository(directory: str) -> bool:
    """Whether git takes ``directory`` for a git directory (a bare repository)."""
    return _shaped(directory)


def _relative(path: str, base: str) -> str:
    if path == base or not path.startswith(base + os.sep):
        return os.path.basename(path)
    return path[len(base) + 1 :]


def _shown(path: str) -> str:
    home = os.path.expanduser("~")
    if path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path
