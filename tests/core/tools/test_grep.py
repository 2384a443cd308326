from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent_tui.core.tools.builtin import grep_tool
from agent_tui.core.tools.builtin.grep_tool import TOOL
from agent_tui.core.tools.errors import ToolFailure


@pytest.fixture
def grep(call):  # type: ignore[no-untyped-def]
    return call(TOOL)


def make(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def rows(content: str) -> list[str]:
    return [line for line in content.split("\n") if not line.startswith("[")]


async def test_file_line_text_output(grep, tmp_path: Path) -> None:
    make(
        tmp_path, {"a.py": "import os\ndef main():\n    pass\n", "src/b.py": "def helper(): ...\n"}
    )
    out = await grep(pattern=r"def \w+\(")
    assert rows(out.content) == ["a.py:2:def main():", "src/b.py:1:def helper(): ..."]
    assert out.content.endswith("[2 match(es) in 2 file(s); 2 file(s) searched]")


async def test_ignore_case(grep, tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "TODO one\ntodo two\n"})
    assert len(rows((await grep(pattern="todo")).content)) == 1
    assert len(rows((await grep(pattern="todo", ignore_case=True)).content)) == 2


async def test_glob_filters_by_name_or_relative_path(grep, tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "hit\n", "b.txt": "hit\n", "c.md": "hit\n", "src/d.py": "hit\n"})
    assert rows((await grep(pattern="hit", glob="*.py")).content) == [
        "a.py:1:hit",
        "src/d.py:1:hit",
    ]
    assert rows((await grep(pattern="hit", glob="*.{py,txt}")).content) == [
        "a.py:1:hit",
        "b.txt:1:hit",
        "src/d.py:1:hit",
    ]
    assert rows((await grep(pattern="hit", glob="src/*.py")).content) == ["src/d.py:1:hit"]


async def test_skips_binary_files_git_and_dependencies(grep, tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "a.txt": "needle\n",
            "blob.bin": b"needle\x00\x01\x02",
            ".git/config": "needle\n",
            "node_modules/x/i.js": "needle\n",
        },
    )
    out = await grep(pattern="needle")
    assert rows(out.content) == ["a.txt:1:needle"]
    assert "skipped 1 binary file(s)" in out.content


async def test_searching_a_single_file(grep, tmp_path: Path) -> None:
    make(tmp_path, {"src/a.py": "x = 1\ny = 2\n"})
    assert rows((await grep(pattern="y", path="src/a.py")).content) == ["src/a.py:2:y = 2"]


async def test_crlf_lines_match_end_anchors(grep, tmp_path: Path) -> None:
    make(tmp_path, {"w.txt": b"alpha\r\nbeta\r\n"})
    assert rows((await grep(pattern="beta$")).content) == ["w.txt:2:beta"]


async def test_invalid_regex_is_a_structured_error(grep) -> None:
    with pytest.raises(ToolFailure) as failure:
        await grep(pattern="foo(")
    info = failure.value.info
    assert info.code == "invalid_pattern"
    assert "missing ), unterminated subpattern at position 3" in info.message
    assert "escape" in info.next_step


async def test_caps_matches_with_a_note_on_narrowing(grep, tmp_path: Path) -> None:
    make(tmp_path, {"many.txt": "match\n" * 250, "z.txt": "match\n"})
    out = await grep(pattern="match")
    lines = rows(out.content)
    assert len(lines) == grep_tool.MAX_MATCHES
    assert lines[-1] == "many.txt:200:match"
    assert "there are more" in out.content
    assert "glob=" in out.content
    assert out.data["truncated"] is True


async def test_long_lines_are_cut(grep, tmp_path: Path) -> None:
    make(tmp_path, {"min.js": "var a=1;" + "x" * 1000 + "\n"})
    (line,) = rows((await grep(pattern="var a")).content)
    assert line == "min.js:1:var a=1;" + "x" * 292 + "… [+708 chars]"


async def test_no_match_and_missing_path(grep, tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "hello\n"})
    out = await grep(pattern="absent")
    assert out.is_error is False
    assert out.content == "No matches for 'absent' in . (1 file(s) searched)."
    with pytest.raises(ToolFailure) as failure:
        await grep(pattern="x", path="nope")
    assert failure.value.info.code == "not_found"


@pytest.mark.parametrize(
    ("pattern", "needles"),
    [
        (r"def \w+_handler", ("_handler",)),
        ("TODO|FIXME", ("TODO", "FIXME")),
        (r"print\(", ("print(",)),
        ("(?i)todo", ()),
        (r"TODO|\w+", ()),
        (r"(a+)+$", ()),
        ("x(?:ab|cd)yz", ("yz",)),
    ],
)
def test_literal_needles_of_a_pattern(pattern: str, needles: tuple[str, ...]) -> None:
    assert grep_tool.compile_pattern(pattern, ignore_case=False).needles == needles


def test_ignore_case_has_no_needles() -> None:
    assert grep_tool.compile_pattern("todo", ignore_case=True).needles == ()


def test_a_line_without_the_needles_never_matches() -> None:
    # Lines without any needle are not searched: that must never hide a match.
    rng = random.Random(3)
    atoms = ["a", "b", "ab", "(a|b)", "a*", "b+", "[ab]", r"\w", "(?:ab)?", "|", "^", "$", "."]
    for _ in range(2000):
        pattern = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 6)))
        try:
            compiled = grep_tool.compile_pattern(pattern, ignore_case=False)
        except ToolFailure:
            continue
        for _ in range(10):
            line = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 8)))
            if compiled.needles and not any(n in line for n in compiled.needles):
                found = compiled.searcher.search(line, concurrent=False, timeout=1.0)
                assert found is None, (pattern, line)


async def test_python_re_syntax_works(grep, tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "value = value\nx = y\n", "b.py": "price: $5\n"})
    assert rows((await grep(pattern=r"(?P<name>\w+) = (?P=name)")).content) == [
        "a.py:1:value = value"
    ]
    assert rows((await grep(pattern=r"(?<=\$)\d")).content) == ["b.py:1:price: $5"]
    assert rows((await grep(pattern=r"^X = Y$", ignore_case=True)).content) == ["a.py:2:x = y"]


async def test_conflicting_inline_flags_are_an_invalid_pattern(grep) -> None:
    # regex raises ValueError here, not regex.error: still a structured error, no traceback.
    with pytest.raises(ToolFailure) as failure:
        await grep(pattern="(?V0V1)a")
    assert failure.value.info.code == "invalid_pattern"
    assert failure.value.info.message == (
        "Invalid regular expression '(?V0V1)a': "
        "VERSION0 and VERSION1 flags are mutually incompatible."
    )
