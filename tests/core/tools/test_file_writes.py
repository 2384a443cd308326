"""edit_file and write_file on the files that go wrong: not valid UTF-8, read-only, a disk
that is full (for real: a file size limit in a subprocess, a tiny tmpfs), and diffs of large
files of repeated lines."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import edit_file, read_file, write_file
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.safe_open import read_only

SRC = str(Path(__file__).resolve().parents[3] / "src")


@pytest.fixture
def edit(call):  # type: ignore[no-untyped-def]
    return call(edit_file.TOOL)


@pytest.fixture
def read(call):  # type: ignore[no-untyped-def]
    return call(read_file.TOOL)


@pytest.fixture
def write(call):  # type: ignore[no-untyped-def]
    return call(write_file.TOOL)


async def failure_of(coro) -> ToolFailure:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolFailure) as failure:
        await coro
    return failure.value


# -- not valid UTF-8 -------------------------------------------------------------------------

LATIN1 = b"# r\xe9sum\xe9 of the module, written in latin-1 by an old editor\nx = 1\ny = 2\n"


async def test_an_edit_keeps_undecodable_bytes_and_shows_them_escaped(
    edit, read, tmp_path: Path
) -> None:
    path = tmp_path / "old.py"
    path.write_bytes(LATIN1)
    await read(path="old.py")
    out = await edit(path="old.py", old_string="x = 1", new_string="x = 10")
    assert path.read_bytes() == LATIN1.replace(b"x = 1", b"x = 10")
    assert "not valid UTF-8 (2 bytes shown as \\xNN)" in out.content
    assert " # r\\xe9sum\\xe9 of the module" in out.data["diff"]
    out.content.encode("utf-8")
    json.dumps(out.data, ensure_ascii=False).encode("utf-8")


async def test_old_string_cannot_hold_an_undecodable_byte_and_is_told_why(
    edit, read, tmp_path: Path
) -> None:
    path = tmp_path / "old.py"
    path.write_bytes(LATIN1)
    await read(path="old.py")
    # What read_file showed, copied: the escape is text, not the byte.
    failure = await failure_of(edit(path="old.py", old_string="r\\xe9sum\\xe9", new_string="r"))
    assert failure.info.code == "not_found"
    assert "not valid UTF-8 (2 bytes shown as \\xNN by read_file)" in failure.info.message
    assert "match text next to them" in failure.info.message
    assert path.read_bytes() == LATIN1


async def test_a_write_over_a_file_that_is_not_utf8_diffs_it_escaped(write, tmp_path: Path) -> None:
    path = tmp_path / "old.py"
    path.write_bytes(LATIN1)
    out = await write(path="old.py", content="# résumé\nx = 1\ny = 2\n")
    assert "-# r\\xe9sum\\xe9 of the module" in out.data["diff"]
    assert "+# résumé" in out.data["diff"]
    assert path.read_text() == "# résumé\nx = 1\ny = 2\n"


# -- read-only files -------------------------------------------------------------------------


async def test_a_read_only_file_is_not_replaced_even_by_root(
    edit, write, read, ctx: ToolContext, tmp_path: Path
) -> None:
    path = tmp_path / "locked.txt"
    path.write_text("keep me\n")
    await read(path="locked.txt")
    path.chmod(0o444)
    before = path.stat()
    # root may write anything (os.access says yes): the mode bits decide.
    precheck = edit_file.TOOL.precheck
    assert precheck is not None
    inp = edit_file.EditFileInput(path="locked.txt", old_string="keep", new_string="lose")
    refused = precheck(inp, ctx)
    assert refused is not None
    assert refused.code == "read_only"
    failure = await failure_of(edit(path="locked.txt", old_string="keep", new_string="lose"))
    assert failure.info.code == "read_only"
    assert failure.info.message == (
        "Cannot edit locked.txt: it is read-only (mode 0444); the file is unchanged."
    )
    assert "chmod u+w locked.txt" in failure.info.next_step
    failure = await failure_of(write(path="locked.txt", content="lost\n"))
    assert failure.info.code == "read_only"
    after = path.stat()
    assert path.read_text() == "keep me\n"
    assert (after.st_ino, stat.S_IMODE(after.st_mode)) == (before.st_ino, 0o444)
    assert os.listdir(tmp_path) == ["locked.txt"]  # no temporary file left behind


async def test_a_file_made_writable_again_can_be_edited(edit, read, tmp_path: Path) -> None:
    path = tmp_path / "locked.txt"
    path.write_text("keep me\n")
    path.chmod(0o444)
    await read(path="locked.txt")
    await failure_of(edit(path="locked.txt", old_string="keep", new_string="change"))
    path.chmod(0o644)
    await edit(path="locked.txt", old_string="keep", new_string="change")
    assert path.read_text() == "change me\n"


def _stat(mode: int, uid: int, gid: int) -> os.stat_result:
    return os.stat_result((stat.S_IFREG | mode, 1, 1, 1, uid, gid, 0, 0, 0, 0))


def test_read_only_reads_the_bits_of_the_class_the_process_is_in() -> None:
    euid, egid = os.geteuid(), os.getegid()
    assert read_only(_stat(0o444, euid, egid))
    assert not read_only(_stat(0o644, euid, egid))
    if euid == 0:  # root: any write bit will do, but none is read-only
        assert not read_only(_stat(0o404 | 0o020, 1234, 1234))
        assert read_only(_stat(0o555, 1234, 1234))
    else:  # another owner's 0644 file: the rename would replace what we may not write
        assert read_only(_stat(0o644, euid + 1, egid + 1))
        assert not read_only(_stat(0o646, euid + 1, egid + 1))


# -- a full disk -----------------------------------------------------------------------------

_UNDER_A_SIZE_LIMIT = """
import asyncio, json, resource, sys
from pathlib import Path
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import edit_file, read_file, write_file
from agent_tui.core.tools.errors import ToolFailure

cwd = Path(sys.argv[1])
ctx = ToolContext(cwd=cwd)
limit = int(sys.argv[2])

async def main():
    await read_file.TOOL.call(read_file.ReadFileInput(path="big.txt"), ctx)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # SIGXFSZ: Python ignores it
    out = {}
    calls = {
        "edit": (edit_file.TOOL, {"path": "big.txt", "old_string": "line 7\\n",
                                  "new_string": "line 7\\n" * 100}),
        "write": (write_file.TOOL, {"path": "big.txt", "content": "x" * (limit + 1)}),
        "new": (write_file.TOOL, {"path": "new.txt", "content": "x" * (limit + 1)}),
    }
    for name, (tool, args) in calls.items():
        try:
            await tool.call(tool.input_model.model_validate(args), ctx)
            out[name] = None
        except ToolFailure as failure:
            out[name] = failure.info.model_dump()
    print(json.dumps(out))

asyncio.run(main())
"""


def test_a_file_size_limit_is_said_as_no_space_and_the_file_is_unchanged(
    tmp_path: Path,
) -> None:
    body = "".join(f"line {n}\n" for n in range(10_000)).encode()
    big = tmp_path / "big.txt"
    big.write_bytes(body)
    done = subprocess.run(
        [sys.executable, "-c", _UNDER_A_SIZE_LIMIT, str(tmp_path), str(len(body))],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = json.loads(done.stdout)
    assert out["edit"]["code"] == "no_space"
    assert out["edit"]["message"] == (
        "Cannot edit big.txt: no space left for it (the file would exceed the file size "
        "limit); the file is unchanged."
    )
    assert "check the arguments" not in json.dumps(out).lower()
    assert out["write"]["code"] == "no_space"
    assert out["write"]["message"].endswith("; the file is unchanged.")
    assert out["new"]["message"].endswith("; nothing was written.")
    assert big.read_bytes() == body
    assert sorted(os.listdir(tmp_path)) == ["big.txt"]  # temporary files removed


async def test_a_full_disk_is_said_as_no_space_and_the_file_is_unchanged(
    tiny_disk: Path,
) -> None:
    ctx = ToolContext(cwd=tiny_disk)
    body = b"0123456789abcde\n" * 2500  # 40 KB: a second copy does not fit
    (tiny_disk / "data.txt").write_bytes(body)
    await read_file.TOOL.call(read_file.ReadFileInput(path="data.txt"), ctx)
    inp = edit_file.EditFileInput(
        path="data.txt", old_string="abcde\n", new_string="ABCDE\n", replace_all=True
    )  # the same size: the temporary copy needs 40 KB more, 24 KB are free
    with pytest.raises(ToolFailure) as failure:
        await edit_file.TOOL.call(inp, ctx)
    assert failure.value.info.code == "no_space"
    assert failure.value.info.message == (
        "Cannot edit data.txt: no space left on device; the file is unchanged."
    )
    assert (tiny_disk / "data.txt").read_bytes() == body
    assert os.listdir(tiny_disk) == ["data.txt"]


# -- diffs of the replaced spans -------------------------------------------------------------


async def test_one_change_in_50000_identical_lines_is_a_hunk_of_a_few_lines(
    edit, read, tmp_path: Path
) -> None:
    path = tmp_path / "same.txt"
    path.write_text("same line\n" * 25_000 + "the one\n" + "same line\n" * 25_000)
    await read(path="same.txt")
    started = time.perf_counter()
    out = await edit(path="same.txt", old_string="the one\n", new_string="the other\n")
    elapsed = time.perf_counter() - started
    assert out.data["diff"] == "\n".join(
        [
            "--- a/same.txt",
            "+++ b/same.txt",
            "@@ -25998,7 +25998,7 @@",
            *[" same line"] * 3,
            "-the one",
            "+the other",
            *[" same line"] * 3,
        ]
    ).replace("25998", "24998")
    assert out.summary == "+1 −1"
    assert elapsed < 5  # generous: the diff itself takes about a millisecond


async def test_replace_all_gives_one_hunk_per_span_with_the_right_line_numbers(
    edit, read, tmp_path: Path
) -> None:
    lines = ["same line"] * 30_000
    for n in (100, 10_000, 20_000, 29_999):  # 0-based: lines 101, 10001, 20001, 30000
        lines[n] = "x = 1"
    path = tmp_path / "many.txt"
    path.write_text("\n".join(lines) + "\n")
    await read(path="many.txt")
    out = await edit(path="many.txt", old_string="x = 1", new_string="x = 2", replace_all=True)
    diff = out.data["diff"]
    headers = [line for line in diff.splitlines() if line.startswith("@@")]
    assert headers == [
        "@@ -98,7 +98,7 @@",
        "@@ -9998,7 +9998,7 @@",
        "@@ -19998,7 +19998,7 @@",
        "@@ -29997,4 +29997,4 @@",
    ]
    assert diff.count("\n-x = 1\n+x = 2") == 4
    assert len(diff.splitlines()) == 2 + 4 * 9 - 3


async def test_a_multi_line_replacement_shifts_the_later_hunks(edit, read, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("".join(f"l{n}\n" for n in range(1, 41)).replace("l5\n", "T\nl5\n"))
    await read(path="f.txt")
    path.write_text(path.read_text().replace("l30\n", "T\nl30\n"))
    await read(path="f.txt")
    out = await edit(path="f.txt", old_string="T\n", new_string="A\nB\nC\n", replace_all=True)
    headers = [line for line in out.data["diff"].splitlines() if line.startswith("@@")]
    # T was old line 5 and 31; two lines are added at each.
    assert headers == ["@@ -2,7 +2,9 @@", "@@ -28,7 +30,9 @@"]


async def test_an_edit_inside_a_line_and_one_that_joins_lines(edit, read, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("a\nb c d\ne\nf\n")
    await read(path="f.txt")
    out = await edit(path="f.txt", old_string="c", new_string="C")
    assert out.data["diff"].splitlines()[2:] == [
        "@@ -1,4 +1,4 @@",
        " a",
        "-b c d",
        "+b C d",
        " e",
        " f",
    ]
    out = await edit(path="f.txt", old_string="d\n", new_string="d ")
    assert out.data["diff"].splitlines()[2:] == [
        "@@ -1,4 +1,3 @@",
        " a",
        "-b C d",
        "-e",
        "+b C d e",
        " f",
    ]
    assert path.read_text() == "a\nb C d e\nf\n"


async def test_the_permission_prompt_previews_the_diff_the_edit_makes(
    edit, read, tmp_path: Path
) -> None:
    """The prompt's preview matches as the tool does (a CRLF file, with plain newlines in
    old_string) and shows what the tool then returns."""
    path = tmp_path / "win.txt"
    path.write_bytes(b"caf\xe9 first line of a latin-1 file\r\nsecond\r\nthird\r\n")
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    preview = edit_file.preview_diff(text, "second\nthird", "2nd\n3rd", False, "win.txt")
    await read(path="win.txt")
    out = await edit(path="win.txt", old_string="second\nthird", new_string="2nd\n3rd")
    assert preview == out.data["diff"]
    assert preview is not None
    assert preview.endswith(" caf\\xe9 first line of a latin-1 file\n-second\n-third\n+2nd\n+3rd")
    assert path.read_bytes() == b"caf\xe9 first line of a latin-1 file\r\n2nd\r\n3rd\r\n"
    assert edit_file.preview_diff(text, "absent", "x", False, "win.txt") is None
