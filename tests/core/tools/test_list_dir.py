from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.tools.builtin import list_dir
from agent_tui.core.tools.builtin.list_dir import TOOL
from agent_tui.core.tools.errors import ToolFailure


@pytest.fixture
def ls(call):  # type: ignore[no-untyped-def]
    return call(TOOL)


async def test_directories_first_then_files_sorted_by_name(ls, tmp_path: Path) -> None:
    (tmp_path / "zeta").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "alpha").mkdir()
    (tmp_path / "b.txt").write_text("x" * 10)
    (tmp_path / "a.txt").write_text("y" * 3000)
    (tmp_path / "link").symlink_to("a.txt")
    out = await ls()
    assert out.content.split("\n") == [
        "dir         -  .git/",
        "dir         -  alpha/",
        "dir         -  zeta/",
        "file     2.9K  a.txt",
        "file       10  b.txt",
        "link        -  link -> a.txt",
        "[6 entries in ./]",
    ]
    assert out.data["count"] == 6


async def test_lists_a_subdirectory(ls, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("")
    out = await ls(path="src")
    assert out.content.split("\n") == ["file        0  m.py", "[1 entry in src/]"]


async def test_empty_directory(ls, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert (await ls(path="empty")).content == "empty/ is empty."


async def test_caps_entries_with_a_note(ls, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(list_dir, "MAX_ENTRIES", 10)
    for i in range(15):
        (tmp_path / f"f{i:02}.txt").write_text("")
    rows = (await ls()).content.split("\n")
    assert len(rows) == 11
    assert rows[9].endswith("f09.txt")
    assert rows[-1].startswith("[10 of 15 entries shown — 5 more not shown")


async def test_default_cap_is_1000(ls, tmp_path: Path) -> None:
    for i in range(1003):
        (tmp_path / f"f{i:04}").touch()
    rows = (await ls()).content.split("\n")
    assert len(rows) == 1001
    assert "3 more not shown" in rows[-1]


async def test_a_file_is_refused_with_a_pointer_to_read_file(ls, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    with pytest.raises(ToolFailure) as failure:
        await ls(path="a.txt")
    assert failure.value.info.code == "not_a_directory"
    assert "read_file" in failure.value.info.next_step


async def test_missing_directory_suggests_close_names(ls, tmp_path: Path) -> None:
    (tmp_path / "sources").mkdir()
    with pytest.raises(ToolFailure) as failure:
        await ls(path="source")
    assert failure.value.info.code == "not_found"
    assert "sources" in failure.value.info.message
