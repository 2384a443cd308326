"""The spill index is small (sparse line marks), pages as fast, and a spill shows undecodable
bytes exactly as any file does (issue 38: item 9, and the 16 MB index of a 14.9 MB spill)."""

from __future__ import annotations

import asyncio
import os
import struct
import tempfile
from array import array
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.browse import column_of_byte, line_of_byte, line_start, window_of
from agent_tui.core.budget import SpillReader, SpillStore
from agent_tui.core.budget import index as index_module
from agent_tui.core.budget.index import SpillIndex, SpillMeta, index_path
from agent_tui.core.tools.base import ToolContext
from tests.core.budget.helpers import call_read

SMALL_MARKS = [(1, 1), (2, 5), (3, 16), (4, 64)]
"""Marks every few lines or bytes: short texts exercise the scans between marks."""


def seq_output(count: int) -> bytes:
    """What ``seq COUNT`` writes."""
    return "".join(f"{n}\n" for n in range(1, count + 1)).encode()


def test_the_index_of_two_million_short_lines_is_a_fraction_of_the_spill(
    tmp_path: Path,
) -> None:
    """``seq 2000000`` is 14.9 MB: its index was 16 MB (8 bytes a line); now it is a few KB,
    and the last window still costs what the first does."""
    data = seq_output(2_000_000)
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    chunks = [data[i : i + 1_000_003] for i in range(0, len(data), 1_000_003)]
    record = store.write_bytes(chunks, "run_shell", "c1")
    assert record.bytes == len(data) == 14_888_896
    assert os.path.getsize(index_path(record.path)) < len(data) // 100  # under 1%
    costs = {}
    for offset in (1, 1_000_001, 1_998_001):
        with SpillReader.open(record.path) as reader:
            rows = list(reader.rows(offset, 2000, 2000))
            assert [row.text for row in rows[:2]] == [str(offset), str(offset + 1)]
            assert len(rows) == 2000
            costs[offset] = reader.bytes_read
    assert max(costs.values()) < 100_000  # a window (~16 KB) and a scan from its mark
    with SpillReader.open(record.path) as reader:
        for byte in (0, 5, 1_000_000, 7_777_777, len(data) - 1):
            assert reader.line_at(byte) == data.count(b"\n", 0, byte) + 1
            assert reader.bytes_read < 80_000 * 6
        assert reader.lines == 2_000_000


_byte_piece = st.one_of(
    st.binary(max_size=12),
    st.sampled_from(
        [b"\n", b"\n\n\n", b"\r\n", "é".encode(), "😀".encode(), b"\xff", b"\x80", b"\xe2\x82"]
    ),
    st.builds(lambda b, n: b * n, st.binary(min_size=1, max_size=3), st.integers(5, 60)),
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    pieces=st.lists(_byte_piece, max_size=30),
    marks=st.sampled_from(SMALL_MARKS),
    step=st.sampled_from([3, 8, 64]),
)
def test_lines_bytes_and_columns_match_a_plain_count_whatever_the_marks(
    pieces: list[bytes], marks: tuple[int, int], step: int
) -> None:
    """Every line start, the line of every byte, every row and every char window of any
    bytes, with marks every few lines or bytes (each position a mark plus a scan), agree with
    counting in the data itself."""
    data = b"".join(pieces)
    lines = data.split(b"\n")
    if lines[-1] == b"":  # after a final newline (or in no data) there is no line
        lines.pop()
    with tempfile.TemporaryDirectory() as tmp:
        store = SpillStore(Path(".agent-spill"), Path(tmp), durable=False, step=step, marks=marks)
        record = store.write_bytes([data[:7], data[7:]], "run_shell", "c1")
        with SpillReader.open(record.path) as reader:
            assert reader.lines == len(lines)
            starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
            for number, line in enumerate(lines, 1):
                assert reader.line_start(number) == starts[number - 1]
                text = line.decode("utf-8", "surrogateescape")
                [row] = reader.rows(number, 1, 5)
                assert (row.text, row.chars) == (text[:5], len(text))
                for start in range(0, len(text), 4):
                    assert reader.segment(number, start, 6).text == text[start : start + 6]
            rows = list(reader.rows(1, len(lines) + 3, 5))
            assert [r.line for r in rows] == list(range(1, len(lines) + 1))
            for byte in range(len(data)):
                assert reader.line_at(byte) == data.count(b"\n", 0, byte) + 1, byte
                assert line_of_byte(reader, byte) == reader.line_at(byte)
                line = reader.line_at(byte)
                start = line_start(reader, line)
                expected = len(data[start:byte].decode("utf-8", "surrogateescape"))
                assert column_of_byte(reader, line, byte) == expected


def _dense_index(data: bytes, mtime: int, step: int, version: int) -> bytes:
    """An index in an earlier layout: one line start per line (``AGTSPIX2``; ``AGTSPIX1``
    without the meta), checkpoints every ``step`` characters of a long line."""
    starts = array("Q", [i + 1 for i, b in enumerate(data) if b == 10])
    text = data.decode()
    checkpoints = array("Q")
    line, in_line, byte = 1, 0, 0
    for char in text:
        byte += len(char.encode())
        in_line += 1
        if char == "\n":
            line, in_line = line + 1, 0
        elif in_line % step == 0:
            checkpoints.extend((line, in_line, byte))
    newlines = len(starts)
    lines = newlines + (1 if data and not data.endswith(b"\n") else 0)
    fields = [len(data), mtime, len(text), lines, newlines, len(checkpoints) // 3, step]
    if version == 1:
        header = index_module.HEADER_V1.pack(index_module.MAGIC_V1, *fields)
        meta = b""
    else:
        meta = SpillMeta(summary="make").encode()
        header = index_module.HEADER_V2.pack(index_module.MAGIC_V2, *fields, len(meta))
    return header + starts.tobytes() + checkpoints.tobytes() + meta


def test_indexes_of_the_earlier_layouts_are_still_read(tmp_path: Path) -> None:
    """Spills outlive the version that wrote them: an index with one line start per line is
    read as it is (each line start its own mark, nothing scanned)."""
    text = "one\ntwo\n" + "z" * 100 + "\nlast"
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False, step=16)
    record = store.write(text, "run_shell", "c1", summary="make")
    mtime = os.stat(record.path).st_mtime_ns
    for version, meta in ((2, SpillMeta(summary="make")), (1, SpillMeta())):
        index_path(record.path).write_bytes(_dense_index(text.encode(), mtime, 16, version))
        with SpillReader.open(record.path) as reader:
            assert (reader.lines, reader.index.chars, reader.index.meta()) == (4, len(text), meta)
            assert [row.text for row in reader.rows(1, 4, 200)] == text.split("\n")
            assert reader.segment(3, 90, 20).text == "z" * 10  # through a checkpoint
            assert [reader.line_start(n) for n in (1, 2, 3, 4)] == [0, 4, 8, 109]
            assert reader.line_at(50) == 3
            assert reader.line_at(109) == 4


def test_a_damaged_index_header_is_not_read(tmp_path: Path) -> None:
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    record = store.write("a\nb\n", "run_shell", "c1")
    path = index_path(record.path)
    raw = path.read_bytes()
    path.write_bytes(raw[:8] + struct.pack("<Q", 999) + raw[16:])  # another data size
    assert SpillIndex.open_for(record.path) is None


# -- undecodable bytes: a spill shows them as any file does ---------------------------------

PAYLOADS = [
    b"caf\xe9 au lait\nplain\n\xff\xfe two bytes\n",
    b"half \xe2\x82 a euro\nno newline \x80",
    b"x" * 2500 + b"\xff" + b"y" * 30 + b"\n" + b"\xc3" * 3 + b"\n",
]
SHOWN_BYTES = [3, 3, 3]
"""Undecodable bytes in the first window of each (the 0xff past the cut of a long line is
not shown there)."""


async def _read(ctx: ToolContext, path: str, **args: int) -> tuple[list[str], str, object]:
    out = await call_read(ctx, path=path, **args)
    *rows, footer = out.content.split("\n")
    return rows, footer, out.data.get("undecodable_bytes")


def test_read_file_shows_a_spills_undecodable_bytes_as_it_shows_a_files(tmp_path: Path) -> None:
    """A raw spill holding bytes that are not UTF-8: read_file shows each as ``\\xNN`` and
    its footer counts them, exactly as for the same bytes in a file that is not a spill —
    rows, char windows of a long line and counts alike (it showed U+FFFD and no count)."""
    ctx = ToolContext(cwd=tmp_path)
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)

    async def check() -> None:
        for n, data in enumerate(PAYLOADS):
            record = store.write_bytes([data], "run_shell", f"c{n}")
            plain = tmp_path / f"plain{n}.txt"
            plain.write_bytes(data)
            spill_rows, spill_footer, spill_count = await _read(ctx, record.shown)
            file_rows, _, file_count = await _read(ctx, plain.name)
            assert spill_rows == file_rows
            assert "\ufffd" not in "".join(spill_rows)
            assert spill_count == file_count == SHOWN_BYTES[n]
            assert f"not valid UTF-8: {spill_count:,} byte" in spill_footer
            if n == 2:  # a long line: its char window past the cut, as for the file
                spill_piece = await _read(ctx, record.shown, offset=1, char_offset=2000)
                file_piece = await _read(ctx, plain.name, offset=1, char_offset=2000)
                assert spill_piece[0] == file_piece[0] == [f"     1\t{'x' * 500}\\xff{'y' * 30}"]
                assert spill_piece[2] == file_piece[2] == 1
                assert "1 byte shown as \\xNN" in spill_piece[1]

    asyncio.run(check())


def test_the_browsers_window_is_read_files_with_the_same_count(tmp_path: Path) -> None:
    """The spill browser's window of such a spill: read_file's rows and footer (the count
    included); the decoded text keeps each byte as a lone surrogate for the viewer to draw."""
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    record = store.write_bytes([PAYLOADS[0]], "run_shell", "c1")
    ctx = ToolContext(cwd=tmp_path)
    out = asyncio.run(call_read(ctx, path=record.shown))
    with SpillReader.open(record.path) as reader:
        window = window_of(reader, record.shown, 1, 2000)
    assert window.text() == out.content
    assert window.rows[0] == "     1\tcaf\\xe9 au lait"
    assert window.texts[0] == "caf\udce9 au lait"
    assert "not valid UTF-8: 3 bytes shown as \\xNN" in window.footer
