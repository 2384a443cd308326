"""Bash pathname expansion against the real file system, bounded, for deny rules.

``/???/r? f`` runs ``/bin/rm f`` on most systems: the command name is a glob bash expands
before running anything. To deny it, the judgement expands such a name itself, as bash would
(``*``, ``?``, ``[…]`` with ``!``/``^``, ranges and ``[:class:]``; a leading ``.`` matched only
by a literal ``.``; ``.`` and ``..`` never, as with bash 5.2's ``globskipdots``), visiting at
most ``MAX_ENTRIES`` directory entries. Past that, or for a pattern it does not model, it gives
up (None) and the command keeps asking.
"""

from __future__ import annotations

import os
import re

from agent_tui.core.workspace.globs import POSIX_CLASSES

MAX_ENTRIES = 20_000
MAX_MATCHES = 256

_CLASSES = {**POSIX_CLASSES, "word": "0-9A-Za-z_"}


class _Unsupported(Exception):
    pass


def has_magic(text: str) -> bool:
    return any(c in text for c in "*?[")


def _component_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end, text = _bracket(pattern, i)
            if end < 0:
                out.append(re.escape("["))
            else:
                out.append(text)
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out) + r"\Z", re.S)


def _bracket(pattern: str, start: int) -> tuple[int, str]:
    """The regex of the bracket expression at ``start`` and where it ends; (-1, "") when it
    does not close (bash then takes ``[`` literally)."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    parts: list[str] = []
    first = True
    while i < len(pattern):
        ch = pattern[i]
        if ch == "]" and not first:
            body = "".join(parts)
            return i, f"[{'^' if negate else ''}{body}]"
        first = False
        if ch == "[" and pattern.startswith(("[:", "[=", "[."), i):
            close = pattern.find(pattern[i + 1] + "]", i + 2)
            if close < 0:
                return -1, ""
            if pattern[i + 1] != ":":
                raise _Unsupported("equivalence classes and collating symbols")
            name = pattern[i + 2 : close]
            if name not in _CLASSES:
                raise _Unsupported(f"the class [:{name}:]")
            parts.append(_CLASSES[name])
            i = close + 2
            continue
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            low, high = ch, pattern[i + 2]
            if low > high:
                raise _Unsupported("a reversed range")
            parts.append(f"{re.escape(low)}-{re.escape(high)}")
            i += 3
            continue
        parts.append(re.escape(ch))
        i += 1
    return -1, ""


def name_matches(pattern: str, name: str, *, period: bool = True) -> bool | None:
    """Does the file name ``name`` match the glob ``pattern`` (one path component), as bash
    would match it (``period``: a leading ``.`` only by a literal one; ``find -name`` matches
    it like any character); None when the pattern uses what this module does not model."""
    try:
        regex = _component_regex(pattern)
    except (_Unsupported, re.error):
        return None
    if period and name.startswith(".") and not pattern.startswith("."):
        return False
    return regex.match(name) is not None


def expand(pattern: str, cwd: str) -> list[str] | None:
    """The paths bash's expansion of ``pattern`` (relative to ``cwd``) yields, as bash would
    write them; [] when nothing matches; None when it cannot be told within the bounds."""
    absolute = pattern.startswith("/")
    components = [c for c in pattern.split("/") if c]
    if not components:
        return []
    try:
        regexes = [(_component_regex(c) if has_magic(c) else None, c) for c in components]
    except (_Unsupported, re.error):
        return None
    prefixes = ["/" if absolute else ""]
    budget = [MAX_ENTRIES]
    for index, (regex, literal) in enumerate(regexes):
        last = index == len(regexes) - 1
        found: list[str] = []
        for prefix in prefixes:
            directory = os.path.join(cwd, prefix) if not absolute else prefix
            if regex is None:
                candidate = prefix + literal
                full = candidate if absolute else os.path.join(cwd, candidate)
                if last and not os.path.lexists(full):
                    continue
                found.append(candidate if last else candidate + "/")
                continue
            names = _list(directory or ".", budget)
            if names is None:
                return None
            for name in names:
                if name in (".", ".."):
                    continue
                if name.startswith(".") and not literal.startswith("."):
                    continue
                if not regex.match(name):
                    continue
                candidate = prefix + name
                if not last:
                    full = candidate if absolute else os.path.join(cwd, candidate)
                    if not os.path.isdir(full):
                        continue
                    candidate += "/"
                found.append(candidate)
                if len(found) > MAX_MATCHES:
                    return None
        prefixes = found
        if not prefixes:
            return []
    return sorted(prefixes)


def _list(directory: str, budget: list[int]) -> list[str] | None:
    try:
        with os.scandir(directory) as entries:
            names = []
            for entry in entries:
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                names.append(entry.name)
            return names
    except OSError:
        return []
