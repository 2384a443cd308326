"""grep against hostile patterns: the event loop keeps running, the call ends, nothing crashes.

With ``re``, each of these patterns freezes the whole event loop (``re`` holds the GIL while it
backtracks, though grep matches in a worker thread); the tests watch a ticker task on the loop.
``regex``'s repeat guards defuse the textbook ``(a+)+$`` on short lines, so the short-line
cases use ``(a|a)+$``, which backtracks 2**n ways on ``a * n + "!"`` in both engines.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.tools.base import ToolOutput
from agent_tui.core.tools.builtin import grep_tool
from agent_tui.core.tools.builtin.grep_tool import TOOL
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.withheld import Withheld
from agent_tui.core.tools.reads import NO_GUARD

Grep = Callable[..., Coroutine[Any, Any, ToolOutput]]


@pytest.fixture
def grep(call):  # type: ignore[no-untyped-def]
    return call(TOOL)


@pytest.fixture
def short_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep_tool, "MATCH_SECONDS", 1.0)


@contextmanager
def ticking() -> Iterator[list[int]]:
    """A task on the event loop counting 10 ms ticks: frozen loop, no ticks."""
    ticks = [0]

    async def tick() -> None:
        while True:
            await asyncio.sleep(0.01)
            ticks[0] += 1

    task = asyncio.get_running_loop().create_task(tick())
    try:
        yield ticks
    finally:
        task.cancel()


async def timed_out(grep: Grep, **arguments: Any) -> tuple[str, str, int]:
    """Run grep expecting ``regex_timeout``: its message, next_step and the ticks meanwhile."""
    with ticking() as ticks, pytest.raises(ToolFailure) as failure:
        await grep(**arguments)
    info = failure.value.info
    assert info.code == "regex_timeout", info
    return info.message, info.next_step, ticks[0]


@pytest.mark.usefixtures("short_budget")
@pytest.mark.parametrize(
    ("pattern", "line"),
    [("(a|a)+$", "a" * 29 + "!"), ("(a+)+$", "a" * 1000 + "!")],
    ids=["30-byte line", "1001-byte line"],
)
async def test_a_catastrophic_pattern_times_out_and_the_loop_keeps_ticking(
    grep: Grep, tmp_path: Path, pattern: str, line: str
) -> None:
    (tmp_path / "a.txt").write_text("nothing here\n" + line + "\n")
    message, next_step, ticks = await timed_out(grep, pattern=pattern)
    assert ticks >= 5
    assert repr(pattern) in message
    assert "took more than 1 s in all" in message
    assert "searched 1 file(s) and was at line 2 of a.txt" in message
    assert "catastrophically" in next_step
    assert "(a+)+" in next_step
    assert "(.*)*" in next_step
    assert "narrower path" in next_step


@pytest.mark.usefixtures("short_budget")
async def test_the_budget_is_one_for_the_whole_call(grep: Grep, tmp_path: Path) -> None:
    # Each line alone is matched well within the budget (2**16 ways, some 30 ms); together
    # they exceed it, in one file and across files.
    line = "a" * 16 + "!\n"
    (tmp_path / "many.txt").write_text(line * 400)
    message, _, ticks = await timed_out(grep, pattern="(a|a)+$", path="many.txt")
    assert ticks >= 5
    assert "searched 1 file(s)" in message
    assert "at line 1 of" not in message
    for i in range(100):
        (tmp_path / "tree" / f"{i:03}").mkdir(parents=True)
        (tmp_path / "tree" / f"{i:03}" / "f.txt").write_text(line * 3)
    message, _, _ = await timed_out(grep, pattern="(a|a)+$", path="tree")
    assert "searched 1 file(s)" not in message


async def test_cancelling_the_call_ends_the_scan_between_two_searches(
    grep: Grep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wait: Any
) -> None:
    monkeypatch.setattr(grep_tool, "MATCH_SECONDS", 3600.0)
    (tmp_path / "slow.txt").write_text(("a" * 18 + "!\n") * 2000)  # minutes of matching
    started, ended = threading.Event(), threading.Event()
    scan = grep_tool._scan

    def watched(*args: Any) -> Any:
        started.set()
        try:
            return scan(*args)
        finally:
            ended.set()

    monkeypatch.setattr(grep_tool, "_scan", watched)
    task = asyncio.create_task(grep(pattern="(a|a)+$"))
    await wait(started.is_set, what="the scan to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait(ended.is_set, timeout=60.0, what="the scan to notice the cancellation")


def test_the_stop_flag_is_checked_before_every_search(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("x\n" * 100)
    stop = threading.Event()
    searched: list[str] = []

    class Searcher:
        def search(self, string: str, *, concurrent: bool, timeout: float) -> object:
            assert concurrent
            assert timeout > 0
            searched.append(string)
            if len(searched) == 3:
                stop.set()  # what in_thread does when the awaiting task is cancelled
            return None

    pattern = grep_tool.Pattern(Searcher())
    grep_tool._scan(tmp_path / "long.txt", pattern, None, Withheld(NO_GUARD), stop)
    assert len(searched) == 3


async def test_compile_bombs_are_refused_before_compiling(grep: Grep, tmp_path: Path) -> None:
    # Unguarded, regex unrolls these in C with the GIL held: (?:a{1000}){300} builds 300,000
    # elements (90 MB), 17 nested + twice as many per level (100 MB); a few more levels or
    # (?:(?:ab|cd){1000}){1000} take gigabytes or crash the process.
    (tmp_path / "a.txt").write_text("a\n")
    for pattern in ("(?:a{1000}){300}", "(?:" * 17 + "ab" + ")+" * 17, "a{60000}"):
        with pytest.raises(ToolFailure) as failure:
            await grep(pattern=pattern)
        info = failure.value.info
        assert info.code == "pattern_too_large", (pattern, info)
        assert repr(pattern) in info.message
        assert "nested repeats multiply" in info.next_step


@pytest.mark.parametrize(
    "pattern",
    [
        "(?:(?:ab|cd){1000}){1000}",
        "(?:" * 30 + "ab" + ")+" * 30,
        "((((((a{10}){10}){10}){10}){10}){10})",
    ],
)
def test_the_unrolled_size_of_bombs_is_counted_without_compiling(pattern: str) -> None:
    assert grep_tool._size(grep_tool._parse(pattern, 0), grep_tool.MAX_UNROLLED) > (
        grep_tool.MAX_UNROLLED
    )


async def test_ordinary_counted_repeats_still_compile(grep: Grep, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("id 0123456789abcdef0123456789abcdef01234567\nip 10.0.0.1\n")
    out = await grep(pattern=r"[0-9a-f]{40}|\d{1,3}(?:\.\d{1,3}){3}")
    assert out.content.startswith("a.txt:1:id 0123")
    assert "a.txt:2:ip 10.0.0.1" in out.content


async def test_deep_nesting_is_an_invalid_pattern_not_a_crash(grep: Grep) -> None:
    with pytest.raises(ToolFailure) as failure:
        await grep(pattern="(" * 5000 + "a" + ")" * 5000)
    assert failure.value.info.code == "invalid_pattern"
    assert "nests groups too deeply" in failure.value.info.message
