"""Log compression: fold build/test output by importance before the budget sees it.

Lines are of three kinds (seed s04):

- *anchors*: errors, failures, warnings, test summaries and our own failure stamps
  (``[exit code 1]``); always kept, with ``context`` lines either side;
- *trace*: stack frames; a block of them is kept whole when it touches a kept line;
- *noise*: the rest; a run of three or more is folded into ``… [N lines omitted: a-b]``.

An assertion diff (jest / vitest: ``- Expected`` / ``+ Received``, then the diff up to a blank
line) is kept whole and as it is: its ``-``/``+`` lines differ only by numbers, and those
numbers are the point. The last ``tail_lines`` lines (run_shell's footer: its exit code, a
sandbox refusal) are always kept as they are.

Terminal escape sequences (colours, cursor moves: ``core.text.ansi``) are stripped first, so a
coloured log is folded as its plain text is, and the compressed text is plain.

Kept lines that differ only by numbers, hex or durations are folded into the first of them
plus ``[×N, lines a-b]`` (error lines only when identical, so no error is lost). The output is
left untouched when it is short, has no anchor at all (nothing to keep: a plain excerpt says
more), or when folding saves too little. Line numbers in markers are lines of the full output,
which is spilled whenever anything is folded.

The scan runs a few regexes over the whole text (not line by line), so a quiet log costs
little; only kept lines are looked at one by one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from agent_tui.core.text.ansi import strip_escapes

# The scan works on the UTF-8 bytes with a "\n" put in front, so every line starts after a
# "\n" and line-start patterns are searched from that literal (fast) instead of with ^.
# Keywords are searched in an ASCII-lowered copy (same length, so the same offsets).
_KEYWORDS = (
    b"error", b"exception", b"failed", b"failure", b"fatal", b"panic", b"timeout",
    b"timed out", b"warn", b"deprecat", b"traceback",
)  # fmt: skip
_LINE_START = re.compile(
    rb"\n[ \t]*(?:FAIL|PASS|FAILED|ERROR)\b"  # jest/vitest verdicts, pytest summary lines
    rb"|\n[ \t]*(?:Tests?:?|Test Files)[ \t]"  # jest "Tests: 1 failed", vitest "Test Files"
    rb"|\n[ \t]*(?:\xc3\x97|\xe2\x9c\x97|\xe2\x9c\x95|\xe2\x9c\x98)[ \t]"  # × ✗ ✕ ✘: a failed test
    # jest / vitest assertion diffs ("- Expected" / "+ Received"), jest's "Expected: 4"
    rb"|\n[ \t]*(?:[-+] (?:Expected|Received)\b|(?:Expected|Received):)"
    rb"|\nE {2,}\S"  # pytest's explanation lines
    rb"|\n\[(?:exit code -?[1-9]|killed by signal)"  # run_shell's failure stamp
)
_BANNER = re.compile(rb"===[^\n]*passed")  # pytest / vitest banners ("=== 3 passed ===")
_NPM = re.compile(rb"npm ERR!")
_TRACE = re.compile(
    rb"\n[ \t]+at[ \t]"  # JavaScript, Java
    rb'|\n[ \t]*File "[^"\n]*", line \d+'  # Python
    rb"|\n[ \t]*-->[ \t]"  # Rust
    rb"|\n[ \t]*\^+[ \t]*(?=\n|$)"  # a caret under the failing expression
)
_DIFF_HEAD = re.compile(r"[ \t]*[-+] (?:Expected|Received)\b")
"""An assertion diff's header line (one of the ``_LINE_START`` anchors)."""
_DIFF_LINES = 100
"""The most lines of one assertion diff kept whole (the rest folds like noise)."""
_SHORT_GAP = 2
"""Unkept runs this short are shown as they are (a fold marker would not be shorter)."""
_PY_FRAME = re.compile(r'^\s*File ".*", line \d+')
_ERROR = re.compile(r"(?i:error|exception|fail|fatal|panic|traceback)|^E {2,}\S")
_VARIABLE = re.compile(
    r"0x[0-9a-fA-F]+|\b[0-9a-f]{7,64}\b"
    r"|\d+(?:[.,:]\d+)*(?:\s?(?:ms|µs|us|ns|s|sec|secs|m|min|h)\b)?"
)


@dataclass(frozen=True)
class Compressed:
    text: str
    compressed: bool
    input_lines: int
    output_lines: int
    savings: float


def _positions(where: bytes, what: re.Pattern[bytes] | bytes) -> Iterator[int]:
    """Where ``what`` (a pattern or a literal) starts in ``where``; a match of a pattern that
    begins with ``\n`` is reported at the line after it."""
    if isinstance(what, bytes):  # bytes.find beats a regex alternation by far
        pos = where.find(what)
        while pos != -1:
            yield pos
            pos = where.find(what, pos + 1)
        return
    for match in what.finditer(where):
        start = match.start()
        yield start + 1 if where[start] == 10 else start  # 10 == ord("\n")


def _lines_matching(
    data: bytes, searches: list[tuple[re.Pattern[bytes] | bytes, bytes]]
) -> list[int]:
    """0-based indexes of the lines where any search hits (``data`` has the leading ``\n``)."""
    positions: set[int] = set()
    for what, where in searches:
        positions.update(_positions(where, what))
    lines: list[int] = []
    last_pos, count = 0, -1  # the leading "\n" is not a line break
    for pos in sorted(positions):
        count += data.count(b"\n", last_pos, pos)
        last_pos = pos
        if not lines or lines[-1] != count:
            lines.append(count)
    return lines


def _fold_similar(lines: list[str], first: int, out: list[str]) -> None:
    """Append ``lines`` (numbered from ``first``), folding runs of near-duplicates."""
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        exact = _ERROR.search(line) is not None
        key = line if exact else _VARIABLE.sub("#", line)
        j = i + 1
        while j < n and (lines[j] if exact else _VARIABLE.sub("#", lines[j])) == key:
            j += 1
        if j - i >= 3:
            out.append(f"{line} [×{j - i}, lines {first + i + 1}-{first + j}]")
        else:
            out.extend(lines[i:j])
        i = j


def compress_log(
    text: str,
    *,
    min_lines: int = 40,
    context: int = 2,
    min_savings: float = 0.15,
    tail_lines: int = 1,
) -> Compressed:
    """Fold ``text`` by importance; ``compressed`` is False when it is returned unchanged.

    The last ``tail_lines`` lines (at least one) are kept as they are, never folded."""
    original = text
    text = strip_escapes(text)
    total = text.count("\n") + 1
    unchanged = Compressed(original, False, total, total, 0.0)
    if total < min_lines:
        return unchanged
    data = b"\n" + text.encode("utf-8", "replace")
    lowered = data.lower()
    searches: list[tuple[re.Pattern[bytes] | bytes, bytes]] = [
        (keyword, lowered) for keyword in _KEYWORDS
    ]
    searches += [(_LINE_START, data), (_BANNER, data), (_NPM, data)]
    anchors = _lines_matching(data, searches)
    if not anchors:
        return unchanged
    lines = text.split("\n")  # only now: a quiet output of 30 M lines is never split
    keep = bytearray(total)
    for i in anchors:
        lo, hi = max(0, i - context), min(total, i + context + 1)
        keep[lo:hi] = b"\x01" * (hi - lo)
    body = total - min(max(tail_lines, 1), total)
    keep[body:] = b"\x01" * (total - body)  # the footer, or the final summary
    _keep_traces(lines, _lines_matching(data, [(_TRACE, data)]), keep)
    verbatim = bytearray(total)
    heads = [i for i in anchors if _DIFF_HEAD.match(lines[i])]  # no scan of its own
    _keep_diffs(lines, heads, keep, verbatim)

    out: list[str] = []
    pos = 0
    while pos < body:
        end = keep.find(0, pos, body)
        end = body if end == -1 else end
        if end > pos:
            _add_kept(lines, pos, end, verbatim, out)
        if end >= body:
            break
        nxt = keep.find(1, end, body)
        nxt = body if nxt == -1 else nxt
        if nxt - end > _SHORT_GAP:
            out.append(f"… [{nxt - end:,} lines omitted: {end + 1}-{nxt}]")
        else:
            out.extend(lines[end:nxt])
        pos = nxt
    out.extend(lines[body:])
    result = "\n".join(out)
    savings = 1 - len(result) / len(original) if original else 0.0
    if savings < min_savings:
        return unchanged
    return Compressed(result, True, total, len(out), savings)


def _keep_traces(lines: list[str], frames: list[int], keep: bytearray) -> None:
    """Keep each block of stack frames whole when it touches a kept line (or is separated
    from one only by a gap too short to fold, which is shown anyway)."""
    if not frames:
        return
    trace = set(frames)
    for i in frames:  # a Python frame's source line belongs to the frame
        nxt = i + 1
        if nxt < len(lines) and _PY_FRAME.match(lines[i]) and lines[nxt][:1].isspace():
            trace.add(nxt)
    ordered = sorted(trace)
    total = len(lines)
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        first, last = ordered[start], ordered[end]
        before = keep[max(0, first - _SHORT_GAP - 1) : first]
        after = keep[last + 1 : min(total, last + _SHORT_GAP + 2)]
        if 1 in before or 1 in after:
            keep[first : last + 1] = b"\x01" * (last - first + 1)
        start = end + 1


def _add_kept(lines: list[str], start: int, end: int, verbatim: bytearray, out: list[str]) -> None:
    """Append kept lines ``start..end-1``: near-duplicates folded, but not ``verbatim`` ones."""
    pos = start
    while pos < end:
        as_is = verbatim[pos]
        nxt = verbatim.find(0 if as_is else 1, pos, end)
        nxt = end if nxt == -1 else nxt
        if as_is:
            out.extend(lines[pos:nxt])
        else:
            _fold_similar(lines[pos:nxt], pos, out)
        pos = nxt


def _keep_diffs(lines: list[str], heads: list[int], keep: bytearray, verbatim: bytearray) -> None:
    """Keep each assertion diff whole: its header lines (``- Expected`` / ``+ Received``),
    the blank line after them, and the diff up to the next blank line (at most
    ``_DIFF_LINES`` lines)."""
    total = len(lines)
    for head in heads:
        i = head + 1
        while i < total and i <= head + 3 and (not lines[i].strip() or _DIFF_HEAD.match(lines[i])):
            i += 1
        end = i
        while end < total and end - head < _DIFF_LINES and lines[end].strip():
            end += 1
        keep[head:end] = verbatim[head:end] = b"\x01" * (end - head)
