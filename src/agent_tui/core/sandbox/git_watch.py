"""After every command: what it made of git's config anywhere in the workspace, undone.

Before each command (sandboxed or not) ``Watch.look`` records every file that can make git
run a program (``nested_git.targets``: configs, hooks, hook paths, ``commondir`` and ``.git``
pointers, attributes, ``.gitmodules``) with a stamp — inode, size, mtime, ctime (which a
command cannot set back), mode, and the same of a link's target — and the content of the small
ones. After the command, ``Watch.check`` looks again and judges each file that is new or whose
stamp changed:

- a config or ``.gitmodules``: its *new* entries, read as git reads them (``gitconfig``),
  must all be on the allow-list of plain keys;
- an attributes file: its new lines must pick no driver (``gitattributes``);
- a hook (in ``hooks/`` or the ``core.hooksPath`` directory): any new or changed one runs;
- a ``.git`` pointer or ``commondir``: it may name only git directories of the workspace
  (judged on their own) or ones whose config and hooks run nothing;
- a rebase or cherry-pick to-do list (``sequencer``): its new lines may only pick, drop or
  label commits — an ``exec`` line runs at the user's ``git rebase --continue``.

What fails is **reverted** when the file was there before the command and its earlier content
is known (up to ``nested_git.READ_CAP``): the command's version goes to the quarantine and the
earlier bytes come back. Otherwise it is **moved** to the quarantine (``quarantine.move``:
renamed, or copied within limits across filesystems, and removed). The card says which.

Everything that was there before a command is left alone: the user's own nested repositories
and hooks, and what the user (in an editor) or the file tools changed between commands. The
baseline is taken before each command, per call, so concurrent commands (subagents) each
compare with their own; it costs one walk of the workspace only after a pause (``baseline``):
a command that follows the previous one within ``FRESH_FOR`` reuses that one's walk, so an
agent's run of commands pays one walk each (the look after).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.sandbox import gitattributes, gitconfig, nested_git
from agent_tui.core.sandbox.quarantine import Moved, new_box
from agent_tui.core.sandbox.quarantine import revert as revert_to
from agent_tui.core.sandbox.sequencer import todo_runs_code

Stamp = tuple[int, ...]
MAX_HOOKS = 200
"""Entries looked at in one hooks directory (and in each of its subdirectories)."""
FRESH_FOR = 2.0
"""Seconds after a check during which the next baseline reuses its walk (``baseline``)."""
MAX_MASKS = 256
"""Paths of nested git directories the sandbox mounts read-only (past it: the after-check)."""
Finder = Callable[[Path], nested_git.Found]


@dataclass(frozen=True)
class Item:
    kind: str
    """``config`` | ``hook`` | ``pointer`` | ``attributes`` | ``gitmodules`` | ``todo``."""
    stamp: Stamp
    content: bytes | None
    """The bytes git reads (through a link), when a small regular file."""
    regular: bool
    """A regular file itself (not a link): one that a revert may write back."""


@dataclass
class Snapshot:
    items: dict[str, Item] = field(default_factory=dict)
    found: nested_git.Found = field(default_factory=nested_git.Found)
    hook_dirs: list[str] = field(default_factory=list)


def _stamp(path: str) -> Stamp | None:
    try:
        own = os.lstat(path)
    except OSError:
        return None
    stamp: Stamp = (own.st_ino, own.st_size, own.st_mtime_ns, own.st_ctime_ns, own.st_mode)
    if stat.S_ISLNK(own.st_mode):
        try:
            far = os.stat(path)
            stamp += (far.st_ino, far.st_size, far.st_mtime_ns, far.st_ctime_ns, far.st_mode)
        except OSError:
            stamp += (0,)
    return stamp


stamp_of = _stamp
"""A path's stamp (inode, size, times, mode; and its target's for a link), or None."""


def _entries(directory: str) -> list[str]:
    """A hooks directory's entries that may run: files and links, not ``*.sample``, and the
    files of its subdirectories (husky's ``_/husky.sh``); the directory itself when it is a
    link or not a directory."""
    if os.path.islink(directory) or (os.path.lexists(directory) and not os.path.isdir(directory)):
        return [directory]
    out: list[str] = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if len(out) >= MAX_HOOKS:
                    break
                if entry.name.endswith(".sample"):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    out += _entries_below(entry.path)
                else:
                    out.append(entry.path)
    except OSError:
        pass
    return out


def _entries_below(directory: str) -> list[str]:
    try:
        with os.scandir(directory) as entries:
            return [e.path for e in entries if not e.is_dir(follow_symlinks=False)][:MAX_HOOKS]
    except OSError:
        return []


@dataclass
class Watch:
    """The git-config watch of one session's workspace (its caches; baselines are per call)."""

    workspace: Path
    find: Finder | None = None
    skip: tuple[str, ...] = ()
    """Real paths not walked (the quarantine, when it is inside the workspace)."""
    _cache: dict[str, tuple[Stamp, bytes | None]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _last: Snapshot | None = None
    """The last check's look: the next baseline's git directories, when it follows soon."""
    _last_at: float = 0.0

    def _found(self) -> nested_git.Found:
        if self.find is not None:
            return self.find(self.workspace)
        return nested_git.find(self.workspace, self.skip)

    def baseline(self) -> Snapshot:
        """What a command is compared with afterwards, taken just before it (blocking).

        Right after the previous command's check (within ``FRESH_FOR``: an agent's commands
        follow each other closely) the git directories it found are reused and only their
        files looked at again — no walk; what appeared elsewhere in between is judged with
        the next command (fail-closed). After a pause (the user may have worked in the tree),
        a full look."""
        with self._lock:
            last, at = self._last, self._last_at
        if last is not None and time.monotonic() - at < FRESH_FOR:
            return self.look(last.found)
        return self.look()

    def look(self, found: nested_git.Found | None = None) -> Snapshot:
        """Everything watched, now (of the git directories ``found``, or found by a walk of
        the workspace, cached: a ``stat`` per unchanged directory). Blocking."""
        found = found if found is not None else self._found()
        snapshot = Snapshot(found=found)
        for path, kind in nested_git.targets(self.workspace, found).items():
            if kind == "hooks":
                if os.path.lexists(path):
                    snapshot.hook_dirs.append(path)
                for hook in _entries(path):
                    self._add(snapshot, hook, "hook")
            else:
                self._add(snapshot, path, kind)
        return snapshot

    def _add(self, snapshot: Snapshot, path: str, kind: str) -> None:
        stamp = _stamp(path)
        if stamp is None:
            return
        with self._lock:
            cached = self._cache.get(path)
        if cached is not None and cached[0] == stamp:
            content = cached[1]
        else:
            content = nested_git.read_small(path)
            with self._lock:
                if len(self._cache) > 20_000:
                    self._cache.clear()
                self._cache[path] = (stamp, content)
        snapshot.items[path] = Item(kind, stamp, content, stat.S_ISREG(stamp[4]))

    def masks(self, before: Snapshot) -> tuple[Path, ...]:
        """What the sandbox keeps read-only of the git directories found before a command
        (besides the workspace's own ``.git``, protected already): their configs, hooks,
        ``commondir``, ``info/attributes``, and the hook paths. Real, existing, no links."""
        top = str(self.workspace / ".git")
        out: list[Path] = []
        for gitdir in before.found.gitdirs:
            if gitdir == top or not gitdir.startswith(str(self.workspace) + os.sep):
                continue
            for name in ("config", "config.worktree", "hooks", "commondir", "info/attributes"):
                path = os.path.join(gitdir, name)
                if os.path.lexists(path) and not os.path.islink(path):
                    out.append(Path(path))
        for hooks in before.hook_dirs:
            inside = hooks.startswith(str(self.workspace) + os.sep)
            if inside and not hooks.startswith(top + os.sep) and not os.path.islink(hooks):
                out.append(Path(hooks))
        return tuple(dict.fromkeys(out))[:MAX_MASKS]

    def check(self, before: Snapshot) -> list[Moved]:
        """After a command: undo what it made that runs code (``Moved`` says how). Blocking."""
        now = self.look()
        try:
            return self._undo_all(now, before)
        finally:
            with self._lock:
                self._last, self._last_at = now, time.monotonic()

    def _undo_all(self, now: Snapshot, before: Snapshot) -> list[Moved]:
        suspects: list[tuple[str, Item | None]] = []
        for path, item in now.items.items():
            old = before.items.get(path)
            if old is not None and old.stamp == item.stamp:
                continue
            if self._judge(path, item, old, before) is not None:
                suspects.append((path, old))
        if not suspects:
            return []
        box = new_box()
        out: list[Moved] = []
        for path, old in suspects:
            out += self._undo(Path(path), old, box)
        return out

    def _judge(self, path: str, item: Item, old: Item | None, before: Snapshot) -> str | None:
        """Why ``item`` (new, or changed from ``old``) runs code, or None."""
        if item.kind == "hook":
            return "a hook"
        if item.kind == "pointer":
            return self._pointer_runs_code(path, before)
        if item.content is None:
            return None if not os.path.lexists(path) else "a file git reads that is not read here"
        earlier = old.content if old is not None else None
        if item.kind == "config":
            return gitconfig.runs_code(item.content, earlier)
        if item.kind == "gitmodules":
            return gitconfig.gitmodules_runs_code(item.content, earlier)
        if item.kind == "todo":
            return todo_runs_code(item.content, earlier)
        return gitattributes.attributes_run_code(item.content, earlier, self._drivers(before))

    @staticmethod
    def _drivers(before: Snapshot) -> frozenset[tuple[str, str]]:
        """The drivers the user's own configs define: the global ones, and the workspace's
        as they were before the command."""
        out: set[tuple[str, str]] = set()
        for item in before.items.values():
            if item.kind == "config" and item.content is not None:
                out |= gitconfig.drivers(item.content)
        for path in nested_git.user_configs():
            data = nested_git.read_small(path)
            if data is not None:
                out |= gitconfig.drivers(data)
        return frozenset(out)

    def _pointer_runs_code(self, path: str, before: Snapshot) -> str | None:
        """A ``.git`` pointer or ``commondir`` that names a git directory outside the
        workspace whose config or hooks run code (inside, its files are judged themselves)."""
        if os.path.basename(path) == "commondir":
            named = nested_git.commondir_of(os.path.dirname(path))
            gitdirs = [named] if named else []
        else:
            gitdirs = nested_git.git_dirs_of_pointer(path)
        if not gitdirs and os.path.lexists(path) and os.path.basename(path) == ".git":
            return None if os.path.isfile(path) else "a .git link to nothing git reads"
        inside = str(self.workspace) + os.sep
        for gitdir in gitdirs:
            if gitdir.startswith(inside):
                continue
            for name in ("config", "config.worktree"):
                data = nested_git.read_small(os.path.join(gitdir, name))
                if data is None and os.path.lexists(os.path.join(gitdir, name)):
                    return f"{gitdir}/{name}, which is not read here"
                reason = gitconfig.runs_code(data) if data is not None else None
                if reason is not None:
                    return f"{reason} in {gitdir}"
            if _entries(os.path.join(gitdir, "hooks")):
                return f"the hooks of {gitdir}"
        return None

    def _undo(self, path: Path, old: Item | None, box: Path) -> list[Moved]:
        now = _stamp(str(path))
        revert = (
            old is not None
            and old.content is not None
            and old.regular
            and now is not None
            and stat.S_ISREG(now[4])
        )
        if not revert or old is None:
            return revert_to(path, None, 0, self.workspace, box)
        return revert_to(path, old.content, old.stamp[4], self.workspace, box)


def describe(moved: list[Moved], shown: Callable[[Path], str]) -> str:
    """One sentence for the card and the model: what was undone, how, and where it is."""
    parts: list[str] = []
    for m in moved[:6]:
        what = shown(m.path)
        if m.how == "reverted":
            parts.append(f"{what} (reverted to what it held before)")
        elif m.how == "removed":
            parts.append(f"{what} (removed, not kept: {m.note})")
        elif m.how == "left":
            parts.append(f"{what} (STILL THERE: {m.note}; remove it before you run git there)")
        else:
            parts.append(what + (f" (partly kept: {m.note})" if m.note else ""))
    more = f" and {len(moved) - 6} more" if len(moved) > 6 else ""
    return ", ".join(parts) + more
