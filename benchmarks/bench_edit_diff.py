"""edit_file's diff: built from the replaced spans, against difflib on the whole file (before).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_edit_diff.py

For each case it times the diff alone — the whole-file difflib diff edit_file made before
(``before``, the old code, kept here for comparison) and the span diff it makes now — and the
real tool (read_file then edit_file through their async entry points, on a file in a temporary
directory, the atomic write and its fsync included), median of 7 runs, and prints the size of
each diff in lines.
"""

from __future__ import annotations

import asyncio
import difflib
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import edit_file, read_file
from agent_tui.core.tools.files.diff import edit_diff

RUNS = 7


def before(old: str, new: str, name: str, context: int = 3) -> str:
    """The diff edit_file returned before: difflib over every line of both texts."""
    lines = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
        n=context,
        lineterm="",
    )
    return "\n".join(lines)


def median_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def cases() -> list[tuple[str, str, str, str, bool]]:
    """(what, file text, old_string, new_string, replace_all)."""
    same = "same line\n" * 25_000 + "the one\n" + "same line\n" * 25_000
    spaced = "".join("x = 1\n" if n % 10_000 == 5_000 else "same line\n" for n in range(50_000))
    code = "".join(
        f"def function_{n}(value):\n    return value * {n}\n\n" for n in range(700)
    ).replace("return value * 350\n", "return value * 350  # the one\n")
    return [
        ("one change, 50,001 identical lines", same, "the one\n", "the other\n", False),
        ("replace_all, 5 spans in 50,000 lines", spaced, "x = 1", "x = 2", True),
        ("one change, 2,100-line Python file", code, "  # the one", "  # changed", False),
    ]


async def tool_ms(root: Path, text: str, old: str, new: str, replace_all: bool) -> float:
    path = root / "f.txt"
    ctx = ToolContext(cwd=root)
    times = []
    for _ in range(RUNS):
        path.write_text(text)
        await read_file.TOOL.call(read_file.ReadFileInput(path="f.txt"), ctx)
        inp = edit_file.EditFileInput(
            path="f.txt", old_string=old, new_string=new, replace_all=replace_all
        )
        started = time.perf_counter()
        await edit_file.TOOL.call(inp, ctx)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for what, text, old, new, replace_all in cases():
            spans = [(m.start(), m.end()) for m in re.finditer(re.escape(old), text)]
            if not replace_all:
                spans = spans[:1]
            changed = text.replace(old, new) if replace_all else text.replace(old, new, 1)
            old_diff = before(text, changed, "f.txt")
            new_diff = edit_diff(text, spans, new, "f.txt")
            rows.append(
                (
                    what,
                    median_ms(lambda t=text, c=changed: before(t, c, "f.txt")),
                    len(old_diff.splitlines()),
                    median_ms(lambda t=text, s=spans, n=new: edit_diff(t, s, n, "f.txt")),
                    len(new_diff.splitlines()),
                    asyncio.run(tool_ms(Path(tmp), text, old, new, replace_all)),
                )
            )
    print(f"| {'case':38} | before: diff | lines | now: diff | lines | edit_file now |")
    print(f"|{'-' * 40}|-------------:|------:|----------:|------:|--------------:|")
    for what, old_ms, old_lines, new_ms, new_lines, tool in rows:
        print(
            f"| {what:38} | {old_ms:9.1f} ms | {old_lines:5,} | {new_ms:6.2f} ms "
            f"| {new_lines:5,} | {tool:10.1f} ms |"
        )


if __name__ == "__main__":
    main()
