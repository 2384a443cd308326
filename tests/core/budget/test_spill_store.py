"""Spill files: byte for byte, atomic, indexed; read_file pages them back exactly."""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.budget import SpillReader, SpillStore, count_lines
from agent_tui.core.budget.index import SpillIndex, SpillMeta, index_path
from agent_tui.core.text.utf8 import escape_bytes
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import read_file
from tests.core.budget.helpers import call_read, read_back

# Lines of every shape: empty, CR-only endings, tabs, astral and combining characters, long
# runs (cut and paged by char windows), no final newline.
_chars = st.characters(blacklist_categories=("Cs",))
_piece = st.one_of(
    st.text(_chars, max_size=12),
    st.sampled_from(["\r", "\r\n", "\t", "é", "😀", "e\u0301", "日本", "\x00", "\u2028"]),
    st.builds(lambda s, n: s * n, st.text(_chars, min_size=1, max_size=3), st.integers(5, 60)),
)
_line = st.lists(_piece, max_size=6).map("".join)
texts = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(_line, max_size=25),
    st.sampled_from(["", "\n", "\r\n"]),
)


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny row and window sizes, so short texts exercise cuts, pages and char windows."""
    monkeypatch.setattr(read_file, "MAX_LINE_CHARS", 7)
    monkeypatch.setattr(read_file, "SEGMENT_CHARS", 11)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=texts, limit=st.integers(1, 9), step=st.sampled_from([3, 8, 64]))
def test_any_text_is_spilled_byte_for_byte_and_read_back_exactly(
    small_windows: None, text: str, limit: int, step: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        store = SpillStore(Path(".agent-spill"), cwd, durable=False, step=step)
        record = store.write(text, "run_shell", "call_1")
        assert record.path.read_bytes() == text.encode("utf-8")
        assert (record.chars, record.lines) == (len(text), count_lines(text))
        assert record.shown.startswith(".agent-spill/")
        back = asyncio.run(read_back(ToolContext(cwd=cwd), record.shown, limit=limit))
        assert back == text


# Bytes of every shape: valid UTF-8 (multi-byte characters that chunks may cut), invalid
# sequences (a stray continuation byte, 0xff, a character cut short), CR, LF, NUL.
_byte_piece = st.one_of(
    st.binary(max_size=12),
    st.sampled_from(
        [b"\n", b"\r\n", b"\r", "é".encode(), "😀".encode(), b"\xff", b"\x80", b"\xe2\x82", b"\x00"]
    ),
    st.builds(lambda b, n: b * n, st.binary(min_size=1, max_size=3), st.integers(5, 60)),
)
_chunked = st.lists(st.lists(_byte_piece, max_size=8).map(b"".join), max_size=12)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(chunks=_chunked, limit=st.integers(1, 9), step=st.sampled_from([3, 8, 64]))
def test_any_bytes_are_spilled_exactly_and_read_back_as_they_decode(
    small_windows: None, chunks: list[bytes], limit: int, step: int
) -> None:
    """A command's raw output (``write_bytes``): the file is the bytes; the index counts the
    characters they decode to (a byte that is not UTF-8 is one, ``surrogateescape``), its
    checkpoints fall where that decoding restarts, and read_file pages and char windows give
    exactly that text (such a byte shown as ``\\xNN``)."""
    data = b"".join(chunks)
    text = data.decode("utf-8", "surrogateescape")
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        store = SpillStore(Path(".agent-spill"), cwd, durable=False, step=step)
        record = store.write_bytes(chunks, "run_shell", "call_1")
        assert record.path.read_bytes() == data
        assert (record.chars, record.lines, record.bytes) == (
            len(text),
            count_lines(text),
            len(data),
        )
        back = asyncio.run(read_back(ToolContext(cwd=cwd), record.shown, limit=limit))
        assert back == escape_bytes(text)[0]
        with SpillReader.open(record.path) as reader:
            for number, line in enumerate(text.split("\n")[: reader.lines], 1):
                [row] = reader.rows(number, 1, 5)
                assert (row.text, row.chars) == (line[:5], len(line))
                for start in range(0, len(line), 4):
                    assert reader.segment(number, start, 6).text == line[start : start + 6]


def test_raw_bytes_deep_inside_a_huge_line_are_reached_from_a_checkpoint(tmp_path: Path) -> None:
    data = b"".join(b"%08d\xff\xe2\x82\xac," % n for n in range(300_000))  # 4.2 MB, one line
    text = data.decode("utf-8", "surrogateescape")
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    chunks = [data[i : i + 100_003] for i in range(0, len(data), 100_003)]  # cut mid-character
    record = store.write_bytes(chunks, "t", "c")
    assert record.chars == len(text)
    with SpillReader.open(record.path) as reader:
        piece = reader.segment(1, len(text) - 100, 500)
        assert piece.text == text[-100:]
        assert piece.line_chars == len(text)
        assert reader.bytes_read < 600_000  # a checkpoint away, not the whole line


async def test_crlf_and_any_bytes_of_utf8_are_kept(tmp_path: Path) -> None:
    text = "a\r\nb\r\n\r\nc\rd\u2028e\x00\n"
    record = SpillStore(Path(".agent-spill"), tmp_path).write(text, "t", "c")
    assert record.path.read_bytes() == text.encode()
    out = await call_read(ToolContext(cwd=tmp_path), path=record.shown)
    assert out.content.split("\n")[:3] == ["     1\ta\r", "     2\tb\r", "     3\t\r"]
    assert out.data["spill"] is True


def test_write_is_atomic_and_names_are_readable(tmp_path: Path) -> None:
    store = SpillStore(Path(".agent-spill"), tmp_path)
    first = store.write("x" * 10, "mcp__srv__do thing", "toolu_01/..\\evil")
    second = store.write("y", "mcp__srv__do thing", "toolu_01/..\\evil")
    assert first.path != second.path
    assert first.path.parent == tmp_path / ".agent-spill"
    name = first.path.name
    assert name.endswith(".txt")
    assert "-mcp__srv__do_thing-toolu_01_evil-" in name
    assert name[:8].isdigit()
    assert name[8] == "T"
    assert name[15] == "Z"
    leftovers = [p for p in store.root.rglob("*") if p.name.startswith(".tmp-")]
    assert leftovers == []
    assert (store.root / ".gitignore").read_text().strip().endswith("*")
    assert store.files() == sorted([first.path, second.path])


def test_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    store = SpillStore(Path(".agent-spill"), tmp_path)

    class Boom(Exception):
        pass

    def write_then_fail() -> None:
        with store.open_writer("t", "c") as writer:
            writer.write("partial")
            raise Boom

    with pytest.raises(Boom):
        write_then_fail()
    assert store.files() == []
    left = [p.relative_to(store.root) for p in store.root.rglob("*") if p.is_file()]
    # the reference record (it named the spill from its reservation on) stays: it names no file
    assert [p for p in left if p.name != ".gitignore" and p.parts[0] != ".refs"] == []


def test_a_stale_index_is_ignored(tmp_path: Path) -> None:
    record = SpillStore(Path(".agent-spill"), tmp_path).write("one\ntwo\n", "t", "c")
    assert SpillIndex.open_for(record.path) is not None
    record.path.write_text("one\ntwo\nthree\n")  # edited by someone: the index no longer fits
    assert SpillIndex.open_for(record.path) is None
    assert SpillReader.open(record.path) is None


async def test_an_edited_spill_is_read_as_a_plain_file(tmp_path: Path) -> None:
    record = SpillStore(Path(".agent-spill"), tmp_path).write("one\r\ntwo\n", "t", "c")
    record.path.write_text("one\r\ntwo\nthree\n")
    out = await call_read(ToolContext(cwd=tmp_path), path=record.shown)
    assert out.content.split("\n")[:3] == ["     1\tone", "     2\ttwo", "     3\tthree"]
    assert "spill" not in out.data


def _big_spill(tmp_path: Path, lines: int) -> Path:
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    with store.open_writer("run_shell", "big") as writer:
        for start in range(0, lines, 10_000):
            writer.write(
                "".join(f"line {n} {'x' * (n % 50)}\n" for n in range(start + 1, start + 10_001))
            )
        return writer.commit().path


def test_the_last_window_costs_what_the_first_does(tmp_path: Path) -> None:
    path = _big_spill(tmp_path, 400_000)  # ~15 MB
    costs = {}
    for offset in (1, 200_000, 398_001):
        with SpillReader.open(path) as reader:
            rows = list(reader.rows(offset, 2000, 2000))
            assert rows[0].text.startswith(f"line {offset} ")
            costs[offset] = reader.bytes_read
    assert max(costs.values()) < 3 * min(costs.values()) + 16_384
    assert max(costs.values()) < 200_000
    assert os.path.getsize(index_path(path)) < os.path.getsize(path) // 1000  # a mark a 1,024 lines


def test_a_position_deep_inside_a_huge_line_is_reached_from_a_checkpoint(tmp_path: Path) -> None:
    text = "".join(f"{n:08d}," for n in range(400_000))  # one 3.6 MB line
    record = SpillStore(Path(".agent-spill"), tmp_path, durable=False).write(text, "t", "c")
    with SpillReader.open(record.path) as reader:
        piece = reader.segment(1, len(text) - 100, 500)
        assert piece.text == text[-100:]
        assert piece.line_chars == len(text)
        assert reader.bytes_read < 600_000  # a checkpoint away, not the whole line


def test_the_index_keeps_the_calls_input_in_one_clean_line(tmp_path: Path) -> None:
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    record = store.write("out\n", "run_shell", "c1", summary="pytest -x\n  tests/ui")
    assert record.summary == "pytest -x tests/ui"
    with SpillReader.open(record.path) as reader:
        assert reader.index.meta() == SpillMeta(summary="pytest -x tests/ui")
        assert [row.text for row in reader.rows(1, 5, 100)] == ["out"]
    hostile = store.write("x", "run_shell", "c2", summary="echo \x1b[2J" + "y" * 200)
    assert "\x1b" not in hostile.summary
    assert len(hostile.summary) == 80
    assert hostile.summary.endswith("…")
    with SpillReader.open(hostile.path) as reader:
        assert reader.index.meta().summary == hostile.summary
