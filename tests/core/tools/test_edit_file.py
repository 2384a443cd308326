from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent_tui.core.tools.builtin import edit_file, read_file, write_file
from agent_tui.core.tools.errors import ToolFailure


@pytest.fixture
def edit(call):  # type: ignore[no-untyped-def]
    return call(edit_file.TOOL)


@pytest.fixture
def read(call):  # type: ignore[no-untyped-def]
    return call(read_file.TOOL)


@pytest.fixture
def write(call):  # type: ignore[no-untyped-def]
    return call(write_file.TOOL)


@pytest.fixture
def source(tmp_path: Path, read):  # type: ignore[no-untyped-def]
    """A file the model has read: ``await source(text)`` -> its path."""

    async def make(content: str | bytes, name: str = "x.py") -> Path:
        path = tmp_path / name
        if isinstance(content, str):
            path.write_text(content)
        else:
            path.write_bytes(content)
        await read(path=name)
        return path

    return make


async def failure_of(coro) -> ToolFailure:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolFailure) as failure:
        await coro
    return failure.value


async def test_unique_match_is_replaced_with_a_diff(edit, source) -> None:
    path = await source("def f():\n    return 1\n\nx = f()\n")
    out = await edit(path="x.py", old_string="return 1", new_string="return 2")
    assert path.read_text() == "def f():\n    return 2\n\nx = f()\n"
    assert out.data["replacements"] == 1
    diff = out.data["diff"]
    assert diff.startswith("--- a/x.py\n+++ b/x.py\n@@")
    assert "-    return 1\n+    return 2" in diff
    assert out.content == f"Edited x.py: 1 replacement.\n{diff}"


async def test_not_found_tells_to_read_again(edit, source) -> None:
    path = await source("a = 1\n")
    failure = await failure_of(edit(path="x.py", old_string="b = 1", new_string="b = 2"))
    assert failure.info.code == "not_found"
    assert "read_file" in failure.info.next_step
    assert path.read_text() == "a = 1\n"


async def test_not_found_hints_at_a_whitespace_only_difference(edit, source) -> None:
    await source("x = 0\nif x:\n    call(a,  b)\n")
    failure = await failure_of(edit(path="x.py", old_string="call(a, b)", new_string="c()"))
    assert "differs only in whitespace" in failure.info.message
    assert "line 3" in failure.info.message


async def test_not_found_hints_at_copied_line_numbers(edit, source) -> None:
    await source("a = 1\n")
    failure = await failure_of(edit(path="x.py", old_string="     1\ta = 1", new_string="a=2"))
    assert "line-number prefixes" in failure.info.message


async def test_found_several_times_lists_line_numbers(edit, source) -> None:
    path = await source("x\ny\nx\nz\nx\n")
    failure = await failure_of(edit(path="x.py", old_string="x", new_string="w"))
    assert failure.info.code == "multiple_matches"
    assert "3 times" in failure.info.message
    assert "lines 1, 3, 5" in failure.info.message
    assert "replace_all" in failure.info.next_step
    assert path.read_text() == "x\ny\nx\nz\nx\n"


async def test_replace_all(edit, source) -> None:
    path = await source("x\ny\nx\nz\nx\n")
    out = await edit(path="x.py", old_string="x", new_string="w", replace_all=True)
    assert path.read_text() == "w\ny\nw\nz\nw\n"
    assert out.data["replacements"] == 3
    assert out.content.startswith("Edited x.py: 3 replacements.")


async def test_crlf_file_matched_with_lf_and_keeps_crlf(edit, source) -> None:
    path = await source(b"a\r\nb\r\nc\r\n")
    await edit(path="x.py", old_string="a\nb", new_string="A\nB\nB2")
    assert path.read_bytes() == b"A\r\nB\r\nB2\r\nc\r\n"
    await edit(path="x.py", old_string="c", new_string="c\nd")
    assert path.read_bytes() == b"A\r\nB\r\nB2\r\nc\r\nd\r\n"


async def test_stale_file_refused_after_external_modification(edit, source) -> None:
    path = await source("a = 1\n")
    path.write_text("a = 1\nb = 2\n")
    failure = await failure_of(edit(path="x.py", old_string="a = 1", new_string="a = 3"))
    assert failure.info.code == "stale_file"
    assert "read_file" in failure.info.next_step
    assert path.read_text() == "a = 1\nb = 2\n"


async def test_stale_detected_even_with_same_size_and_mtime(edit, source) -> None:
    path = await source("a = 1\n")
    before = path.stat()
    path.write_text("a = 9\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    failure = await failure_of(edit(path="x.py", old_string="a = 9", new_string="a = 3"))
    assert failure.info.code == "stale_file"


async def test_reading_again_after_a_change_allows_the_edit(edit, read, source) -> None:
    path = await source("a = 1\n")
    path.write_text("a = 2\n")
    await read(path="x.py")
    await edit(path="x.py", old_string="a = 2", new_string="a = 3")
    assert path.read_text() == "a = 3\n"


async def test_never_read_is_refused(edit, tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("a = 1\n")
    failure = await failure_of(edit(path="x.py", old_string="a = 1", new_string="a = 2"))
    assert failure.info.code == "not_read"
    assert "read_file" in failure.info.next_step


async def test_file_written_in_this_session_counts_as_read(edit, write, tmp_path: Path) -> None:
    await write(path="new.py", content="a = 1\n")
    await edit(path="new.py", old_string="a = 1", new_string="a = 2")
    assert (tmp_path / "new.py").read_text() == "a = 2\n"


async def test_consecutive_edits_need_no_reread(edit, source) -> None:
    path = await source("a = 1\nb = 1\n")
    await edit(path="x.py", old_string="a = 1", new_string="a = 2")
    await edit(path="x.py", old_string="b = 1", new_string="b = 2")
    assert path.read_text() == "a = 2\nb = 2\n"


async def test_identical_strings_are_refused(edit, source) -> None:
    await source("a = 1\n")
    failure = await failure_of(edit(path="x.py", old_string="a = 1", new_string="a = 1"))
    assert failure.info.code == "no_change"


async def test_empty_old_string_on_existing_file_points_to_write_file(edit, source) -> None:
    await source("a = 1\n")
    failure = await failure_of(edit(path="x.py", old_string="", new_string="b = 2\n"))
    assert failure.info.code == "empty_old_string"
    assert "write_file" in failure.info.next_step


async def test_missing_file_points_to_write_file(edit) -> None:
    failure = await failure_of(edit(path="nope.py", old_string="a", new_string="b"))
    assert failure.info.code == "not_found"
    assert "write_file" in failure.info.next_step


async def test_mode_is_preserved(edit, source, tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho a\n")
    script.chmod(0o755)
    await source(script.read_bytes(), name="run.sh")
    await edit(path="run.sh", old_string="echo a", new_string="echo b")
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert script.read_text() == "#!/bin/sh\necho b\n"


async def test_invalid_utf8_elsewhere_is_preserved_byte_for_byte(edit, source) -> None:
    body = b"# caf\xe9 -- a latin-1 comment in an otherwise UTF-8 file\nx = 1\n"
    path = await source(body)
    await edit(path="x.py", old_string="x = 1", new_string="x = 2")
    assert path.read_bytes() == body.replace(b"x = 1", b"x = 2")


async def test_binary_file_is_refused(edit, ctx, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "blob.bin"
    path.write_bytes(b"abc\x00def")
    ctx.file_state.record(path)
    failure = await failure_of(edit(path="blob.bin", old_string="abc", new_string="xyz"))
    assert failure.info.code == "binary_file"
