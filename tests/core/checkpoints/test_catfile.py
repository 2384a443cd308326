"""The shadow's long-lived ``git cat-file --batch`` (issue 44): one process for a session's
captures, started again when it died, killed when it hangs and when the session closes. Real
git, real repositories; a hang is a real one (a loose object replaced by a FIFO: git blocks
opening it)."""

from __future__ import annotations

import os
import time
import zlib
from pathlib import Path

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.catfile import CatFile
from agent_tui.core.checkpoints.gitbase import git_oid
from agent_tui.core.checkpoints.records import FileBefore
from agent_tui.core.checkpoints.scan import Scan, scan_workspace
from agent_tui.core.checkpoints.shadow import Shadow
from agent_tui.core.conversation.session_store import SessionStore

from .helpers import run
from .test_git_backed_shadow import DEADLINE, _agent, _object, _shadow, checkout

DEADLINE_S = DEADLINE


def _gone(pid: int) -> bool:
    """Whether process ``pid`` no longer runs (reaped, or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_gone(pid: int) -> bool:
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def _command(shadow: Shadow, before: Scan, root: Path, name: str, text: str) -> Scan:
    """A "command" rewriting ``name``; the capture checked: its pre-image is git's."""
    old = (root / name).read_bytes()
    (root / name).write_text(text)
    after = scan_workspace(str(root), ignores=True)
    records, unkept = shadow.capture(before, after, "t")
    assert not unkept
    (pre,) = [r for r in records if isinstance(r, FileBefore)]
    assert pre.blob is not None
    assert shadow.blobs.get(pre.blob) == old
    return after


def _based(tmp_path: Path) -> tuple[Path, Shadow, Scan]:
    root = checkout(tmp_path / "w")
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"))
    scan = scan_workspace(str(root), ignores=True)
    shadow.refresh(scan)
    assert shadow.kept == 0
    return root, shadow, scan


def test_one_process_serves_every_capture_and_close_ends_it(tmp_path: Path) -> None:
    root, shadow, scan = _based(tmp_path)
    assert not shadow.git.running  # started lazily
    for n in range(5):
        scan = _command(shadow, scan, root, f"src/m{n:03}.py", f"y = {n}\n")
    assert shadow.git.started == 1
    pid = shadow.git.pid
    assert pid is not None
    assert shadow.git.running
    shadow.close()
    assert _wait_gone(pid)
    assert not shadow.git.running
    (root / "a.txt").write_text("changed after the close\n")  # no git: listed, not restored
    after = scan_workspace(str(root), ignores=True)
    records, unkept = shadow.capture(scan, after, "t")
    assert not records
    assert [(c.path, c.why) for c in unkept] == [(str(root / "a.txt"), "gitobject")]
    assert shadow.git.started == 1


def test_a_process_that_died_is_started_again(tmp_path: Path) -> None:
    root, shadow, scan = _based(tmp_path)
    scan = _command(shadow, scan, root, "a.txt", "uno\n")
    pid = shadow.git.pid
    assert pid is not None
    os.kill(pid, 9)
    assert _wait_gone(pid)
    scan = _command(shadow, scan, root, "b.txt", "bee bee\n")
    assert shadow.git.started == 2
    shadow.close()


def test_a_hung_git_is_killed_at_the_deadline_and_the_next_fetch_works(tmp_path: Path) -> None:
    root = checkout(tmp_path / "w")
    oid = git_oid(b"one\ntwo\n", "sha1")
    loose = _object(root, oid)
    loose.unlink()
    os.mkfifo(loose)  # git's open() of it blocks: a hang, no writer ever comes
    git = CatFile(str(root), timeout=1.0)
    try:
        assert git.fetch("sha1", {oid: 8}) == {}
        assert not git.running  # killed, not left blocked
        other = git_oid(b"bee\n", "sha1")
        assert git.fetch("sha1", {other: 4}) == {other: b"bee\n"}
        assert git.started >= 2
    finally:
        git.close()


def test_objects_of_another_size_or_kind_are_left_out_and_the_stream_kept(
    tmp_path: Path,
) -> None:
    root = checkout(tmp_path / "w")
    a, b = git_oid(b"one\ntwo\n", "sha1"), git_oid(b"bee\n", "sha1")
    git = CatFile(str(root))
    try:
        missing = "0" * 40
        got = git.fetch("sha1", {a: 8, missing: 3, b: 4})
        assert got == {a: b"one\ntwo\n", b: b"bee\n"}
        assert git.fetch("sha1", {a: 7, b: 4}) == {b: b"bee\n"}  # a's size is not the file's
        assert git.started == 1
    finally:
        git.close()


def test_many_objects_in_one_fetch_do_not_block_on_the_pipes(tmp_path: Path) -> None:
    root = checkout(tmp_path / "w", files=600)
    wanted = {git_oid(f"x = {n}\n".encode(), "sha1"): len(f"x = {n}\n") for n in range(600)}
    git = CatFile(str(root))
    try:
        got = git.fetch("sha1", wanted)
        assert set(got) == set(wanted)
    finally:
        git.close()


async def test_the_session_closing_ends_the_git_process(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    root = checkout(tmp_path / "w")
    agent = _agent(root, store, "off", "sed -i 's/one/uno/' a.txt")
    await run(agent, "edit")
    await agent.settle()
    git = _shadow(agent).git
    pid = git.pid
    assert pid is not None
    assert git.running
    await agent.close()
    assert _wait_gone(pid)


def test_a_replaced_object_far_bigger_than_asked_ends_the_process_not_the_fetch(
    tmp_path: Path,
) -> None:
    root = checkout(tmp_path / "w")
    a, b = git_oid(b"one\ntwo\n", "sha1"), git_oid(b"bee\n", "sha1")
    big = b"z" * (4 << 20)
    loose = _object(root, a)
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob %d\0" % len(big) + big))  # git does not check
    git = CatFile(str(root))
    try:
        assert git.fetch("sha1", {a: 8, b: 4}) == {b: b"bee\n"}
        assert git.started == 2  # the first one ended at a's header, not read to its end
    finally:
        git.close()
