"""A full data disk under the command checkpoints, for real (a 64 KiB tmpfs): the shadow cannot
keep a file's content. Nothing raises into the command, the workspace is untouched, the change
is said as not rewindable (``why="store"``), and once there is room the file is kept again —
the next change is rewindable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.records import FileBefore
from agent_tui.core.checkpoints.scan import scan_workspace
from agent_tui.core.checkpoints.shadow import Shadow
from agent_tui.core.checkpoints.shadow_index import load_shadow, save_shadow


def _fill(disk: Path, leave: int) -> Path:
    filler = disk / "filler"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    filler.write_bytes(b"x" * max(0, free - leave))
    return filler


def test_a_full_data_disk_says_not_rewindable_and_recovers(
    tiny_disk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_DATA_DIR", str(tiny_disk / "data"))
    work = tmp_path / "work"
    work.mkdir()
    first = os.urandom(24_000)  # incompressible: no room for it on the full disk
    (work / "a.bin").write_bytes(first)
    blobs = BlobStore(tiny_disk / "data" / "blobs")
    blobs.put(b"warm", durable=False)  # the store's directories exist
    filler = _fill(tiny_disk, leave=8192)
    shadow = Shadow(str(work), blobs)
    path = str(work / "a.bin")
    try:
        before = scan_workspace(str(work))
        shadow.refresh(before)  # no room: read, not kept
        assert shadow.files[path].unkept == "store"

        second = os.urandom(24_000)
        (work / "a.bin").write_bytes(second)
        after = scan_workspace(str(work))
        records, unkept = shadow.capture(before, after, "t1")
        assert [(c.path, c.why) for c in unkept] == [(path, "store")]
        assert not [r for r in records if isinstance(r, FileBefore)]
        assert (work / "a.bin").read_bytes() == second  # the workspace is the command's

        save_shadow_to = tmp_path / "shadow.json"
        save_shadow(shadow, save_shadow_to)  # what was not stored is not saved as kept
        again = Shadow(str(work), blobs)
        assert load_shadow(again, save_shadow_to) == 0
        again.close()

        filler.unlink()  # room again: the next refresh keeps it, the next change rewinds
        shadow.refresh(after)
        assert shadow.files[path].unkept is None
        (work / "a.bin").write_bytes(b"third\n")
        later = scan_workspace(str(work))
        records, unkept = shadow.capture(after, later, "t2")
        assert unkept == []
        (kept_before,) = [r for r in records if isinstance(r, FileBefore)]
        assert kept_before.blob is not None
        assert blobs.get(kept_before.blob) == second
    finally:
        shadow.close()
        blobs.release()
