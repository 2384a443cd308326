"""What the model reads instead of a spilled output: an excerpt and a pointer.

The excerpt is head-heavy for a success (the start says what the output is) and tail-heavy
for a failure (the exit code and the failure summary are at the end); cuts snap to line
boundaries when one is near, and the omission marker says how much was left out and which
lines. The pointer has the seed's three elements: where the full text is, how big it is
(characters and lines), and how to read it (read_file with offset/limit; do not re-run).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from agent_tui.core.events import SpillPointer, SpillReason
from agent_tui.core.text.summary import plural

Mode = Literal["head", "tail"]
SNAP = 0.25
"""A cut moves to a line boundary when one is within this share of the kept part."""


@dataclass(frozen=True)
class Excerpt:
    text: str
    omitted_chars: int
    first_omitted_line: int
    last_omitted_line: int


def count_lines(text: str) -> int:
    """Lines as read_file counts them: a final line without ``\\n`` counts, ``""`` has none."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def excerpt(text: str, size: int, mode: Mode = "head", *, line_numbers: bool = True) -> Excerpt:
    """About ``size`` characters of ``text``: mostly its head (``head``) or tail (``tail``)."""
    if len(text) <= size:
        return Excerpt(text, 0, 0, 0)
    small = min(200, size // 4)
    head_len = size - small if mode == "head" else small
    tail_len = size - head_len
    head_end = head_len
    newline = text.rfind("\n", head_len - int(head_len * SNAP), head_len)
    if newline != -1:
        head_end = newline + 1
    tail_start = len(text) - tail_len
    newline = text.find("\n", tail_start, tail_start + int(tail_len * SNAP))
    if newline != -1:
        tail_start = newline + 1
    omitted = tail_start - head_end
    first = text.count("\n", 0, head_end) + 1
    last = first + text.count("\n", head_end, tail_start - 1)
    where = f": lines {first:,}-{last:,}" if line_numbers else ""
    marker = f"… [{omitted:,} chars omitted{where}] …"
    head = text[:head_end]
    joined = f"{head}{'' if head.endswith(chr(10)) else chr(10)}{marker}\n{text[tail_start:]}"
    return Excerpt(joined, omitted, first, last)


def _do_not_rerun(tool: str) -> str:
    if tool == "run_shell":
        return "Do not re-run the command to see it."
    return f"Do not call {tool} again to see it."


def spill_pointer(
    path: str, chars: int, lines: int, tool: str, *, first_omitted: int | None = None
) -> str:
    """The pointer appended to an excerpt: where, how big, how to read."""
    start = first_omitted or 1
    return (
        f"[Output too large for the context: only the excerpt above is shown. The full output "
        f"({plural(chars, 'char')}, {plural(lines, 'line')}) is saved byte for byte in {path}. "
        f"Read the omitted "
        f"part with read_file(path={json.dumps(path)}, offset={start}, limit=200) and page on "
        f"with the offsets its footer gives. {_do_not_rerun(tool)}]"
    )


def compression_note(
    path: str, chars: int, lines: int, tool: str, *, input_lines: int, output_lines: int,
    savings: float,
) -> str:  # fmt: skip
    """The pointer appended to a compressed log."""
    return (
        f"[Log compressed from {input_lines:,} to {output_lines:,} lines ({savings:.0%} "
        f"smaller): errors, warnings and summaries are kept with context, stack traces whole; "
        f"folded and omitted lines show their line numbers. The full output "
        f"({plural(chars, 'char')}, {plural(lines, 'line')}) is saved byte for byte in {path}: "
        f"read any part with "
        f"read_file(path={json.dumps(path)}, offset=<line>, limit=200). {_do_not_rerun(tool)}]"
    )


_POINTER = re.compile(
    r"The full output \((?P<chars>[\d,]+) chars?, (?P<lines>[\d,]+) lines?\) is saved byte for "
    r"byte in (?P<path>.+?\.txt)[.:] "
)


def pointer_in(text: str) -> SpillPointer | None:
    """The spill pointer that ``spill_pointer`` or ``compression_note`` wrote into ``text``
    (a result read back from a saved session), or None."""
    matches = list(_POINTER.finditer(text))
    if not matches:
        return None
    found = matches[-1]  # the pointer is appended: the last one is the result's own
    opening = text.rfind("[", 0, found.start())
    compressed = text.startswith("[Log compressed", opening) if opening >= 0 else False
    reason: SpillReason = "log_compression" if compressed else "budget"
    return SpillPointer(
        path=found["path"],
        chars=int(found["chars"].replace(",", "")),
        lines=int(found["lines"].replace(",", "")),
        reason=reason,
    )
