from __future__ import annotations

import os
import random
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path

import pytest

from agent_tui.core.tools.builtin import glob_tool
from agent_tui.core.tools.builtin.glob_tool import TOOL
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.walk import expand_braces, glob_regex


@pytest.fixture
def glob(call):  # type: ignore[no-untyped-def]
    return call(TOOL)


def make(root: Path, *names: str, mtime: float | None = None) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
        if mtime is not None:
            os.utime(path, (mtime, mtime))


def listed(content: str) -> list[str]:
    return [line for line in content.split("\n") if not line.startswith("[")]


async def test_recursive_pattern_skips_git_and_dependencies(glob, tmp_path: Path) -> None:
    make(tmp_path, "a.py", "src/b.py", "src/deep/c.py", "src/d.txt")
    make(tmp_path, ".git/hooks/x.py", "node_modules/m/i.py", ".venv/lib/s.py")
    out = await glob(pattern="**/*.py")
    assert sorted(listed(out.content)) == ["a.py", "src/b.py", "src/deep/c.py"]
    assert out.content.endswith("[3 matching files, newest first]")


async def test_single_star_stays_in_one_level(glob, tmp_path: Path) -> None:
    make(tmp_path, "a.py", "src/b.py", "src/deep/c.py")
    assert listed((await glob(pattern="*.py")).content) == ["a.py"]
    assert listed((await glob(pattern="src/*.py")).content) == ["src/b.py"]
    assert listed((await glob(pattern="*/*/*.py")).content) == ["src/deep/c.py"]


async def test_path_argument_and_braces(glob, tmp_path: Path) -> None:
    make(tmp_path, "web/a.ts", "web/b.tsx", "web/c.js", "web/sub/d.ts")
    out = await glob(pattern="**/*.{ts,tsx}", path="web")
    assert sorted(listed(out.content)) == ["web/a.ts", "web/b.tsx", "web/sub/d.ts"]


async def test_sorted_newest_first(glob, tmp_path: Path) -> None:
    make(tmp_path, "old.py", mtime=1_000_000)
    make(tmp_path, "new.py", mtime=3_000_000)
    make(tmp_path, "mid.py", mtime=2_000_000)
    assert listed((await glob(pattern="*.py")).content) == ["new.py", "mid.py", "old.py"]


async def test_capped_with_a_note(glob, tmp_path: Path) -> None:
    make(tmp_path, *(f"f{i:03}.txt" for i in range(510)))
    out = await glob(pattern="*.txt")
    rows = out.content.split("\n")
    assert len(rows) == glob_tool.MAX_RESULTS + 1
    assert rows[-1].startswith("[500 of 510 matching files shown")
    assert "10 more not shown" in rows[-1]
    assert out.data["count"] == 510


async def test_no_match_is_not_an_error(glob, tmp_path: Path) -> None:
    make(tmp_path, "a.py")
    out = await glob(pattern="**/*.rs")
    assert out.is_error is False
    assert out.content.startswith("No files match '**/*.rs' in .")


async def test_an_explicit_skipped_directory_can_be_searched(glob, tmp_path: Path) -> None:
    make(tmp_path, ".git/config", ".git/hooks/pre-commit")
    out = await glob(pattern="**/*", path=".git")
    assert sorted(listed(out.content)) == [".git/config", ".git/hooks/pre-commit"]


async def test_bad_paths(glob, tmp_path: Path) -> None:
    make(tmp_path, "a.py")
    with pytest.raises(ToolFailure) as failure:
        await glob(pattern="*", path="a.py")
    assert failure.value.info.code == "not_a_directory"
    with pytest.raises(ToolFailure) as failure:
        await glob(pattern="*", path="missing")
    assert failure.value.info.code == "not_found"


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/x", "x", True),
        ("**/x", "a/b/x", True),
        ("*", "a/b", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/1/2/b", True),
        ("f?.py", "f1.py", True),
        ("f[!0-4].py", "f5.py", True),
        ("f[!0-4].py", "f3.py", False),
        ("*.{js,ts}", "a.ts", True),
        ("*.{js,ts}", "a.rs", False),
        ("a+b(c).txt", "a+b(c).txt", True),
    ],
)
def test_glob_regex(pattern: str, path: str, matches: bool) -> None:
    assert (glob_regex(pattern).fullmatch(path) is not None) is matches


def test_expand_braces_nested() -> None:
    assert expand_braces("{a,b{c,d}}.x") == ["a.x", "bc.x", "bd.x"]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/**/x", "x", True),
        ("**/**/x", "a/b/x", True),
        ("a/**/**/b", "a/b", True),
        ("a/**/**/b", "a/1/b", True),
        ("**.py", "a/b.py", False),  # as in git: a ** inside a segment is a *
        ("**.py", "b.py", True),
        ("a**b", "axb", True),
        ("a**b", "a/b", False),
        ("a[!x]b", "a/b", False),
        ("**/a/**/b", "x/a/y/a/z/b", True),
        ("**/a/**/b", "a/b/c", False),
        ("*a*b", "xaayb", True),
    ],
)
def test_globstar_segments_and_classes(pattern: str, path: str, matches: bool) -> None:
    assert (glob_regex(pattern).fullmatch(path) is not None) is matches


@pytest.mark.parametrize(
    ("pattern", "miss", "hit"),
    [
        ("/".join(["**"] * 12) + "/x", "a/" * 30 + "y", "a/" * 30 + "x"),
        ("*a" * 12 + "*b", "a" * 250, "a" * 250 + "b"),
        ("**/a/" * 10 + "**/b", "a/" * 1000 + "c", "a/" * 1000 + "b"),
        ("**/" + "*a" * 8 + "*b/**/c", ("a" * 200 + "/") * 20 + "d", "a/" * 20 + "a" * 8 + "b/c"),
    ],
)
def test_hostile_globs_answer_at_once_on_long_paths(pattern: str, miss: str, hit: str) -> None:
    # Translated naively, each of these backtracks for minutes on the path that does not
    # match (the first took 400 s on a 61-character path), holding the GIL all along: a
    # regression hangs this test.
    assert glob_regex(pattern).fullmatch(miss) is None
    assert glob_regex(pattern).fullmatch(hit) is not None


def _reference_match(pattern: str, path: str) -> bool:
    """Glob semantics spelled out segment by segment (no regex), to check the translation."""
    segments: list[str | None] = [None if s == "**" else s for s in pattern.split("/")]
    parts = path.split("/")

    @cache
    def match(i: int, j: int) -> bool:
        if i == len(segments):
            return j == len(parts)
        if segments[i] is None:
            if i == len(segments) - 1:  # a final ** takes the rest (but not nothing after "a/")
                return i == 0 or j < len(parts)
            return any(match(i + 1, k) for k in range(j, len(parts)))
        return j < len(parts) and fnmatchcase(parts[j], segments[i] or "") and match(i + 1, j + 1)

    return match(0, 0)


def test_translation_agrees_with_a_reference_matcher() -> None:
    rng = random.Random(7)
    atoms = ["a", "b", "*", "?", "/", "**", "[ab]", "[!a]", "**/", "/**/"]
    for _ in range(3000):
        pattern = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 6)))
        regex = glob_regex(pattern)
        for _ in range(10):
            path = "".join(rng.choice("ab/") for _ in range(rng.randint(1, 9)))
            expected = _reference_match(pattern, path)
            assert (regex.fullmatch(path) is not None) is expected, (pattern, path)
