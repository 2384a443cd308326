"""glibc's ``strverscmp``: version strings compared as GNU tools compare them.

``sed``'s ``v VERSION`` command compares the version it is asked for with its own this way
(``sed_script``); kept apart because it is glibc's algorithm, not sed's grammar.
"""

from __future__ import annotations

__all__ = ["strverscmp"]

_NEXT_STATE = (0, 3, 9, 0, 3, 3, 0, 6, 6, 0, 6, 9)
_CMP, _LEN = 2, 3
_RESULT = (
    (_CMP, _CMP, _CMP, _CMP, _LEN, _CMP, _CMP, _CMP, _CMP),
    (_CMP, -1, -1, +1, _LEN, _LEN, +1, _LEN, _LEN),
    (_CMP, _CMP, _CMP, _CMP, _CMP, _CMP, _CMP, _CMP, _CMP),
    (_CMP, +1, +1, -1, _CMP, _CMP, -1, _CMP, _CMP),
)


def strverscmp(left: str, right: str) -> int:
    """glibc's ``strverscmp`` (sed's ``v`` compares with it): digit runs compare as numbers,
    a run with leading zeros as a fraction."""
    one = left.encode("utf-8", "surrogateescape") + b"\0"
    two = right.encode("utf-8", "surrogateescape") + b"\0"

    def kind(c: int) -> int:
        return (c == ord("0")) + (48 <= c <= 57)

    i = 0
    c1, c2 = one[0], two[0]
    state = kind(c1)
    while c1 == c2:
        if c1 == 0:
            return 0
        state = _NEXT_STATE[state]
        i += 1
        c1, c2 = one[i], two[i]
        state += kind(c1)
    diff = c1 - c2
    result = _RESULT[state // 3][(state % 3) * 3 + kind(c2)]
    if result == _CMP:
        return diff
    if result != _LEN:
        return result
    p1 = p2 = i + 1  # C: both pointers are already past c1 and c2
    while True:
        digit = 48 <= one[p1] <= 57
        p1 += 1
        if not digit:
            break
        digit = 48 <= two[p2] <= 57
        p2 += 1
        if not digit:
            return 1
    return -1 if 48 <= two[p2] <= 57 else diff
