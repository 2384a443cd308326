"""Glob patterns as regexes that cannot backtrack badly, whatever the pattern.

Shared by the ``glob`` and ``grep`` tools (patterns from the model), the permission rules
(patterns from settings files, which a repository can ship) and the ``.gitignore`` files the
walker honours (which a repository ships too): a pathological pattern such as
``**/**/**/…/x`` or ``*a*a*a*a*b`` answers in near-linear time instead of freezing the loop.

The syntax is git's (``wildmatch`` with ``WM_PATHNAME``, what ``.gitignore`` uses), checked
against ``git check-ignore`` and ``pathspec`` in the tests:

- ``*`` any run of characters but ``/``, ``?`` one character but ``/``;
- ``[abc]``, ``[a-z]``, ``[!a]`` or ``[^a]`` (not ``a``), ``[]a]`` (``]`` first is literal),
  ``[[:digit:]]`` (the POSIX classes), ``\\`` escapes inside a class too; a class never
  matches ``/``; a reversed range ``[z-a]`` is its first character, as in git;
- ``\\`` makes the next character literal (``\\*``, ``\\[``, ``\\!``, ``\\#``);
- ``**`` is special only as a whole segment: ``**/x`` (x at any depth), ``a/**/b`` (zero or
  more directories between), ``a/**`` (everything below ``a``). Anywhere else it is ``*``
  (``a**b`` is ``a*b``, ``**.py`` is ``*.py``: neither crosses a ``/``).

``pathspec`` (the Python gitignore library) builds regexes that do backtrack:
``*a*a*a*a*a*a*a*a*b`` takes 12 s on a 50-character name there (see benchmarks/README.md), so
it is a test oracle, not the matcher.

What git cannot match at all (an unclosed ``[``, a trailing ``\\``, an unknown ``[:class:]``)
raises ``GlobError`` with ``strict=True`` (the ``.gitignore`` reader drops the pattern, as git
does); otherwise it is taken literally (a permission rule ``read_file(key[1)`` denies the file
named ``key[1`` rather than nothing).
"""

from __future__ import annotations

import re
from functools import lru_cache

_MAX_BRACE_EXPANSIONS = 64
_BRACES = re.compile(r"(?<!\\)\{([^{}]*,[^{}]*)\}")

POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}
"""git's ``[:name:]`` classes (ASCII, as git's ``ctype``) as regex class bodies."""


class GlobError(ValueError):
    """A pattern git matches nothing with (only raised with ``strict=True``)."""


def expand_braces(pattern: str) -> list[str]:
    """``*.{ts,tsx}`` -> ``["*.ts", "*.tsx"]`` (nested and repeated groups; bounded)."""
    out: list[str] = []
    todo = [pattern]
    while todo and len(out) + len(todo) <= _MAX_BRACE_EXPANSIONS:
        item = todo.pop()
        match = _BRACES.search(item)
        if match is None:
            out.append(item)
            continue
        for option in match.group(1).split(","):
            todo.append(item[: match.start()] + option + item[match.end() :])
    return sorted(set(out + todo))


def split_segments(pattern: str) -> list[str]:
    """``pattern`` cut at each ``/`` (an escaped ``\\/`` is a ``/`` too: a name has none)."""
    segments: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            if pattern[i + 1] == "/":
                segments.append("".join(current))
                current = []
            else:
                current.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "/":
            segments.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    segments.append("".join(current))
    return segments


def _class(
    segment: str, start: int, strict: bool, dead: set[tuple[int, bool, bool]]
) -> tuple[str, int] | None:
    """The class that opens at ``segment[start] == "["`` as (regex, index after it), or None
    when it does not close (then the ``[`` is a literal character). Git's rules: ``!`` or
    ``^`` first negates, a ``]`` first (after it) is literal, ``\\`` escapes, ``a-z`` is a
    range (a reversed one is its first character), ``[:name:]`` a POSIX class.

    Whether a class closes depends only on where the scan is and two flags, so the states of
    scans that did not close are kept in ``dead``: a later ``[`` whose scan reaches one stops
    there. Without that, ``[\\][\\][\\]…`` (each ``[`` scanned to the end) took 12 s for 5,000
    characters; with it a segment costs time linear in its length, whatever it holds."""
    if segment.find("]", start + 2) == -1:
        return None  # the common case of a "[" that never closes, answered in C
    visited: list[tuple[int, bool, bool]] = []
    found = _scan_class(segment, start, strict, dead, visited)
    if found is None:
        dead.update(visited)
    return found


def _scan_class(
    segment: str,
    start: int,
    strict: bool,
    dead: set[tuple[int, bool, bool]],
    visited: list[tuple[int, bool, bool]],
) -> tuple[str, int] | None:
    end = len(segment)
    j = start + 1
    negate = j < end and segment[j] in "!^"
    if negate:
        j += 1
    items: list[str] = []
    prev: str | None = None  # the last literal character: the low end of a range
    first = True
    while j < end:
        state = (j, first, prev is not None)
        if state in dead:
            return None
        visited.append(state)
        char = segment[j]
        if char == "]" and not first:
            body = "".join(items)
            if not body:
                return ("[^/]" if negate else "(?!)"), j + 1
            return f"(?!/)[{'^' if negate else ''}{body}]", j + 1
        first = False
        if char == "\\":
            j += 1
            if j == end:
                return None
            char = segment[j]
        elif char == "[" and segment.startswith(":", j + 1):
            close = segment.find("]", j + 2)
            if close == -1:
                return None
            if segment[close - 1] == ":" and close - 1 >= j + 2:
                name = segment[j + 2 : close - 1]
                if name not in POSIX_CLASSES:
                    if strict:
                        raise GlobError(f"unknown character class [:{name}:]")
                    return None
                items.append(POSIX_CLASSES[name])
                prev, j = None, close + 1
                continue
            # no ":]": the "[" is an ordinary character of the class
        elif char == "-" and prev is not None and j + 1 < end and segment[j + 1] != "]":
            j += 1
            high = segment[j]
            if high == "\\":
                j += 1
                if j == end:
                    return None
                high = segment[j]
            if high > prev:  # the low end is in the class already
                items.append("-" + re.escape(high))
            prev = None
            j += 1
            continue
        items.append(re.escape(char))
        prev = char
        j += 1
    return None


def _segment_regex(segment: str, strict: bool = False) -> str:
    """One path segment (no ``/``) as a regex that cannot backtrack badly.

    ``*`` is ``[^/]*``, ``?`` is ``[^/]``, ``[..]`` a class that never matches ``/``. Several
    stars with fixed text between them (``*a*a*a*b``) backtrack polynomially (n**k) on a long name
    that almost matches, so, as ``fnmatch`` does, each star but the last is matched atomically
    up to the earliest place the fixed text after it fits. That loses no match: if the segment
    matches with that text further right, it also matches with it at its earliest place (the
    next star absorbs the difference).
    """
    runs: list[list[str]] = [[]]
    dead: set[tuple[int, bool, bool]] = set()
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            while i < len(segment) and segment[i] == "*":
                i += 1
            runs.append([])
            continue
        if char == "?":
            runs[-1].append("[^/]")
        elif char == "\\":
            if i + 1 == len(segment):
                if strict:
                    raise GlobError("a trailing backslash escapes nothing")
                runs[-1].append(re.escape(char))
            else:
                i += 1
                runs[-1].append(re.escape(segment[i]))
        elif char == "[":
            found = _class(segment, i, strict, dead)
            if found is None:
                if strict:
                    raise GlobError("a character class that does not close")
                runs[-1].append(re.escape(char))
            else:
                runs[-1].append(found[0])
                i = found[1]
                continue
        else:
            runs[-1].append(re.escape(char))
        i += 1
    if len(runs) == 1:
        return "".join(runs[0])
    head, *middle, last = ("".join(run) for run in runs)
    return head + "".join(f"(?>[^/]*?{fixed})" for fixed in middle) + "[^/]*" + last


def segment_regex(segment: str, *, strict: bool = False) -> str:
    """``_segment_regex`` for one name (a pattern without ``/``): what a ``.gitignore``
    pattern without a slash is matched with, against each name."""
    return _segment_regex(segment, strict)


def translate(pattern: str, *, strict: bool = False) -> str:
    """A glob as a regex whose matching time stays near-linear in the path, whatever the glob.

    A ``**`` segment spans any number of segments, and consecutive ones are one (``**/**/x``
    is ``**/x``: translated apart, each would be a ``(?:.*/)?`` and together they backtrack
    exponentially on a long path that does not match). A ``**`` inside a segment is a ``*``.
    The segments between two ``**`` are matched atomically at the earliest place they fit (the
    argument of ``_segment_regex``, one level up: the next ``**`` absorbs the difference), so
    ``**/a/**/a/**/b`` does not try every way of placing the ``a``s on a deep path. No
    quantified group contains another unbounded quantifier over the same text.
    """
    runs: list[list[str]] = [[]]  # the segments before, between and after the ``**``s
    for segment in split_segments(pattern):
        if segment != "**":
            runs[-1].append(_segment_regex(segment, strict))
        elif runs[-1] or len(runs) == 1:
            runs.append([])
    if len(runs) == 1:
        return "/".join(runs[0])
    first, *middle, last = runs
    out = "/".join(first) + "/" if first else ""
    out += "".join(f"(?>(?:[^/]*/)*?{'/'.join(run)}/)" for run in middle)
    return out + ("(?:.*/)?" + "/".join(last) if last else ".*")


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex that fully matches posix relative paths selected by a glob pattern.

    ``*`` and ``?`` stay within one path segment, a ``**`` segment spans any number of
    segments, ``[..]`` is a character class, ``\\`` escapes, and ``{a,b}`` are alternatives
    (the one addition to git's syntax).
    """
    alternatives = [translate(p) for p in expand_braces(pattern)]
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.DOTALL)


def has_magic(segment: str) -> bool:
    """Could ``segment`` match anything but itself? (An escape counts: ``\\*`` is not a
    directory named ``\\*``.)"""
    return any(c in segment for c in "*?[{\\")
