"""Fuzzy matching for completion menus: a small, fast subsequence scorer (UI-free).

``score(query, candidate)`` says whether every character of ``query`` appears in
``candidate`` in order (case-insensitive) and how good the match is, with the indices of the
matched characters (for highlighting). Higher is better. A match at the start, right after a
word boundary (``/``, ``_``, ``-``, ``:``, ``.``, space, a lower→upper case change) or right
after the previous matched character scores more; gaps cost a little. The empty query matches
everything with score 0.

The alignment is greedy with one improvement: each query character prefers a boundary
position reachable without breaking the order, which is what people mean when they type the
initials (``mp`` → ``mcp_panel``). It runs in O(len(query) × len(candidate)) at worst and
allocates almost nothing, so it is fine on every keystroke over thousands of candidates.
"""

from __future__ import annotations

BOUNDARY = frozenset("/_-:. @\\")
START_BONUS = 12
BOUNDARY_BONUS = 8
CONSECUTIVE_BONUS = 6
MATCH_POINTS = 2
GAP_PENALTY = 1
PREFIX_BONUS = 10
"""Extra when the query is a prefix of the candidate (case-insensitive)."""
EXACT_BONUS = 20
"""Extra when the query is the whole candidate (``mode`` before ``model``)."""


def _is_boundary(candidate: str, index: int) -> bool:
    if index == 0:
        return True
    before = candidate[index - 1]
    if before in BOUNDARY:
        return True
    return before.islower() and candidate[index].isupper()


def score(query: str, candidate: str) -> tuple[int, tuple[int, ...]] | None:
    """``(score, matched indices into candidate)`` or None when ``query`` is not a
    subsequence of ``candidate`` (case-insensitive)."""
    if not query:
        return 0, ()
    folded = candidate.lower()
    wanted = query.lower()
    if len(wanted) > len(folded):
        return None
    # quick rejection: a plain subsequence check
    position = 0
    for char in wanted:
        position = folded.find(char, position)
        if position < 0:
            return None
        position += 1
    # latest start each query character may take and still leave room for the rest
    latest = [0] * len(wanted)
    position = len(folded)
    for q in range(len(wanted) - 1, -1, -1):
        position = folded.rfind(wanted[q], 0, position)
        latest[q] = position
    indices: list[int] = []
    total = 0
    position = 0
    previous = -2
    for q, char in enumerate(wanted):
        first = folded.find(char, position)
        chosen = first
        if first != previous + 1 and not _is_boundary(candidate, first):
            # a boundary occurrence further on, if the rest still fits after it
            look = folded.find(char, first + 1)
            while 0 <= look <= latest[q]:
                if _is_boundary(candidate, look):
                    chosen = look
                    break
                look = folded.find(char, look + 1)
        total += MATCH_POINTS
        if chosen == 0:
            total += START_BONUS
        elif chosen == previous + 1:
            total += CONSECUTIVE_BONUS
        elif _is_boundary(candidate, chosen):
            total += BOUNDARY_BONUS
        if previous >= 0 and chosen > previous + 1:
            total -= min(chosen - previous - 1, 8) * GAP_PENALTY
        indices.append(chosen)
        previous = chosen
        position = chosen + 1
    if folded.startswith(wanted):
        total += PREFIX_BONUS + (EXACT_BONUS if len(folded) == len(wanted) else 0)
    total -= min(len(candidate) - len(query), 20) // 4  # shorter candidates first on ties
    return total, tuple(indices)


def rank(query: str, candidates: list[str]) -> list[tuple[int, int, tuple[int, ...]]]:
    """``(score, index into candidates, matched indices)`` of the candidates ``query``
    matches, best first (ties keep the candidates' order)."""
    found: list[tuple[int, int, tuple[int, ...]]] = []
    for index, candidate in enumerate(candidates):
        result = score(query, candidate)
        if result is not None:
            found.append((result[0], index, result[1]))
    found.sort(key=lambda item: (-item[0], item[1]))
    return found


__all__ = ["rank", "score"]
