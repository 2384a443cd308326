"""Unified diffs of text files, as shown to the model and in the UI's edit cards.

Lines are split on ``\\n`` only, as read_file numbers them, so the ``@@`` line numbers are the
numbers read_file shows; a line's ``\\r`` (CRLF) is not shown or compared.

``edit_diff`` diffs only what an edit replaced: each replaced span, widened to whole lines,
against what took its place, with a few lines of context — never the whole file. difflib on a
whole file is slow on large files and, with its "autojunk" heuristic, wrong on files of
repeated lines: every line is "junk", nothing matches, and a one-line change in a file of
identical lines came out as a diff of the whole file (79,806 lines).
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

EXACT_CELLS = 4_000_000
"""Above this many line pairs (old lines x new lines, after the common head and tail are set
aside) a changed region is diffed with difflib's autojunk heuristic (fast, coarse) instead of
exactly."""


@dataclass(frozen=True)
class _Change:
    """Old lines ``[i1, i2)`` became ``new``, which starts at new line ``j1`` (0-based)."""

    i1: int
    i2: int
    j1: int
    new: Sequence[str]


def _lines(text: str) -> list[str]:
    """The lines of ``text`` as read_file counts them, without their ``\\n`` or ``\\r\\n``."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


@dataclass
class _Lines:
    """The lines of a large text by number (as ``_lines`` gives them), found by walking from
    known line starts (``anchors``) instead of splitting the whole text: an edit's diff needs
    only the lines around what it replaced."""

    text: str
    anchors: list[tuple[int, int]] = field(default_factory=lambda: [(0, 0)])
    """(line index, offset where it starts), in order."""

    def __post_init__(self) -> None:
        text = self.text
        self.count = text.count("\n") + (1 if text and not text.endswith("\n") else 0)

    def anchor(self, line: int, offset: int) -> None:
        if line > self.anchors[-1][0]:
            self.anchors.append((line, offset))

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, span: slice) -> list[str]:
        first, stop = span.start or 0, min(span.stop, self.count)
        if first >= stop:
            return []
        text = self.text
        at = bisect.bisect_right(self.anchors, (first, len(text)))
        line, pos = self.anchors[at - 1]
        if at < len(self.anchors) and self.anchors[at][0] - first < first - line:
            line, pos = self.anchors[at]  # closer from the next known line: walk back
            while line > first:
                pos = text.rfind("\n", 0, pos - 1) + 1
                line -= 1
        while line < first:
            pos = text.index("\n", pos) + 1
            line += 1
        out = []
        while line < stop:
            newline = text.find("\n", pos)
            end = len(text) if newline < 0 else newline
            piece = text[pos:end]
            out.append(piece[:-1] if piece.endswith("\r") else piece)
            pos, line = end + 1, line + 1
        return out


def _changes(a: Sequence[str], b: Sequence[str], i0: int = 0, j0: int = 0) -> list[_Change]:
    """What changed from ``a`` to ``b``, in line numbers offset by ``i0`` (old) and ``j0`` (new):
    the common head and tail are set aside first (cheap, and most edits change one place),
    then difflib compares what is left."""
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    if not a_mid and not b_mid:
        return []
    i0, j0 = i0 + head, j0 + head
    if not a_mid or not b_mid:
        return [_Change(i0, i0 + len(a_mid), j0, b_mid)]
    exact = len(a_mid) * len(b_mid) <= EXACT_CELLS
    matcher = difflib.SequenceMatcher(None, a_mid, b_mid, autojunk=not exact)
    return [
        _Change(i0 + i1, i0 + i2, j0 + j1, b_mid[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as ``diff -u`` writes it (difflib's ``_format_range_unified``)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _render(old: Sequence[str] | _Lines, changes: list[_Change], name: str, context: int) -> str:
    """The unified diff of ``changes`` to ``old`` (in order, not overlapping): changes less
    than ``2 * context`` lines apart share a hunk, as in difflib."""
    if not changes:
        return ""
    groups: list[list[_Change]] = []
    for change in changes:
        if groups and change.i1 - groups[-1][-1].i2 <= 2 * context:
            groups[-1].append(change)
        else:
            groups.append([change])
    label = name.lstrip("/")
    out = [f"--- a/{label}", f"+++ b/{label}"]
    for group in groups:
        first, last = group[0], group[-1]
        a1 = max(0, first.i1 - context)
        a2 = min(len(old), last.i2 + context)
        b1 = first.j1 - (first.i1 - a1)
        b2 = last.j1 + len(last.new) + (a2 - last.i2)
        out.append(f"@@ -{_range(a1, a2)} +{_range(b1, b2)} @@")
        at = a1
        for change in group:
            out += [f" {line}" for line in old[at : change.i1]]
            out += [f"-{line}" for line in old[change.i1 : change.i2]]
            out += [f"+{line}" for line in change.new]
            at = change.i2
        out += [f" {line}" for line in old[at:a2]]
    return "\n".join(out)


def unified_diff(old: str, new: str, name: str, context: int = 3) -> str:
    """A ``diff -u`` style diff of two whole texts with ``a/`` and ``b/`` paths; line endings
    are not shown. Empty when the lines are the same."""
    a, b = _lines(old), _lines(new)
    return _render(a, _changes(a, b), name, context)


def _line_end(text: str, pos: int) -> int:
    """Where the line holding the character before ``pos`` ends (after its ``\\n``)."""
    if pos > 0 and text[pos - 1] == "\n":
        return pos
    newline = text.find("\n", pos)
    return len(text) if newline < 0 else newline + 1


def edit_diff(
    old: str, spans: Sequence[tuple[int, int]], replacement: str, name: str, context: int = 3
) -> str:
    """The diff of replacing each ``old[start:end]`` of ``spans`` (in order, not overlapping,
    not empty) with ``replacement``, built from the replaced spans alone: each is widened to
    whole lines (spans that share a line, or that the replacement joins onto the next line,
    become one block), and only the blocks are compared. Same format as ``unified_diff``."""
    size = len(old)
    lines = _Lines(old)
    changes: list[_Change] = []
    counted, line_no, delta = 0, 0, 0
    k = 0
    while k < len(spans):
        start = old.rfind("\n", 0, spans[k][0]) + 1
        end = _line_end(old, spans[k][1])
        pieces, pos, k = [old[start : spans[k][0]], replacement], spans[k][1], k + 1
        while True:
            # The spans that begin on a line of the block join it.
            while k < len(spans) and spans[k][0] < end:
                pieces += [old[pos : spans[k][0]], replacement]
                pos, end = spans[k][1], max(end, _line_end(old, spans[k][1]))
                k += 1
            new_block = "".join([*pieces, old[pos:end]])
            if not new_block or new_block.endswith("\n") or end >= size:
                break
            end = _line_end(old, end + 1)  # the replacement runs on into the next line
        line_no += old.count("\n", counted, start)
        counted = start
        a, b = _lines(old[start:end]), _lines(new_block)
        changes += _changes(a, b, line_no, line_no + delta)
        delta += len(b) - len(a)
        lines.anchor(line_no, start)
        lines.anchor(line_no + len(a), end)
    return _render(lines, changes, name, context)
