"""One read-deny for grep, glob and list_dir: what ``ctx.reads`` withholds, none of them shows.

A tiny guard stands in for the permission layer's: it withholds every file named ``.env`` and
everything outside the working directory (as ``mcp serve`` bounds reads to its directory).
Symlinks inside the tree are judged by where they point.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.core.tools.builtin import glob_tool, grep_tool, list_dir
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.withheld import Withheld
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard

ENV_RULE = "the rule read_file(.env)"
OUTSIDE = "outside the directory served"
SECRET = "API_KEY=SECRET-3f1c"
CANARY = "API_KEY=CANARY-77aa"


class Guard:
    """Withholds ``.env`` files and whatever resolves outside ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.asked: list[Path] = []

    def withheld(self, path: Path) -> str | None:
        self.asked.append(path)
        if path.name == ".env":
            return ENV_RULE
        if not path.is_relative_to(self.root):
            return OUTSIDE
        return None


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """work/ (the cwd) with a .env, ordinary files, and links; outside/ next to it."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "src").mkdir(parents=True)
    outside.mkdir()
    (work / ".env").write_text(SECRET + "\n")
    (work / "app.py").write_text("API_KEY = os.environ['API_KEY']\n")
    (work / "src" / "config.py").write_text("API_KEY=from-settings\n")
    (outside / "canary.txt").write_text(CANARY + "\n")
    return work


def run(tool: Tool[Any], root: Path, guard: ReadGuard | None = None) -> Any:
    ctx = ToolContext(cwd=root, reads=Guard(root) if guard is None else guard)

    async def call(**arguments: Any) -> ToolOutput:
        return await tool.call(tool.input_model.model_validate(arguments), ctx)

    return call


def rows(content: str) -> list[str]:
    return [line for line in content.split("\n") if not line.startswith("[")]


# -- grep -------------------------------------------------------------------------------------


async def test_grep_over_the_tree_never_shows_a_withheld_file(root: Path) -> None:
    out = await run(grep_tool.TOOL, root)(pattern="API_KEY")
    assert SECRET not in out.content
    assert rows(out.content) == [
        "app.py:1:API_KEY = os.environ['API_KEY']",
        "src/config.py:1:API_KEY=from-settings",
    ]
    assert out.content.endswith(
        f"[2 match(es) in 2 file(s); 2 file(s) searched; 1 file(s) withheld by {ENV_RULE}, "
        "not searched]"
    )
    assert out.data["withheld"] == 1


async def test_grep_judges_a_symlink_by_its_target(root: Path) -> None:
    (root / "innocent.txt").symlink_to(".env")
    (root / "notes.txt").symlink_to(root.parent / "outside" / "canary.txt")
    (root / "also.py").symlink_to("app.py")  # an allowed target is searched as before
    out = await run(grep_tool.TOOL, root)(pattern="API_KEY")
    assert SECRET not in out.content
    assert CANARY not in out.content
    assert "also.py:1:API_KEY" in out.content
    assert f"3 file(s) withheld: 2 by {ENV_RULE}, 1 by {OUTSIDE}, not searched]" in out.content


async def test_grep_without_matches_says_what_it_did_not_search(root: Path) -> None:
    out = await run(grep_tool.TOOL, root)(pattern="absent")
    assert out.content == (
        "No matches for 'absent' in . "
        f"(2 file(s) searched; 1 file(s) withheld by {ENV_RULE}, not searched)."
    )


async def test_grep_truncated_output_still_says_what_was_withheld(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grep_tool, "MAX_MATCHES", 1)
    (root / "0.env.txt").write_text("x\n")
    out = await run(grep_tool.TOOL, root)(pattern="API_KEY")
    assert f"there are more (1 file(s) withheld by {ENV_RULE}, not searched)" in out.content


@pytest.mark.parametrize("path", [".env", "innocent.txt"])
async def test_grep_on_a_withheld_file_is_refused(root: Path, path: str) -> None:
    (root / "innocent.txt").symlink_to(".env")
    with pytest.raises(ToolFailure) as failure:
        await run(grep_tool.TOOL, root)(pattern="API", path=path)
    info = failure.value.info
    assert info.code == "withheld"
    assert info.message == f"{path} is withheld by {ENV_RULE}: its content cannot be searched."
    assert "do not try to reach its content another way" in info.next_step
    assert SECRET not in info.to_model_text()


async def test_grep_glob_filter_withholds_too(root: Path) -> None:
    out = await run(grep_tool.TOOL, root)(pattern="API", glob=".env")
    assert out.content == (
        f"No matches for 'API' in . (0 file(s) searched; 1 file(s) withheld by {ENV_RULE}, "
        "not searched)."
    )


# -- glob -------------------------------------------------------------------------------------


async def test_glob_leaves_withheld_files_out_and_says_so(root: Path) -> None:
    (root / "innocent.txt").symlink_to(".env")
    (root / "notes.txt").symlink_to(root.parent / "outside" / "canary.txt")
    out = await run(glob_tool.TOOL, root)(pattern="**/*")
    assert sorted(rows(out.content)) == ["app.py", "src/config.py"]
    assert out.content.endswith(
        f"[2 matching files, newest first; 3 file(s) withheld: 2 by {ENV_RULE}, 1 by "
        f"{OUTSIDE}, not listed]"
    )
    assert out.data == {
        "pattern": "**/*",
        "path": str(root),
        "count": 2,
        "withheld": 3,
        "ignored": 0,
    }


async def test_glob_with_only_withheld_matches(root: Path) -> None:
    out = await run(glob_tool.TOOL, root)(pattern=".env*")
    assert out.content.startswith("No files match '.env*' in . (skipped: ")
    assert out.content.endswith(f"; 1 file(s) withheld by {ENV_RULE}, not listed).")


# -- list_dir ---------------------------------------------------------------------------------


async def test_list_dir_lists_withheld_entries_marked(root: Path) -> None:
    (root / "innocent.txt").symlink_to(".env")
    (root / "outlink").symlink_to(root.parent / "outside")
    out = await run(list_dir.TOOL, root)()
    assert out.content.split("\n") == [
        "dir         -  src/",
        f"file       20  .env  [withheld: {ENV_RULE}]",
        "file       32  app.py",
        f"link        -  innocent.txt -> .env  [withheld: {ENV_RULE}]",
        f"link        -  outlink -> {root.parent / 'outside'}  [withheld: {OUTSIDE}]",
        "[5 entries in ./]",
    ]
    assert out.data["withheld"] == 3


@pytest.mark.parametrize(
    ("tool", "arguments", "consequence"),
    [
        (list_dir.TOOL, {}, "it cannot be listed"),
        (glob_tool.TOOL, {"pattern": "*"}, "it cannot be searched"),
        (grep_tool.TOOL, {"pattern": "API"}, "its content cannot be searched"),
    ],
)
async def test_a_withheld_directory_as_path_is_refused(
    root: Path, tool: Tool[Any], arguments: dict[str, str], consequence: str
) -> None:
    (root / "outlink").symlink_to(root.parent / "outside")
    with pytest.raises(ToolFailure) as failure:
        await run(tool, root)(path="outlink", **arguments)
    info = failure.value.info
    assert info.code == "withheld"
    assert info.message == f"outlink is withheld by {OUTSIDE}: {consequence}."
    assert "canary" not in info.to_model_text()


# -- without a guard, and the note itself ------------------------------------------------------


async def test_without_a_guard_nothing_is_withheld(root: Path) -> None:
    out = await run(grep_tool.TOOL, root, NO_GUARD)(pattern="API_KEY")
    assert f".env:1:{SECRET}" in out.content
    assert "withheld" not in out.content
    out = await run(glob_tool.TOOL, root, NO_GUARD)(pattern="*")
    assert "withheld" not in out.content
    assert ".env" in rows(out.content)
    out = await run(list_dir.TOOL, root, NO_GUARD)()
    assert "withheld" not in out.content


async def test_the_guard_is_asked_about_resolved_paths(root: Path) -> None:
    (root / "innocent.txt").symlink_to(".env")
    guard = Guard(root)
    await run(grep_tool.TOOL, root, guard)(pattern="x")
    assert root / ".env" in guard.asked
    assert root / "innocent.txt" not in guard.asked
    assert all(path.is_absolute() and path == path.resolve() for path in guard.asked)


# -- ignore files ------------------------------------------------------------------------------


@pytest.mark.parametrize("include_ignored", [False, True])
async def test_no_ignore_setting_brings_back_a_withheld_file(
    root: Path, include_ignored: bool
) -> None:
    # a .gitignore that re-includes .env, one that ignores it, and a link to it in an ignored
    # directory: whatever the ignore settings, the rule withholds it
    (root / ".gitignore").write_text("build/\n.env\n!.env\n")
    (root / "src" / ".gitignore").write_text(".env\n")
    (root / "src" / ".env").write_text(SECRET + "\n")
    (root / "build").mkdir()
    (root / "build" / "copy.txt").symlink_to("../.env")
    calls = ((grep_tool.TOOL, {"pattern": "API_KEY"}), (glob_tool.TOOL, {"pattern": "**/*"}))
    for tool, args in calls:
        out = await run(tool, root)(**args, include_ignored=include_ignored)
        assert SECRET not in out.content
        paths = [row.split(":", 1)[0] for row in rows(out.content)]
        assert not [p for p in paths if p.endswith(".env") or p.endswith("copy.txt")], paths
    out = await run(grep_tool.TOOL, root)(pattern="API_KEY", include_ignored=include_ignored)
    assert out.data["withheld"] == (3 if include_ignored else 1)  # else 2 of them are ignored
    assert out.data["ignored"] == (0 if include_ignored else 2)


async def test_a_withheld_ignore_file_is_not_read(root: Path) -> None:
    # what an ignore file makes a walk skip is its content too: a withheld one is not used
    (root.parent / "outside" / "ignore-list").write_text("*.py\n")
    (root / ".gitignore").symlink_to(root.parent / "outside" / "ignore-list")
    out = await run(glob_tool.TOOL, root)(pattern="**/*.py")
    assert sorted(rows(out.content)) == ["app.py", "src/config.py"]
    assert "ignored" not in out.content
    # without a guard the same file is honoured
    out = await run(glob_tool.TOOL, root, NO_GUARD)(pattern="**/*.py")
    assert out.content.startswith("No files match '**/*.py'")
    assert "2 ignored matching files skipped (.gitignore)" in out.content


def test_the_note_groups_reasons_and_names_at_most_three() -> None:
    withheld = Withheld(NO_GUARD)
    assert withheld.note() == ""
    withheld.counts = Counter({"rule a": 1})
    assert withheld.note() == "1 file(s) withheld by rule a"
    withheld.counts = Counter({"rule a": 1, "rule b": 4, "rule c": 2, "rule d": 2, "rule e": 1})
    assert withheld.note() == (
        "10 file(s) withheld: 4 by rule b, 2 by rule c, 2 by rule d, 2 by 2 other reason(s)"
    )
