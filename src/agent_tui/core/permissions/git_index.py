"""Which repository git would use in a directory, and which files its index tracks — read the
way git reads them, without running git (whose configuration may run programs).

``git_dir(start)`` follows git's discovery: from ``start`` up, the first directory holding a
``.git`` (a git directory, or a file ``gitdir: …``), or that is itself a git directory (a bare
repository: ``HEAD``, ``objects/`` and ``refs/``). ``tracked(git_dir)`` reads its ``index``
(gitformat-index(5), versions 2 to 4) into the tracked paths, relative to the work tree's top;
None when it cannot be read whole (too large, a split or sparse index, a format it does not
know): callers then assume any file may be tracked. ``committed(top, gitdir)`` lists every
path the history ever held (one ``git log --name-only`` walk, cached until a ref moves).
"""

from __future__ import annotations

import os
import struct
import subprocess
import threading
from pathlib import Path

from agent_tui.core.workspace.git_index_file import MALFORMED, read_entries

MAX_INDEX_BYTES = 64 << 20
"""An index larger than this (about half a million files) is not read."""
_cache: dict[str, tuple[tuple[int, int, int], tuple[str, ...] | None]] = {}
_lock = threading.Lock()


def is_git_dir(path: Path) -> bool:
    """``path`` holds a repository, as git's ``is_git_directory`` decides (read loosely, so
    that more counts, never less): a ``HEAD`` that is not a directory (git takes a link
    to ``refs/…`` even when nothing is at its end), and ``objects`` and ``refs`` entries of any
    kind (git only checks it may ``access`` them: an executable file will do) — or a
    ``commondir``, which names where those are."""
    head = path / "HEAD"
    if not os.path.lexists(head) or os.path.isdir(head):
        return False
    if os.path.lexists(path / "commondir"):
        return True
    return os.path.lexists(path / "objects") and os.path.lexists(path / "refs")


def _pointer(dot_git: Path) -> Path | None:
    """The directory a ``.git`` file names (``gitdir: PATH``)."""
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(4096).strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = Path(first[len("gitdir:") :].strip())
    return Path(os.path.realpath(target if target.is_absolute() else dot_git.parent / target))


def git_dir(start: Path) -> Path | None:
    """The git directory git would use when run in ``start`` (a real path), or None."""
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if os.path.isdir(dot_git) and is_git_dir(dot_git):
            return Path(os.path.realpath(dot_git))
        if os.path.isfile(dot_git):
            target = _pointer(dot_git)
            if target is not None:
                return target
        if is_git_dir(directory):
            return directory
    return None


def work_tree_top(start: Path) -> Path | None:
    """The top of the work tree that holds ``start`` (where the index's paths start)."""
    for directory in (start, *start.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return None


def tracked(gitdir: Path) -> tuple[str, ...] | None:
    """The paths the index of ``gitdir`` tracks; () without an index; None when unreadable."""
    index = gitdir / "index"
    try:
        info = os.stat(index)
    except FileNotFoundError:
        return ()
    except OSError:
        return None
    if info.st_size > MAX_INDEX_BYTES:
        return None
    stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
    key = str(index)
    with _lock:
        cached = _cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
    try:
        data = index.read_bytes()
    except OSError:
        return None
    paths = parse_index(data, _hash_size(gitdir))
    with _lock:
        if len(_cache) > 32:
            _cache.clear()
        _cache[key] = (stamp, paths)
    return paths


def _hash_size(gitdir: Path) -> int:
    try:
        config = (gitdir / "config").read_text(errors="replace")[:65536].lower()
    except OSError:
        return 20
    return 32 if "sha256" in config.replace(" ", "") else 20


def parse_index(data: bytes, hash_size: int = 20) -> tuple[str, ...] | None:
    """The entries' paths of an index file's bytes, or None when it cannot be read whole."""
    end = len(data) - hash_size
    try:
        entries, pos = read_entries(data, end, hash_size)
        while pos + 8 <= end:  # extensions: a split index keeps entries elsewhere
            signature = data[pos : pos + 4]
            size = struct.unpack(">I", data[pos + 4 : pos + 8])[0]
            if signature in (b"link", b"sdir"):
                return None
            pos += 8 + size
    except MALFORMED:
        return None
    if any(entry.mode & 0o170000 == 0o040000 for entry in entries):  # a sparse directory
        return None
    return tuple(os.fsdecode(entry.path) for entry in entries)


# -- the paths of every commit -------------------------------------------------------------------

MAX_SECONDS = 3.0
"""How long the walk of the history may take (longer: unknown, and reads ask)."""
MAX_OUTPUT = 64 << 20
_history: dict[str, tuple[tuple[int, ...], frozenset[str] | None]] = {}


def refs_stamp(gitdir: Path) -> tuple[int, ...]:
    """Changes whenever a ref, a reflog or the packed refs change."""
    stamp: list[int] = []
    common = gitdir
    try:
        text = (gitdir / "commondir").read_text(errors="replace").strip()
        common = Path(os.path.realpath(gitdir / text))
    except OSError:
        pass
    for base in {gitdir, common}:
        for name in ("HEAD", "packed-refs", "logs/HEAD"):
            try:
                info = os.stat(base / name)
            except OSError:
                continue
            stamp += [info.st_ino, info.st_size, info.st_mtime_ns]
        for sub in ("refs", "logs/refs"):
            for dirpath, _, filenames in os.walk(base / sub):
                for filename in filenames:
                    try:
                        info = os.stat(os.path.join(dirpath, filename))
                    except OSError:
                        continue
                    stamp += [info.st_ino, info.st_size, info.st_mtime_ns]
    return tuple(stamp)


def committed(top: Path, gitdir: Path) -> frozenset[str] | None:
    """Every path any commit reachable from a ref or a reflog ever held (stashes included),
    relative to the work tree's top; None when git could not tell in time.

    Runs ``git log --all --reflog -m --name-only`` in the workspace's own repository (whose
    configuration is the user's), with what could run a program turned off: no pager (not a
    terminal), no fsmonitor, no signature checks, no external diff or textconv."""
    key = str(gitdir)
    stamp = refs_stamp(gitdir)
    with _lock:
        cached = _history.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
    found = _walk_history(top)
    with _lock:
        if len(_history) > 16:
            _history.clear()
        _history[key] = (stamp, found)
    return found


def _walk_history(top: Path) -> frozenset[str] | None:
    """Every path any commit of the history held (all refs and reflogs), by the agent's
    hardened git (``sandbox.safe_git``: a repository's config cannot make it run anything);
    None when it cannot be known (git refused or failed, too slow, too much)."""
    out = history_log(top, "--name-only")
    if out is None:
        return None
    return frozenset(os.fsdecode(p).strip("\n") for p in out.split(b"\0") if p.strip())


def history_log(top: Path, *what: str) -> bytes | None:
    """``git log --all --reflog -m --format= -z WHAT…`` over the whole history, by the agent's
    hardened git; None when git refused or failed, took over ``MAX_SECONDS`` or printed over
    ``MAX_OUTPUT``."""
    from agent_tui.core.sandbox import safe_git

    args = ("--all", "--reflog", "-m", *what, "--format=", "-z")
    try:
        done = safe_git.run(top, "log", *args, timeout=MAX_SECONDS)
    except (safe_git.Refused, OSError, subprocess.SubprocessError):
        return None
    if done.code != 0 or len(done.stdout) > MAX_OUTPUT:
        return None
    return done.stdout
