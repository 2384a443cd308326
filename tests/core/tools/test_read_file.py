from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import read_file
from agent_tui.core.tools.builtin.read_file import TOOL
from agent_tui.core.tools.errors import ToolFailure


@pytest.fixture
def read(call):  # type: ignore[no-untyped-def]
    return call(TOOL)


def numbered(start: int, lines: list[str]) -> list[str]:
    return [f"{n:>6}\t{text}" for n, text in enumerate(lines, start)]


async def test_numbers_lines_like_cat_n_with_footer(read, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n\tbeta\n")
    out = await read(path="a.txt")
    assert out.content.split("\n") == [
        "     1\talpha",
        "     2\t\tbeta",
        "[lines 1-2 of 2 — end of file]",
    ]
    assert out.never_spill is True
    assert out.is_error is False
    assert out.data["total_lines"] == 2


async def test_last_line_without_newline_is_counted(read, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo")
    out = await read(path="a.txt")
    assert out.content.split("\n")[-2:] == ["     2\ttwo", "[lines 1-2 of 2 — end of file]"]


async def test_pages_with_default_limit_and_footer_gives_next_offset(read, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 5313)))
    out = await read(path="big.txt")
    rows = out.content.split("\n")
    assert len(rows) == 2001
    assert rows[0] == "     1\tline 1"
    assert rows[1999] == "  2000\tline 2000"
    assert rows[-1] == '[lines 1-2000 of 5312 — next: read_file(path="big.txt", offset=2001)]'

    out = await read(path="big.txt", offset=5001)
    rows = out.content.split("\n")
    assert rows[0] == "  5001\tline 5001"
    assert rows[-1] == "[lines 5001-5312 of 5312 — end of file]"


async def test_offset_and_limit_select_a_window(read, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"{i}\n" for i in range(1, 101)))
    out = await read(path="a.txt", offset=10, limit=3)
    assert out.content.split("\n") == [
        *numbered(10, ["10", "11", "12"]),
        '[lines 10-12 of 100 — next: read_file(path="a.txt", offset=13, limit=3)]',
    ]  # the next call keeps the window size the model chose


async def test_limit_is_clamped_to_the_maximum(read, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n" * 3000)
    out = await read(path="a.txt", limit=10_000)
    assert out.content.endswith("offset=2001)]")


async def test_offset_past_end_is_a_clear_error(read, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    with pytest.raises(ToolFailure) as failure:
        await read(path="a.txt", offset=4)
    info = failure.value.info
    assert info.code == "offset_out_of_range"
    assert "has 3 lines" in info.message
    assert "between 1 and 3" in info.next_step


async def test_long_lines_are_cut_with_a_marker(read, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x" * 2500 + "\nshort\n")
    rows = (await read(path="a.txt")).content.split("\n")
    assert rows[0] == "     1\t" + "x" * 2000 + " [… line cut: 500 more chars]"
    assert rows[1] == "     2\tshort"


async def test_crlf_line_endings_are_not_shown(read, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\r\n" + b"y" * 2100 + b"\r\n")
    rows = (await read(path="a.txt")).content.split("\n")
    assert rows[:2] == ["     1\tone", "     2\ttwo"]
    assert rows[2].endswith("[… line cut: 100 more chars]")  # the \r is not counted
    assert "\r" not in "".join(rows)


async def test_output_is_capped_by_size_with_a_continue_offset(read, tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text(("w" * 1990 + "\n") * 300)
    out = await read(path="wide.txt")
    assert len(out.content) <= read_file.MAX_WINDOW_CHARS + 200
    last = out.data["last"]
    assert 0 < last < 300
    assert f"offset={last + 1})]" in out.content
    assert "output capped" in out.content


async def test_empty_file(read, tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    out = await read(path="empty.txt")
    assert out.content == "[empty file: 0 lines]"


async def test_refuses_a_directory_and_suggests_list_dir(read, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with pytest.raises(ToolFailure) as failure:
        await read(path="src")
    assert failure.value.info.code == "is_directory"
    assert "list_dir" in failure.value.info.next_step


@pytest.mark.parametrize(
    "payload",
    [b"text\x00with a NUL byte\n", bytes(range(128, 256)) * 20],
    ids=["nul", "undecodable"],
)
async def test_refuses_binary_files(read, tmp_path: Path, payload: bytes) -> None:
    (tmp_path / "blob.bin").write_bytes(payload)
    with pytest.raises(ToolFailure) as failure:
        await read(path="blob.bin")
    assert failure.value.info.code == "binary_file"
    assert "does not look like a text file" in failure.value.info.message


async def test_stray_invalid_bytes_are_shown_escaped_and_counted(read, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"caf\xe9 au lait, a mostly ASCII line of text\n\xff\xfe!\n")
    out = await read(path="a.txt")
    rows = out.content.splitlines()
    assert rows[0] == "     1\tcaf\\xe9 au lait, a mostly ASCII line of text"
    assert rows[1] == "     2\t\\xff\\xfe!"
    assert "not valid UTF-8: 3 bytes shown as \\xNN" in rows[-1]
    assert out.data["undecodable_bytes"] == 3
    out.content.encode("utf-8")  # nothing a transcript cannot hold


async def test_an_undecodable_byte_in_a_long_line_segment_is_escaped(read, tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_bytes(b"x" * 5000 + b"\xe9" + b"y" * 10 + b"\n")
    out = await read(path="long.txt", char_offset=4990)
    assert out.content.splitlines()[0] == "     1\t" + "x" * 10 + "\\xe9" + "y" * 10
    assert "1 byte shown as \\xNN" in out.content.splitlines()[-1]
    assert out.data["line_chars"] == 5011  # the byte counts as one character, as in the file


async def test_missing_file_suggests_close_names(read, tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("a: 1\n")
    with pytest.raises(ToolFailure) as failure:
        await read(path="config.yml")
    info = failure.value.info
    assert info.code == "not_found"
    assert "config.yaml" in info.message
    assert info.details == ["closest: config.yaml"]


async def test_missing_directory_is_named(read, tmp_path: Path) -> None:
    with pytest.raises(ToolFailure) as failure:
        await read(path="nope/deeper/a.txt")
    assert failure.value.info.code == "not_found"
    assert "nope/deeper does not exist" in failure.value.info.message


async def test_records_the_file_for_edit_file(read, ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("hello\n")
    assert ctx.file_state.changed_since_read(target) is None
    await read(path="a.txt", limit=1)
    assert ctx.file_state.changed_since_read(target, target.read_bytes()) is False


def _reference(data: bytes, offset: int, limit: int) -> list[str]:
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    rows = []
    for n, raw in enumerate(lines[offset - 1 : offset - 1 + limit], offset):
        text = raw.decode("utf-8", errors="replace").removesuffix("\r")
        rows.append(f"{n:>6}\t{text}")
    return rows


@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 20])
async def test_streaming_matches_a_whole_file_reference_for_any_chunk_size(
    read, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(read_file, "CHUNK_BYTES", chunk)
    rng = random.Random(chunk)
    words = ["a", "bb", "héllo", "日本語", "", "tab\there", "crlf\r", "€uro"]
    data = "\n".join(" ".join(rng.choices(words, k=rng.randint(0, 6))) for _ in range(60))
    raw = data.encode()
    (tmp_path / "r.txt").write_bytes(raw)
    for offset, limit in [(1, 2000), (1, 1), (7, 13), (59, 5), (60, 1)]:
        out = await read(path="r.txt", offset=offset, limit=limit)
        assert out.content.split("\n")[:-1] == _reference(raw, offset, limit)
