"""Glob patterns as regexes that cannot backtrack badly, whatever the pattern.

Shared by the ``glob`` and ``grep`` tools (patterns from the model) and the permission rules
(patterns from settings files, which a repository can ship): a pathological pattern such as
``**/**/**/…/x`` or ``*a*a*a*a*b`` answers in near-linear time instead of freezing the loop.
"""

from __future__ import annotations

import re
from functools import lru_cache

_MAX_BRACE_EXPANSIONS = 64
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


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


def _segment_regex(segment: str) -> str:
    """One path segment (no ``/``) as a regex that cannot backtrack badly.

    ``*`` is ``[^/]*``, ``?`` is ``[^/]``, ``[..]`` a class that never matches ``/``. Several
    stars with fixed text between them (``*a*a*a*b``) backtrack polynomially (n**k) on a long name
    that almost matches, so, as ``fnmatch`` does, each star but the last is matched atomically
    up to the earliest place the fixed text after it fits. That loses no match: if the segment
    matches with that text further right, it also matches with it at its earliest place (the
    next star absorbs the difference).
    """
    runs: list[list[str]] = [[]]
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
        elif char == "[" and "]" in segment[i + 2 :]:
            end = segment.index("]", i + 2)
            body = segment[i + 1 : end].replace("\\", "\\\\")
            if body.startswith("!"):
                body = "^" + body[1:]
            runs[-1].append(f"(?!/)[{body}]")
            i = end + 1
            continue
        else:
            runs[-1].append(re.escape(char))
        i += 1
    if len(runs) == 1:
        return "".join(runs[0])
    head, *middle, last = ("".join(run) for run in runs)
    return head + "".join(f"(?>[^/]*?{fixed})" for fixed in middle) + "[^/]*" + last


def translate(pattern: str) -> str:
    """A glob as a regex whose matching time stays near-linear in the path, whatever the glob.

    A ``**`` segment spans any number of segments, and consecutive ones are one (``**/**/x``
    is ``**/x``: translated apart, each would be a ``(?:.*/)?`` and together they backtrack
    exponentially on a long path that does not match). A ``**`` that begins a segment
    (``**.py``) spans segments too, as ``**/*.py``; elsewhere in a segment it is ``*``. The
    segments between two ``**`` are matched atomically at the earliest place they fit (the
    argument of ``_segment_regex``, one level up: the next ``**`` absorbs the difference), so
    ``**/a/**/a/**/b`` does not try every way of placing the ``a``s on a deep path. No
    quantified group contains another unbounded quantifier over the same text.
    """
    segments: list[str | None] = []  # None: a ``**`` segment
    for segment in pattern.split("/"):
        if segment == "**":
            segments.append(None)
        elif segment.startswith("**"):
            segments += [None, segment[1:]]
        else:
            segments.append(segment)
    runs: list[list[str]] = [[]]  # the segments before, between and after the ``**``s
    for item in segments:
        if item is not None:
            runs[-1].append(_segment_regex(item))
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

    ``*`` and ``?`` stay within one path segment, ``**`` spans any number of segments, ``[..]``
    is a character class and ``{a,b}`` alternatives.
    """
    alternatives = [translate(p) for p in expand_braces(pattern)]
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.DOTALL)


def has_magic(segment: str) -> bool:
    return any(c in segment for c in "*?[{")
