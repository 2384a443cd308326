"""git's index read without git, checked against git's own listing of the same index
(versions 2, 3 with an intent-to-add entry, 4 with path compression), and damaged indexes
refused as such: by the shared reader and by its permission-side user."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions.git_index import parse_index
from agent_tui.core.workspace.git_index_file import MALFORMED, read_entries


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def _repo(tmp_path: Path, version: int) -> Path:
    root = tmp_path / f"v{version}"
    for n in range(30):
        path = root / "src" / f"pkg{n % 3}" / f"module_{n:02}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"x = {n}\n")
    _git(root.parent, "init", "-q", str(root))
    _git(root, "add", "-A")
    if version >= 3:
        (root / "later.txt").write_text("later\n")
        _git(root, "add", "-N", "later.txt")  # intent-to-add: an extended flag (v3+)
    _git(root, "update-index", "--index-version", str(version))
    return root


@pytest.mark.parametrize("version", [2, 3, 4])
def test_entries_are_gits_own(tmp_path: Path, version: int) -> None:
    root = _repo(tmp_path, version)
    data = (root / ".git" / "index").read_bytes()
    entries, _ = read_entries(data, len(data) - 20, 20)
    staged = [line.split(None, 3) for line in _git(root, "ls-files", "-s").splitlines()]
    assert [(e.path.decode(), e.oid) for e in entries] == [(s[3], s[1]) for s in staged]
    assert parse_index(data) == tuple(s[3] for s in staged)
    if version >= 3:
        (later,) = [e for e in entries if e.path == b"later.txt"]
        assert later.extended  # intent-to-add


@pytest.mark.parametrize("version", [2, 4])
def test_a_damaged_index_is_refused(tmp_path: Path, version: int) -> None:
    data = (_repo(tmp_path, version) / ".git" / "index").read_bytes()
    for cut in (5, 20, len(data) // 2, len(data) - 30):
        with pytest.raises(MALFORMED):
            read_entries(data[:cut], cut, 20)
        assert parse_index(data[:cut]) is None
    assert parse_index(b"DIRC" + bytes(8) + data[12:]) is None  # version 0
