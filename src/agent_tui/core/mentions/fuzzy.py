"""How well a path matches what was typed after ``@``: a subsequence score in the manner of
fzf's first algorithm (a greedy forward match, then tightened backwards), favouring the
basename, matches at word starts, runs of consecutive characters and short paths.

It is the mention picker's own, apart from ``core.text.fuzzy`` (the slash-command menu's, which
scores a few dozen short names): a path has a basename that matters more than its
directories, and this one scores a few thousand paths per keystroke with ``str.find`` rather
than a per-character loop (``core.mentions.index`` narrows 100,000 paths to those first;
``benchmarks/bench_mentions.py`` times it).
"""

from __future__ import annotations

from dataclasses import dataclass

MATCH = 16
CONSECUTIVE = 12
BOUNDARY = 10
FIRST_OF_NAME = 24
"""The first typed character is the basename's first."""
IN_NAME = 40
"""All typed characters are in the basename."""
NAME_PREFIX = 60
"""The basename starts with the query."""
EXACT_NAME = 120
"""The basename (or it without its extension) is the query."""
GAP = 1
"""Per character skipped between the first and the last matched one (at most 30 counted)."""
MAX_GAP_PENALTY = 30
SEPARATORS = frozenset("/_-. ")


@dataclass(frozen=True)
class Scored:
    score: float
    positions: tuple[int, ...]
    """Indices into the label that matched (the menu highlights them)."""


def _align(query: str, text: str, start: int) -> list[int] | None:
    """Positions of ``query``'s characters in ``text[start:]``, as tight as a greedy match
    allows (fzf v1: forward to find the end, backward from it to find the latest start)."""
    pos = start
    end = -1
    for char in query:
        end = text.find(char, pos)
        if end < 0:
            return None
        pos = end + 1
    positions = [0] * len(query)
    pos = end
    for index in range(len(query) - 1, -1, -1):
        pos = text.rfind(query[index], start, pos + 1)
        positions[index] = pos
        pos -= 1
    return positions


def _boundary(label: str, pos: int) -> bool:
    if pos == 0:
        return True
    before = label[pos - 1]
    return before in SEPARATORS or (before.islower() and label[pos].isupper())


def score(query: str, label: str, lower: str, name_at: int) -> Scored | None:
    """The score of ``label`` (``lower``: it lowercased; ``name_at``: where its basename
    starts) for the lowercased ``query``, or None when it does not match."""
    if not query:
        return Scored(-len(label) / 10, ())
    in_name = _align(query, lower, name_at)
    positions = in_name if in_name is not None else _align(query, lower, 0)
    if positions is None:
        return None
    total = MATCH * len(query) - len(label) / 10
    previous = -2
    for pos in positions:
        if pos == previous + 1:
            total += CONSECUTIVE
        elif _boundary(label, pos):
            total += BOUNDARY
        previous = pos
    total -= min((positions[-1] - positions[0] + 1 - len(query)) * GAP, MAX_GAP_PENALTY)
    if in_name is not None:
        total += IN_NAME
        name = lower[name_at:].rstrip("/")
        if positions[0] == name_at:
            total += FIRST_OF_NAME
        if name.startswith(query):
            total += NAME_PREFIX
            if name == query or name.rsplit(".", 1)[0] == query:
                total += EXACT_NAME
    elif lower.startswith(query):
        total += NAME_PREFIX / 2  # ``src/ap`` typed as the path's start
    return Scored(total, tuple(positions))
