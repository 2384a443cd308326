from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import atomic
from agent_tui.core.tools.builtin.write_file import TOOL
from agent_tui.core.tools.errors import ToolFailure


@pytest.fixture
def write(call):  # type: ignore[no-untyped-def]
    return call(TOOL)


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_creates_file_and_parent_directories(write, tmp_path: Path) -> None:
    out = await write(path="sub/dir/a.txt", content="one\ntwo\n")
    target = tmp_path / "sub" / "dir" / "a.txt"
    assert target.read_text() == "one\ntwo\n"
    assert out.content == "Wrote 2 lines (8 bytes) to sub/dir/a.txt (new file)."
    assert out.data == {"path": str(target), "created": True, "diff": None}


async def test_overwrite_returns_a_unified_diff(write, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("keep\nold\n")
    out = await write(path="a.txt", content="keep\nnew\nmore")
    assert (tmp_path / "a.txt").read_text() == "keep\nnew\nmore"
    assert out.content == "Wrote 3 lines (13 bytes) to a.txt."
    assert out.data["created"] is False
    diff = out.data["diff"]
    assert diff.startswith("--- a/a.txt\n+++ b/a.txt\n@@")
    assert "-old" in diff
    assert "+new" in diff
    assert "+more" in diff


async def test_new_file_gets_the_umask_mode_not_0600(
    write, tmp_path: Path, umask_022: None
) -> None:
    await write(path="a.txt", content="x")
    assert mode(tmp_path / "a.txt") == 0o644


async def test_existing_mode_is_preserved(write, tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    await write(path="run.sh", content="#!/bin/sh\necho hi\n")
    assert mode(script) == 0o755
    assert script.read_text().endswith("echo hi\n")


async def test_failed_replace_leaves_original_intact_and_no_temp_file(
    write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.txt"
    target.write_text("original\n")

    def broken_replace(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(ToolFailure) as failure:
        await write(path="a.txt", content="new content\n")
    assert failure.value.info.code == "no_space"
    assert "no space left on device; the file is unchanged" in failure.value.info.message
    assert target.read_text() == "original\n"
    assert os.listdir(tmp_path) == ["a.txt"]


async def test_failed_write_midway_leaves_no_temp_file(
    write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.txt"
    target.write_text("original\n")
    real_write = os.write

    def short_then_fail(fd: int, data: bytes | memoryview) -> int:
        if len(data) > 4:
            return real_write(fd, bytes(data[:4]))
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic.os, "write", short_then_fail)
    with pytest.raises(ToolFailure):
        await write(path="a.txt", content="a long replacement\n")
    assert target.read_text() == "original\n"
    assert os.listdir(tmp_path) == ["a.txt"]


async def test_writes_through_a_symlink_to_its_target(write, tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    (tmp_path / "link.txt").symlink_to(real)
    await write(path="link.txt", content="new\n")
    assert (tmp_path / "link.txt").is_symlink()
    assert real.read_text() == "new\n"


async def test_refuses_a_directory(write, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with pytest.raises(ToolFailure) as failure:
        await write(path="src", content="x")
    assert failure.value.info.code == "is_directory"


async def test_parent_that_is_a_file_is_a_clear_error(write, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(ToolFailure) as failure:
        await write(path="a.txt/b.txt", content="x")
    assert failure.value.info.code == "not_a_directory"


async def test_records_the_written_state(write, ctx: ToolContext, tmp_path: Path) -> None:
    await write(path="a.txt", content="hello\n")
    target = tmp_path / "a.txt"
    assert ctx.file_state.changed_since_read(target, target.read_bytes()) is False


async def test_empty_content_and_non_ascii(write, tmp_path: Path) -> None:
    out = await write(path="empty.txt", content="")
    assert out.content.startswith("Wrote 0 lines (0 bytes)")
    out = await write(path="u.txt", content="日本\n")
    assert out.content.startswith("Wrote 1 line (7 bytes)")
    assert (tmp_path / "u.txt").read_text(encoding="utf-8") == "日本\n"
