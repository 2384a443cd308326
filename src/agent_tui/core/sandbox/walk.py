"""The files on disk that the read rules protect, found so the OS sandbox can hide them (and
the same cached walk finding nested git directories, ``nested_git``).

A ``read_file`` deny (or ask) rule protects a file's content in every tool; inside the sandbox
that means the file is not there for a command at all (an empty file or an empty directory is
mounted over it). Rules are patterns (``**/.env``, ``*.pem``, ``secrets/**``), so the files
have to be found: each rule's search root (``Rule.search_root``) is walked, without following
symbolic links (a link whose target is protected hides the target; so does a link a rule
names, and a root reached through a link is matched by the path the rule names).

The walk runs before each sandboxed command (in a worker thread) and must be cheap, so each
directory's listing, with what the rules hide in it, is kept until the directory's
modification time changes: a command in an unchanged tree costs one ``stat`` per directory.
It stops after ``MAX_ENTRIES`` entries and says so (``complete=False``): what it did not reach
may hold a protected file, so the sandbox then refuses to run commands (``refusal``).

A hard link to a protected file is the same content under another name: with
``hard_links``, the walk notes the files it meets that have more than one name and reports
those that are a protected file's (``hard_links``).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.sandbox.confinement import Hidden
from agent_tui.core.sandbox.hard_links import other_names

MAX_ENTRIES = 50_000
"""Entries one walk looks at, over all its roots."""
MAX_CACHED_DIRS = 20_000
SETTLE_NS = 2_000_000_000
"""A listing is kept only for a directory unchanged for this long (2 s)."""

Shape = Callable[[frozenset[str]], bool]
"""Whether a directory is itself a match, by the names it holds (a bare git repository:
``HEAD``, ``objects``, ``refs``); such a directory is reported and not entered."""
Matcher = Callable[[str], bool]
"""Whether a real path (absolute, no symbolic link in it) is protected. A string: the walk
makes no ``Path`` per entry (pathlib cost ten times the rest on a 17,000-file tree)."""


@dataclass(frozen=True)
class _Listing:
    stamp: tuple[int, int, int]
    """(mtime_ns, ctime_ns, inode): a new entry, a removal or a rename changes the mtime; the
    ctime too, and a command cannot set it back (``touch -d`` resets only the mtime)."""
    key: object
    """The rules the hidden names were found with."""
    dirs: tuple[str, ...]
    """Subdirectories to walk (not hidden, not links), as paths."""
    hidden: tuple[str, ...]
    """Entries (or, for a link, its real target) the rules protect."""
    entries: int
    shaped: bool = False
    """The directory itself matched ``Shape``."""
    linked: tuple[tuple[str, int, int], ...] | None = None
    """Regular files (not hidden) with more than one name: (path, device, inode) — the
    candidates for another name of a protected file (``hard_links``); None: not looked for."""


_cache: OrderedDict[tuple[str, str], _Listing] = OrderedDict()
"""Listings by (namespace, directory): each walk keeps its own."""
_lock = threading.Lock()


def _listing(
    directory: str,
    key: object,
    protected: Matcher,
    links: Matcher | None,
    namespace: str,
    shape: Shape | None = None,
    now: int | None = None,
    linked: bool = False,
) -> _Listing | None:
    try:
        info = os.stat(directory)
    except OSError:
        return None
    stamp = (info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
    # A directory changed in the last moments may change again within the same clock tick of
    # its filesystem (coarse on some): its listing is not trusted until it has been quiet.
    latest = max(info.st_mtime_ns, info.st_ctime_ns)
    settled = (now if now is not None else time.time_ns()) - latest > SETTLE_NS
    cache_key = (namespace, directory)
    if settled:
        with _lock:
            cached = _cache.get(cache_key)
            fresh = cached is not None and cached.stamp == stamp and cached.key == key
            if cached is not None and fresh and (cached.linked is not None or not linked):
                _cache.move_to_end(cache_key)
                return cached
    dirs: list[str] = []
    hidden: list[str] = []
    many: list[tuple[str, int, int]] = []
    names: set[str] = set()
    count = 0
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                count += 1
                if shape is not None:
                    names.add(entry.name)
                try:
                    link = entry.is_symlink()
                    real = os.path.realpath(entry.path) if link else entry.path
                    if link and links is not None and links(entry.path):
                        hidden.append(entry.path)
                    elif protected(real) or (link and links is None and protected(entry.path)):
                        hidden.append(real)  # a link a rule names: what it leads to
                    elif not link and entry.is_dir(follow_symlinks=False):
                        dirs.append(entry.path)
                    elif linked and not link and entry.is_file(follow_symlinks=False):
                        info = entry.stat(follow_symlinks=False)
                        if info.st_nlink > 1:  # another name may be a protected file's
                            many.append((entry.path, info.st_dev, info.st_ino))
                except OSError:
                    continue
    except OSError:
        return None  # unreadable for the agent: unreadable for its commands too
    shaped = shape is not None and shape(frozenset(names))
    others = tuple(many) if linked else None
    listing = _Listing(stamp, key, tuple(dirs), tuple(hidden), count, shaped, others)
    if not settled:
        return listing
    with _lock:
        _cache[cache_key] = listing
        _cache.move_to_end(cache_key)
        while len(_cache) > MAX_CACHED_DIRS:
            _cache.popitem(last=False)
    return listing


def find_protected(
    roots: Iterable[Path],
    protected: Matcher,
    key: object,
    limit: int | None = None,
    *,
    links: Matcher | None = None,
    namespace: str = "read",
    shape: Shape | None = None,
    hard_links: bool = False,
) -> Hidden:
    """The paths below ``roots`` (real paths) that ``protected`` matches; a matching directory
    is reported whole and not entered. ``key`` names the rules (a change forgets the cache).
    ``links`` matches a symbolic link by its own path (reported as itself, not its target);
    ``namespace`` keeps another walk's listings apart from the read rules'; ``shape`` matches
    a directory (below a root) by the names it holds; ``hard_links`` reports, too, the files
    met that are another name (a hard link) of a protected file (``hard_links`` module)."""
    limit = MAX_ENTRIES if limit is None else limit
    found: list[Path] = []
    candidates: list[tuple[str, int, int]] = []
    seen = 0
    walked: set[tuple[str, str]] = set()
    now = time.time_ns()
    for root in roots:
        if not os.path.lexists(root):
            continue
        lexical = os.path.abspath(root)
        real = os.path.realpath(root)
        match, root_key = protected, key
        if real != lexical and links is None:
            # the root is (or lies below) a symbolic link: the rule names the path through it
            match, root_key = _aliased(protected, real, lexical), (key, real, lexical)
        if match(real):
            found.append(Path(real))
            continue
        if not os.path.isdir(real):
            continue
        stack = [real]
        while stack:
            directory = stack.pop()
            if (directory, lexical) in walked:
                continue
            walked.add((directory, lexical))
            listing = _listing(directory, root_key, match, links, namespace, shape, now, hard_links)
            if listing is None:
                continue
            seen += listing.entries
            if listing.shaped and directory != real:
                found.append(Path(directory))
                continue
            found.extend(Path(p) for p in listing.hidden)
            candidates.extend(listing.linked or ())
            if seen > limit:
                found += other_names(candidates, found)
                return Hidden(tuple(dict.fromkeys(found)), complete=False, looked_at=seen)
            stack.extend(listing.dirs)
    found += other_names(candidates, found)
    return Hidden(tuple(dict.fromkeys(found)), complete=True, looked_at=seen)


def _aliased(protected: Matcher, real: str, lexical: str) -> Matcher:
    """``protected``, also for a path below ``real`` named as below ``lexical``: a rule
    ``//srv/app/**`` matches ``/data/app/x`` when ``/srv/app`` leads to ``/data/app``."""

    def match(path: str) -> bool:
        if protected(path):
            return True
        if path == real:
            return protected(lexical)
        if path.startswith(real + "/"):
            return protected(lexical + path[len(real) :])
        return False

    return match


def forget() -> None:
    """Drop every cached listing (tests)."""
    with _lock:
        _cache.clear()
