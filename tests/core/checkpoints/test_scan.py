"""The workspace scan: stamps, what it skips, where it stops, and the difference of two."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.checkpoints.scan import changes_between, scan_workspace, stamp_of


def _tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("a")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    (root / ".agent-spill").mkdir()
    (root / ".agent-spill" / "x.txt").write_text("spilled")
    (root / "top.txt").write_text("top")


def test_scan_skips_git_and_the_given_directories(tmp_path: Path) -> None:
    _tree(tmp_path)
    scan = scan_workspace(str(tmp_path), skip=[str(tmp_path / ".agent-spill")])
    assert sorted(os.path.relpath(p, tmp_path) for p in scan.files) == ["src/a.py", "top.txt"]
    assert not scan.truncated


def test_changes_created_modified_deleted_and_in_new_directories(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = scan_workspace(str(tmp_path))
    (tmp_path / "top.txt").write_text("longer now")
    (tmp_path / "src" / "a.py").unlink()
    (tmp_path / "build" / "deep").mkdir(parents=True)
    (tmp_path / "build" / "deep" / "out.o").write_text("obj")
    after = scan_workspace(str(tmp_path))
    found = [(os.path.relpath(c.path, tmp_path), c.change) for c in changes_between(before, after)]
    assert found == [
        ("build/deep/out.o", "created"),
        ("src/a.py", "deleted"),
        ("top.txt", "modified"),
    ]


def test_ignored_stamps_are_the_agents_own_writes(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = scan_workspace(str(tmp_path))
    target = tmp_path / "top.txt"
    target.write_text("by the agent")
    st = target.stat()
    after = scan_workspace(str(tmp_path))
    assert changes_between(before, after, ignore={str(target): stamp_of(st)}) == []
    target.write_text("and then by a command")
    later = scan_workspace(str(tmp_path))
    ignore = {str(target): stamp_of(st)}
    assert [c.change for c in changes_between(before, later, ignore=ignore)] == ["modified"]


def test_a_bounded_scan_stops_and_compares_only_what_it_reached(tmp_path: Path) -> None:
    for n in range(30):
        (tmp_path / f"d{n:02}").mkdir()
        for m in range(5):
            (tmp_path / f"d{n:02}" / f"f{m}").write_text("x")
    before = scan_workspace(str(tmp_path), limit=50)
    assert before.truncated
    assert before.entries == 50
    after = scan_workspace(str(tmp_path), limit=50)
    # nothing changed: whatever the two scans reached, no spurious creations or deletions
    assert changes_between(before, after) == []
    full = scan_workspace(str(tmp_path))
    assert len(full.files) == 150
    assert not full.truncated


def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("s")
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(outside)
    scan = scan_workspace(str(work))
    assert list(scan.files) == [str(work / "link")]
