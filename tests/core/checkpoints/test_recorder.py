"""The file tools and the turn's checkpoint: kept before the write, or no write at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.records import CheckpointEntry, FileAfter, FileBefore
from agent_tui.core.checkpoints.turn import TurnRecorder
from agent_tui.core.tools import PreparedCall
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import content_digest


async def _write(ctx: ToolContext, path: str, content: str) -> str | None:
    registry = default_registry()
    prepared = registry.prepare("write_file", json.dumps({"path": path, "content": content}))
    assert isinstance(prepared, PreparedCall)
    outcome = await registry.run(prepared, ctx)
    return outcome.error.code if outcome.error is not None else None


async def test_write_file_tells_the_checkpoint_before_and_after(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("old\n")
    records: list[CheckpointEntry] = []
    blobs = BlobStore(tmp_path / "blobs")
    recorder = TurnRecorder("t1", blobs, records.append)
    ctx = ToolContext(cwd=tmp_path, changes=recorder)
    assert await _write(ctx, "f.txt", "new\n") is None
    assert await _write(ctx, "f.txt", "newer\n") is None
    before, after1, after2 = records
    assert isinstance(before, FileBefore)
    assert before.path == str(tmp_path / "f.txt")
    assert blobs.get(before.blob or "") == b"old\n"
    assert isinstance(after1, FileAfter)
    assert after1.digest == content_digest(b"new\n")
    assert isinstance(after2, FileAfter)
    assert after2.digest == content_digest(b"newer\n")


async def test_no_write_when_the_old_content_cannot_be_kept(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("precious\n")

    def full(_: CheckpointEntry) -> None:
        raise OSError(28, "No space left on device")

    recorder = TurnRecorder("t1", BlobStore(tmp_path / "blobs"), full)
    ctx = ToolContext(cwd=tmp_path, changes=recorder)
    assert await _write(ctx, "f.txt", "clobbered\n") == "checkpoint_failed"
    assert (tmp_path / "f.txt").read_text() == "precious\n"


def test_blobs_are_stored_once_and_checked(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "b")
    digest = blobs.put(b"same")
    assert blobs.put(b"same") == digest
    assert len(list((tmp_path / "b").rglob("*"))) == 2  # one directory, one blob
    blobs.path(digest).write_bytes(b"tampered")
    with pytest.raises(ValueError, match="damaged"):
        blobs.get(digest)
