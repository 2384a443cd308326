"""Searching a spill in chunks: forward, backward, wrapping, smart case, matches across chunk
boundaries, cancellation and progress, lines and columns through the index."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.browse import SpillRefused
from agent_tui.core.browse.search import (
    Hit,
    Matcher,
    SearchCancelled,
    is_case_sensitive,
    search_spill,
)
from agent_tui.core.budget.store import SpillRecord, SpillStore

WHEN = datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC)


def spill(cwd: Path, text: str, step: int = 32_768) -> SpillRecord:
    store = SpillStore(Path(".agent-spill"), cwd, durable=False, step=step)
    return store.write(text, "run_shell", "c", WHEN)


def where(text: str, byte: int) -> tuple[int, int]:
    """(line, column) of a byte offset, counted the slow way."""
    data = text.encode()
    start = data.rfind(b"\n", 0, byte) + 1
    return data.count(b"\n", 0, byte) + 1, len(data[start:byte].decode())


def expected_starts(text: str, query: str) -> list[int]:
    """Byte offsets of every (overlapping) match, by a plain scan of the decoded text."""
    flags = 0 if is_case_sensitive(query) else re.IGNORECASE
    pattern = re.compile(f"(?=({re.escape(query)}))", flags)
    return [len(text[: m.start()].encode()) for m in pattern.finditer(text)]


def test_smart_case() -> None:
    assert not is_case_sensitive("error: file")
    assert is_case_sensitive("Error")
    assert is_case_sensitive("ÉTÉ")
    assert not Matcher("été").case_sensitive


def test_forward_backward_and_wrapping(tmp_path: Path) -> None:
    text = "alpha\nneedle one\nbeta\ngamma needle two\ndelta\n"
    record = spill(tmp_path, text)
    first = text.encode().index(b"needle")
    second = text.encode().index(b"needle", first + 1)
    hit = search_spill(record.path, "needle", 0)
    assert hit == Hit(first, 6, 2, 0, 6, wrapped=False)
    hit = search_spill(record.path, "needle", first + 1)
    assert hit is not None
    assert (hit.line, hit.column, hit.wrapped) == (4, 6, False)
    hit = search_spill(record.path, "needle", second + 1)  # past the last: back to the top
    assert hit is not None
    assert (hit.byte, hit.wrapped) == (first, True)
    hit = search_spill(record.path, "needle", second, backward=True)
    assert hit is not None
    assert (hit.byte, hit.wrapped) == (first, False)
    hit = search_spill(record.path, "needle", first, backward=True)  # before the first: bottom
    assert hit is not None
    assert (hit.byte, hit.wrapped) == (second, True)
    assert search_spill(record.path, "needle", second + 1, wrap=False) is None
    assert search_spill(record.path, "absent", 0) is None


def test_case_is_ignored_unless_the_query_has_capitals(tmp_path: Path) -> None:
    text = "Zürich\nzürich\nZÜRICH\nSTRASSE straße\n"
    record = spill(tmp_path, text)
    lines = []
    start = 0
    while (hit := search_spill(record.path, "zürich", start, wrap=False)) is not None:
        lines.append(hit.line)
        start = hit.byte + 1
    assert lines == [1, 2, 3]
    hit = search_spill(record.path, "ZÜRICH", 0)
    assert hit is not None
    assert hit.line == 3
    hit = search_spill(record.path, "rich", 0)
    assert hit is not None
    assert (hit.line, hit.column, hit.length) == (1, 2, 4)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(st.sampled_from("abAB é\nÉ😀"), max_size=120),
    query=st.text(st.sampled_from("abAé😀 É"), min_size=1, max_size=4),
    chunk=st.integers(1, 9),
    data=st.data(),
)
def test_any_search_finds_what_a_plain_scan_finds(
    tmp_path_factory: pytest.TempPathFactory, text: str, query: str, chunk: int, data: st.DataObject
) -> None:
    """Tiny chunks: every match crosses chunk boundaries somewhere."""
    record = spill(tmp_path_factory.mktemp("s"), text, step=5)
    size = len(text.encode())
    start = data.draw(st.integers(0, size))
    starts = expected_starts(text, query)
    after = [s for s in starts if s >= start]
    before = [s for s in starts if s < start]
    hit = search_spill(record.path, query, start, chunk_bytes=chunk)
    want = after[0] if after else (starts[0] if starts else None)
    assert (hit.byte if hit else None) == want
    if hit is not None:
        assert hit.wrapped == (not after)
        assert (hit.line, hit.column) == where(text, hit.byte)
        assert hit.length == len(query)
    back = search_spill(record.path, query, start, backward=True, chunk_bytes=chunk)
    want = before[-1] if before else (starts[-1] if starts else None)
    assert (back.byte if back else None) == want


def test_a_match_deep_inside_a_huge_line_has_its_column(tmp_path: Path) -> None:
    text = "head\n" + "é" * 200_000 + "NEEDLE" + "x" * 10 + "\ntail\n"
    record = spill(tmp_path, text, step=1000)
    hit = search_spill(record.path, "NEEDLE", 0, chunk_bytes=4096)
    assert hit is not None
    assert (hit.line, hit.column, hit.length) == (2, 200_000, 6)


def test_progress_reaches_the_whole_file_and_cancel_stops(tmp_path: Path) -> None:
    text = "row\n" * 10_000
    record = spill(tmp_path, text)
    seen: list[tuple[int, int]] = []
    assert (
        search_spill(record.path, "zzz", 100, chunk_bytes=4096, progress=lambda *p: seen.append(p))
        is None
    )
    size = len(text)
    assert seen[-1] == (size, size)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert len(seen) >= size // 4096
    cancel = threading.Event()

    def stop_soon(done: int, total: int) -> None:
        if done > 8000:
            cancel.set()

    with pytest.raises(SearchCancelled):
        search_spill(record.path, "zzz", 0, chunk_bytes=4096, cancel=cancel, progress=stop_soon)


def test_searching_a_vanished_spill_is_refused(tmp_path: Path) -> None:
    record = spill(tmp_path, "x\n")
    record.path.unlink()
    with pytest.raises(SpillRefused):
        search_spill(record.path, "x", 0)
    with pytest.raises(ValueError, match="empty"):
        Matcher("")
