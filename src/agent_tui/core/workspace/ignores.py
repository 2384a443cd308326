"""Ignore files — ``.gitignore`` (nested ones too), ``.ignore``, ``.git/info/exclude`` — read the
way git reads them, for the walks of ``grep`` and ``glob`` (which skip what they ignore, as
ripgrep and fd do).

The lines follow gitignore(5): blank lines and ``#`` comments are skipped, ``!`` re-includes,
``\\`` escapes (``\\#``, ``\\!``, ``\\ `` for a trailing space), a trailing ``/`` matches only
directories, a pattern with a ``/`` at the start or in the middle is relative to the file's
directory, one without matches a name at any depth below it. The last matching line of a file
decides; a deeper file decides before a shallower one, a directory's ``.ignore`` before its
``.gitignore`` (ripgrep's order), and ``.git/info/exclude`` comes last. A directory that is
ignored is not entered, so nothing below it can be re-included (git's rule too).

A repository ships these files, so they are data from a possibly hostile source: the globs
are translated by ``core.workspace.globs`` (no pattern can make a match backtrack badly), a file is
read up to ``MAX_BYTES``, and a line git cannot match (an unclosed ``[``) is dropped, as git
drops it. Ignoring is about relevance, not secrecy: the read rules still decide what can be
read, whatever an ignore file says.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.workspace.globs import GlobError, segment_regex, split_segments, translate

NAMES = (".gitignore", ".ignore")
"""The ignore files of a directory, weakest first (``.ignore`` overrides ``.gitignore``)."""
EXCLUDE = ".git/info/exclude"
MAX_BYTES = 1 << 20
"""How much of one ignore file is read (real ones are a few KB)."""
MAX_PATTERNS = 20_000
"""Patterns kept of one file (the first ones; a repeated line counts once)."""
MAX_REGEXES = 256
"""Of those, patterns that need a regex (not a literal name or path, ``*suffix`` or
``dir/**``): a hostile file of 20,000 such patterns took 18 s to read (256: 0.2–0.7 s) and
made each entry cost milliseconds. Real files have a few dozen (``[Bb]in/``)."""
MAX_CACHED = 512
"""Ignore files kept parsed, by path and (inode, size, mtime), once unchanged for
``SETTLE_NS`` (a file rewritten within the clock's granularity keeps its mtime)."""
SETTLE_NS = 2_000_000_000


_MAGIC = re.compile(r"[*?\[\\]")


@dataclass(frozen=True)
class _Line:
    negate: bool
    dir_only: bool
    by_name: bool
    """No ``/`` in the pattern: it is matched against the name alone, at any depth."""
    literal: str | None
    """The pattern without any wildcard (``build``, ``src/gen``): matched by a dict lookup."""
    suffix: str | None
    """The literal after a single leading ``*`` of a name pattern (``*.log`` -> ``.log``)."""
    under: str | None
    """The literal directory of ``dir/**`` (everything below it)."""
    regex: re.Pattern[str] | None
    """Any other pattern (``gen[0-9]*``, ``docs/**/*.html``), translated by
    ``core.workspace.globs``."""

    def matches(self, rel: str, name: str) -> bool:
        text = name if self.by_name else rel
        if self.literal is not None:
            return text == self.literal
        if self.suffix is not None:
            return text.endswith(self.suffix)
        if self.under is not None:
            return rel.startswith(self.under + "/")
        return self.regex is not None and self.regex.fullmatch(text) is not None


def parse_line(line: str, *, regexes: bool = True) -> _Line | None:
    """One line of an ignore file, or None (blank, comment, a pattern git cannot match, or
    one that needs a regex when ``regexes`` is False)."""
    line = line.removesuffix("\r")
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(line) > len(stripped):
        stripped += " "  # "\ " keeps the space it escapes
    line = stripped
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    by_name = len(split_segments(line)) == 1
    if not by_name:
        line = line.lstrip("/")
    literal = suffix = under = regex = None
    if not _MAGIC.search(line):
        literal = line
    elif by_name and line.startswith("*") and not _MAGIC.search(line.lstrip("*")):
        suffix = line.lstrip("*")
    elif line.endswith("/**") and not _MAGIC.search(line[:-3]) and line[:-3].strip("/"):
        under = line[:-3]
    elif not regexes:
        return None
    else:
        try:
            translated = (
                segment_regex(line, strict=True) if by_name else translate(line, strict=True)
            )
        except GlobError:
            return None
        regex = re.compile(translated, re.S)
    return _Line(negate, dir_only, by_name, literal, suffix, under, regex)


class IgnoreFile:
    """The patterns of one ignore file, indexed so that an entry costs a few dict lookups
    whatever the file's size (the literal names, paths and ``*suffix`` patterns most lines
    are), plus one regex for the others."""

    def __init__(self, kind: str, lines: tuple[_Line, ...]) -> None:
        self.kind = kind
        """``.gitignore``, ``.ignore`` or ``.git/info/exclude``: what a note names."""
        self.lines = lines
        # for files and for directories (dir_only lines count only there): the last line
        # that each literal name / literal path / suffix is found on
        self._names: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self._paths: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self._suffixes: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self._under: tuple[dict[str, int], dict[str, int]] = ({}, {})
        others: list[int] = []
        for index, line in enumerate(lines):
            if line.literal is not None:
                table = self._names if line.by_name else self._paths
                key = line.literal
            elif line.suffix is not None:
                table, key = self._suffixes, line.suffix
            elif line.under is not None:
                table, key = self._under, line.under
            else:
                others.append(index)
                continue
            table[1][key] = index
            if not line.dir_only:
                table[0][key] = index
        self._lengths = tuple(sorted({len(k) for k in self._suffixes[1]}))
        self._others = tuple(reversed(others))
        self._any = (_any(lines, others, dirs=False), _any(lines, others, dirs=True))

    @classmethod
    def parse(cls, text: str, kind: str) -> IgnoreFile:
        # A line repeated later is decided by its last copy alone: keep that one.
        raw = list(dict.fromkeys(reversed(text.split("\n"))))[::-1][: MAX_PATTERNS * 2]
        lines: list[_Line] = []
        regexes = 0
        for text_line in raw:
            line = parse_line(text_line, regexes=regexes < MAX_REGEXES)
            if line is not None:
                regexes += line.regex is not None
                lines.append(line)
        return cls(kind, tuple(lines[:MAX_PATTERNS]))

    def verdict(self, rel: str, name: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by a ``!`` line) or None (no line matches).
        ``rel`` is the path relative to this file's directory, ``name`` its last segment.
        The last matching line decides."""
        kind = 1 if is_dir else 0
        best = max(self._names[kind].get(name, -1), self._paths[kind].get(rel, -1))
        suffixes = self._suffixes[kind]
        for length in self._lengths:
            if length > len(name):
                break
            best = max(best, suffixes.get(name[len(name) - length :], -1))
        under = self._under[kind]
        if under:
            slash = rel.find("/")
            while slash != -1:
                best = max(best, under.get(rel[:slash], -1))
                slash = rel.find("/", slash + 1)
        quick = self._any[kind]
        if quick is not None and quick.fullmatch(f"{name}/{rel}") is not None:
            for index in self._others:
                if index < best:
                    break
                line = self.lines[index]
                if (is_dir or not line.dir_only) and line.matches(rel, name):
                    best = index
                    break
        return None if best < 0 else not self.lines[best].negate


def _any(lines: tuple[_Line, ...], others: list[int], *, dirs: bool) -> re.Pattern[str] | None:
    """One regex for the lines that need one, against ``name/relative path`` (a name has no
    ``/``): an entry that matches none of them (most) costs one call."""
    parts = []
    for index in others:
        line = lines[index]
        if line.regex is None or (line.dir_only and not dirs):
            continue
        body = line.regex.pattern
        parts.append(f"(?:{body})/.*" if line.by_name else f"[^/]*/(?:{body})")
    return re.compile("|".join(parts), re.S) if parts else None


_cache: OrderedDict[tuple[str, str], tuple[tuple[int, int, int], IgnoreFile | None]] = OrderedDict()
_lock = threading.Lock()


Readable = Callable[[str], bool]
"""Whether an ignore file may be read: the read guard's verdict on the real path (symlinks
followed) it is opened at. What it makes a walk skip is its content too, and a withheld file's
content is never used."""


def read(path: Path | str, kind: str, readable: Readable | None = None) -> IgnoreFile | None:
    """The ignore file at ``path``, or None when there is none (or it cannot be read, or may
    not be, or holds no pattern). Parsed once while it does not change."""
    real = os.path.realpath(path)  # judged and opened where it leads
    if readable is not None and not readable(real):
        return None
    try:
        with open(real, "rb") as f:
            info = os.fstat(f.fileno())
            stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
            key = (str(path), kind)
            with _lock:
                cached = _cache.get(key)
                if cached is not None and cached[0] == stamp:
                    _cache.move_to_end(key)
                    return cached[1]
            data = f.read(MAX_BYTES)
    except OSError:
        return None
    ignore: IgnoreFile | None = IgnoreFile.parse(data.decode("utf-8", errors="replace"), kind)
    if ignore is not None and not ignore.lines:
        ignore = None
    if time.time_ns() - stamp[2] < SETTLE_NS:
        return ignore  # may change again within the mtime's granularity: not kept
    with _lock:
        _cache[key] = (stamp, ignore)
        _cache.move_to_end(key)
        while len(_cache) > MAX_CACHED:
            _cache.popitem(last=False)
    return ignore


def repository_top(start: Path, workspace: Path | None = None) -> Path:
    """The directory whose ignore files apply from above ``start``: the nearest one holding a
    ``.git`` (a directory, or a file in a worktree or submodule); without one, the workspace
    when ``start`` is inside it, else ``start`` itself."""
    for directory in (start, *start.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    if workspace is not None and (start == workspace or workspace in start.parents):
        return workspace
    return start


def _exclude_file(top: Path) -> Path:
    dot_git = top / ".git"
    if not dot_git.is_file():
        return dot_git / "info" / "exclude"
    try:  # "gitdir: …" of a worktree or submodule; a worktree shares its repository's info/
        text = dot_git.read_text(errors="replace")[:4096]
        gitdir = Path(text.split("gitdir:", 1)[1].strip().splitlines()[0])
        gitdir = gitdir if gitdir.is_absolute() else top / gitdir
        common = gitdir / "commondir"
        if common.is_file():
            gitdir = gitdir / common.read_text(errors="replace").strip()
    except (OSError, IndexError):
        return dot_git / "info" / "exclude"
    return gitdir / "info" / "exclude"


def inherited(
    root: Path, workspace: Path | None = None, readable: Readable | None = None
) -> list[tuple[IgnoreFile, str]]:
    """The ignore files that apply inside ``root`` from above it, weakest first, each with the
    path of ``root`` relative to the file's directory (``"src/"``: prepend it to a path
    relative to ``root``): ``.git/info/exclude``, then the ``.gitignore`` and ``.ignore`` of
    each directory from the repository's top down to ``root``'s parent. ``root``'s own files
    are read by the walk, with those of the directories below it."""
    top = repository_top(root, workspace)
    found: list[tuple[IgnoreFile, str]] = []
    if (top / ".git").exists():
        exclude = read(_exclude_file(top), EXCLUDE, readable)
        if exclude is not None:
            found.append((exclude, _prefix(root, top)))
    above: list[Path] = []
    directory = root
    while directory != top and top in directory.parents:
        directory = directory.parent
        above.append(directory)
    for directory in reversed(above):
        for name in NAMES:
            ignore = read(directory / name, name, readable)
            if ignore is not None:
                found.append((ignore, _prefix(root, directory)))
    return found


def inherited_paths(root: Path, workspace: Path | None = None) -> list[Path]:
    """The files ``inherited`` reads (or would, were they there): a change to any of them, or
    to this list, changes what is ignored inside ``root``."""
    top = repository_top(root, workspace)
    paths = [top / ".git", _exclude_file(top)]
    directory = root
    while directory != top and top in directory.parents:
        directory = directory.parent
        paths.extend(directory / name for name in NAMES)
    return paths


def _prefix(root: Path, directory: Path) -> str:
    rel = root.relative_to(directory).as_posix()
    return "" if rel == "." else rel + "/"
