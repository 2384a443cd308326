"""Red team: the shadow reads workspace files by name, after a scan. A job racing it (a
background shell the model started) swaps a directory it scanned for a link to a directory
outside the workspace. O_NOFOLLOW guards only the last name, so the shadow would read the
outside file (a key) as the workspace file's content, and a rewind would write that into the
workspace, where the model reads it. The shadow must read nothing through the link."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.scan import scan_workspace
from agent_tui.core.checkpoints.shadow import Shadow

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY----- canary\n"


def _blobs_hold(store: Path, needle: bytes) -> bool:
    return any(
        needle in p.read_bytes() for p in store.rglob("*") if p.is_file() and not p.is_symlink()
    )


def _setup(tmp_path: Path) -> tuple[Path, Path, Shadow, Path]:
    root = tmp_path / "work"
    (root / "conf").mkdir(parents=True)
    (root / "conf" / "id_ed25519").write_bytes(b"placeholder\n")
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id_ed25519").write_bytes(SECRET)
    store = tmp_path / "blobs"
    return root, outside, Shadow(str(root), BlobStore(store)), store


def test_a_directory_swapped_for_a_link_after_the_scan_is_not_read_through(
    tmp_path: Path,
) -> None:
    root, outside, shadow, store = _setup(tmp_path)
    scan = scan_workspace(str(root), ignores=True)
    os.rename(root / "conf", tmp_path / "conf.real")  # the race: after the scan, before reads
    os.symlink(outside, root / "conf")
    shadow.refresh(scan)
    kept = shadow.files.get(str(root / "conf" / "id_ed25519"))
    assert kept is None or kept.blob is None  # not kept through the link
    assert not _blobs_hold(store, b"canary")


def test_a_workspace_reached_through_a_link_is_still_kept(tmp_path: Path) -> None:
    """The check compares against where the workspace really is: a workspace opened by a
    path with a link in it (``/home/u/proj`` -> ``/data/proj``) keeps its files as before."""
    root, _, _, _ = _setup(tmp_path)
    link = tmp_path / "via-link"
    os.symlink(root, link)
    store = tmp_path / "blobs2"
    shadow = Shadow(str(link), BlobStore(store))
    shadow.refresh(scan_workspace(str(link), ignores=True))
    kept = shadow.files.get(str(link / "conf" / "id_ed25519"))
    assert kept is not None
    assert kept.blob is not None
    assert shadow.blobs.get(kept.blob) == b"placeholder\n"
