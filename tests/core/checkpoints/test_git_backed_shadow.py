"""The shadow in a git checkout (issue 44): the files git holds unchanged are not read at the
first snapshot, their pre-image is fetched from git when a command changes them, verified. Real
repositories, real git, real commands (sandboxed and not); the repository is hostile: missing
or replaced objects, a config naming programs to run."""

from __future__ import annotations

import os
import subprocess
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent import rewinding
from agent_tui.core.agent.agent import Agent
from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.gitbase import git_oid
from agent_tui.core.checkpoints.records import FileBefore
from agent_tui.core.checkpoints.scan import scan_workspace
from agent_tui.core.checkpoints.shadow import Shadow
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.sandbox import safe_git

from .helpers import call, make_agent, run, turn
from .test_command_rewind import state

GIT = "git -c user.name=t -c user.email=t@t -c commit.gpgsign=false"
FILES = 120
DEADLINE = 60.0


def _git(root: Path, command: str) -> None:
    subprocess.run(f"{GIT} {command}", shell=True, cwd=root, check=True)


def checkout(root: Path, files: int = FILES, *, index_version: int = 2) -> Path:
    """A committed, clean repository of ``files`` files (and ``a.txt``, ``b.txt``, an
    executable ``run.sh``), their mtimes an hour back (so none is "racily clean")."""
    (root / "src").mkdir(parents=True)
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.txt").write_text("bee\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    for n in range(files):
        (root / "src" / f"m{n:03}.py").write_text(f"x = {n}\n")
    past = time.time() - 3600
    for directory, _dirs, names in os.walk(root):
        for name in names:
            os.utime(os.path.join(directory, name), (past, past))
    _git(root, "init -q")
    _git(root, "add -A")
    _git(root, f"update-index --index-version {index_version}")
    _git(root, "commit -qm one")
    return root


def _object(root: Path, oid: str) -> Path:
    return root / ".git" / "objects" / oid[:2] / oid[2:]


def _agent(root: Path, store: SessionStore, sandbox: str, *commands: str) -> Agent:
    """An agent whose one turn runs ``commands``; its first snapshot made (and waited for)."""
    agent = make_agent(
        root,
        store,
        [turn(*(call("run_shell", command=c) for c in commands)), turn(text="done")],
        sandbox=sandbox,
    )
    warming = agent._rewinder.warming
    assert warming is not None  # started with the session, before any turn
    warming.join(DEADLINE)
    assert not warming.is_alive()
    return agent


def _canaries(where: Path) -> list[str]:
    return [name for name in os.listdir(where) if name.startswith("canary")]


def _shadow(agent: Agent) -> Shadow:
    shadow = agent._rewinder.shadow
    assert shadow is not None
    return shadow


@pytest.mark.parametrize("index_version", [2, 3, 4])
def test_the_first_refresh_of_a_clean_checkout_reads_no_file(
    tmp_path: Path, index_version: int
) -> None:
    root = checkout(tmp_path / "w", index_version=index_version)
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"))
    scan = scan_workspace(str(root), ignores=True)
    shadow.refresh(scan)
    assert shadow.kept == 0
    assert shadow.from_git == FILES + 3 == len(scan.files)
    assert not (tmp_path / "blobs").exists()  # nothing copied
    kept = shadow.files[str(root / "run.sh")]
    assert (kept.git_oid, kept.mode) == (git_oid(b"#!/bin/sh\necho hi\n", "sha1"), 0o755)


def test_modified_untracked_staged_and_racy_files_are_read(tmp_path: Path) -> None:
    root = checkout(tmp_path / "w")
    (root / "a.txt").write_text("changed\n")  # modified
    (root / "new.txt").write_text("new\n")  # untracked
    (root / "staged.txt").write_text("staged\n")
    _git(root, "add staged.txt")  # in the index, not in HEAD: gc may prune its object
    index = root / ".git" / "index"
    later = os.stat(index).st_mtime_ns + 10**9
    os.utime(root / "b.txt", ns=(later, later))  # written after the index: racily clean
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"))
    shadow.refresh(scan_workspace(str(root), ignores=True))
    read = {Path(p).name for p, k in shadow.files.items() if k.git_oid is None}
    assert read == {"a.txt", "new.txt", "staged.txt", "b.txt"}
    assert shadow.kept == 4
    assert shadow.from_git == FILES + 1


def test_files_an_attribute_converts_are_read(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    (root / ".gitattributes").write_text("*.txt ident\n")
    root = checkout(root)
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"))
    shadow.refresh(scan_workspace(str(root), ignores=True))
    read = {Path(p).name for p, k in shadow.files.items() if k.git_oid is None}
    assert read == {"a.txt", "b.txt"}


@pytest.mark.parametrize("files", [20, 600])  # all sizes checked; a sample first
def test_files_checked_out_with_other_line_ends_are_read(tmp_path: Path, files: int) -> None:
    root = checkout(tmp_path / "w", files)
    _git(root, "config core.autocrlf true")
    for path in root.rglob("*.*"):
        if ".git" not in path.parts:
            path.unlink()
    _git(root, "checkout -q -- .")  # now with CRLF: the objects' sizes are not the files'
    past = time.time() - 1800
    for path in root.rglob("*.*"):
        if ".git" not in path.parts:
            os.utime(path, (past, past))
    _git(root, "update-index -q --refresh")  # clean for git, not racily
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"))
    scan = scan_workspace(str(root), ignores=True)
    shadow.refresh(scan)
    assert (root / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    assert shadow.from_git == 0
    assert shadow.kept == len(scan.files)


@pytest.mark.parametrize("where", [".gitattributes", "src/.gitattributes", ".git/info/attributes"])
def test_an_attributes_fifo_leaves_git_unasked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    root = checkout(tmp_path / "w")
    (root / where).parent.mkdir(exist_ok=True)
    os.mkfifo(root / where)  # git check-attr would wait on it until its timeout
    asked: list[str] = []
    real = safe_git.run

    def spy(top: Path, subcommand: str, *args: str, **kwargs: Any) -> safe_git.Result:
        asked.append(subcommand)
        return real(top, subcommand, *args, **kwargs)

    monkeypatch.setattr(safe_git, "run", spy)
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"))
    scan = scan_workspace(str(root), ignores=True)
    shadow.refresh(scan)
    assert asked == []
    assert shadow.from_git == 0
    assert shadow.kept == len(scan.files)  # each file read (the FIFO tried, not kept)
    assert str(root / where) not in shadow.files


async def test_a_tracked_file_changed_by_sed_is_restored_from_its_git_object(
    tmp_path: Path, store: SessionStore, sandbox: str
) -> None:
    root = checkout(tmp_path / "w")
    before = state(root)
    agent = _agent(root, store, sandbox, "sed -i 's/one/uno/' a.txt && chmod -x run.sh")
    assert _shadow(agent).kept == 0
    await run(agent, "edit")
    await agent.settle()  # the scan after the last command ends after the turn
    after = state(root)
    assert (root / "a.txt").read_text() == "uno\ntwo\n"
    session = agent.session
    assert session is not None
    pre = [e for e in session.entries if isinstance(e, FileBefore) and e.path.endswith("a.txt")]
    assert [session.blobs.get(e.blob) for e in pre if e.blob is not None] == [b"one\ntwo\n"]
    (first,) = agent.turns()
    preview = await agent.preview_rewind(first.id)
    assert sorted((f.shown, f.action) for f in preview.files) == [
        ("a.txt", "restore"),
        ("run.sh", "restore"),
    ]
    assert not preview.outside.changes
    report = await agent.rewind(first.id, "code")
    assert report.files is not None
    assert not report.files.failed
    assert state(root) == before
    undo = agent.undoable_rewind()
    assert undo is not None
    await agent.rewind(undo.id, "code")
    assert state(root) == after
    await agent.close()


async def test_a_tracked_file_only_touched_is_not_a_change(
    tmp_path: Path, store: SessionStore
) -> None:
    root = checkout(tmp_path / "w")
    agent = _agent(root, store, "off", "touch a.txt && cp b.txt b.tmp && mv b.tmp b.txt")
    await run(agent, "touch")
    await agent.settle()
    (first,) = agent.turns()
    assert not first.files
    preview = await agent.preview_rewind(first.id)
    assert not preview.files
    assert not preview.outside.changes
    await agent.close()


async def test_git_add_commit_and_gc_between_snapshot_and_capture_still_rewind(
    tmp_path: Path, store: SessionStore
) -> None:
    root = checkout(tmp_path / "w")
    (root / "staged.txt").write_text("staged\n")
    _git(root, "add staged.txt")
    before = state(root)
    command = (
        "sed -i s/one/uno/ a.txt && echo restaged > staged.txt && rm b.txt && "
        f"{GIT} add -A && {GIT} commit -qm two && {GIT} gc -q --prune=now"
    )
    agent = _agent(root, store, "off", command)
    await run(agent, "commit and prune")
    await agent.settle()
    assert not any((root / ".git" / "objects").glob("??/*"))  # all packed or pruned
    (first,) = agent.turns()
    preview = await agent.preview_rewind(first.id)
    assert sorted((f.shown, f.action) for f in preview.files) == [
        ("a.txt", "restore"),
        ("b.txt", "recreate"),
        ("staged.txt", "restore"),
    ]
    assert [(n.shown, n.why) for n in preview.outside.changes] == [(".git", "git")]
    await agent.rewind(first.id, "code")
    assert state(root) == before  # the working tree; .git stays as the command left it
    await agent.close()


async def test_an_object_gone_before_the_snapshot_leaves_the_file_read(
    tmp_path: Path, store: SessionStore
) -> None:
    root = checkout(tmp_path / "w")
    _object(root, git_oid(b"one\ntwo\n", "sha1")).unlink()
    before = state(root)
    agent = _agent(root, store, "off", "sed -i s/one/uno/ a.txt")
    assert _shadow(agent).kept == 1  # a.txt, from the disk
    await run(agent, "edit")
    await agent.settle()  # the scan after the last command ends after the turn
    await agent.rewind(agent.turns()[0].id, "code")
    assert state(root) == before
    await agent.close()


async def test_an_object_gone_or_replaced_after_the_snapshot_is_listed_not_restored(
    tmp_path: Path, store: SessionStore
) -> None:
    root = checkout(tmp_path / "w")
    a_object = _object(root, git_oid(b"one\ntwo\n", "sha1"))
    b_object = _object(root, git_oid(b"bee\n", "sha1"))
    agent = _agent(root, store, "off", "sed -i s/one/uno/ a.txt && echo bed > b.txt")
    assert _shadow(agent).kept == 0
    a_object.unlink()  # gone; and b's object now holds other bytes of the same size
    b_object.chmod(0o644)
    b_object.write_bytes(zlib.compress(b"blob 4\0BAD\n"))
    await run(agent, "edit")
    await agent.settle()  # the scan after the last command ends after the turn
    (first,) = agent.turns()
    preview = await agent.preview_rewind(first.id)
    assert not preview.files
    assert [(n.shown, n.change, n.why) for n in preview.outside.changes] == [
        ("a.txt", "modified", "gitobject"),
        ("b.txt", "modified", "gitobject"),
    ]
    report = await agent.rewind(first.id, "code")
    assert report.files is not None
    assert not report.files.restored
    assert (root / "a.txt").read_text() == "uno\ntwo\n"  # never the wrong bytes
    assert (root / "b.txt").read_text() == "bed\n"
    await agent.close()


async def test_a_repository_config_naming_programs_runs_none(
    tmp_path: Path, store: SessionStore, sandbox: str
) -> None:
    root = checkout(tmp_path / "w")
    canary = tmp_path / "canary"
    with (root / ".git" / "config").open("a") as config:
        for key, value in [
            ("core", "fsmonitor"),
            ("core", "pager"),
            ('filter "evil"', "clean"),
            ('filter "evil"', "smudge"),
            ('diff "evil"', "textconv"),
        ]:
            config.write(f"[{key}]\n\t{value} = touch {canary}-{value}; cat\n")
        config.write("[core]\n\thooksPath = hooks\n")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_text("b.txt filter=evil diff=evil\n")
    before = state(root)
    agent = _agent(root, store, sandbox, "sed -i s/one/uno/ a.txt && sed -i s/bee/b/ b.txt")
    await run(agent, "edit")
    await agent.settle()  # the scan after the last command ends after the turn
    assert not _canaries(tmp_path)
    shadow = _shadow(agent)
    assert shadow.from_git == FILES + 2  # b.txt (a filter names it) was read
    await agent.rewind(agent.turns()[0].id, "code")
    assert state(root) == before
    assert not _canaries(tmp_path)
    await agent.close()


def test_a_sha256_repository_backs_and_restores_its_files(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    past = time.time() - 3600
    os.utime(root / "a.txt", (past, past))
    _git(root, "init -q --object-format=sha256")
    _git(root, "add a.txt")
    _git(root, "commit -qm one")
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"))
    before = scan_workspace(str(root), ignores=True)
    shadow.refresh(before)
    assert (shadow.kept, shadow.algo) == (0, "sha256")
    (root / "a.txt").write_text("two\n")
    records, unkept = shadow.capture(before, scan_workspace(str(root), ignores=True), "t")
    assert not unkept
    (pre,) = [r for r in records if isinstance(r, FileBefore)]
    assert pre.blob is not None
    assert shadow.blobs.get(pre.blob) == b"one\n"


async def test_the_first_snapshot_of_a_plain_workspace_is_done_before_the_first_command(
    tmp_path: Path, store: SessionStore
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    for n in range(FILES):
        (root / f"f{n:03}.txt").write_text(f"{n}\n")
    before = state(root)
    agent = _agent(root, store, "off", "sed -i s/7/seven/ f007.txt && rm f008.txt")
    shadow = _shadow(agent)
    assert (shadow.kept, shadow.from_git) == (FILES, 0)  # no git: every file read, already
    await run(agent, "edit")
    await agent.settle()  # the scan after the last command ends after the turn
    assert shadow.kept == FILES + 1  # the first command read only what it changed
    await agent.rewind(agent.turns()[0].id, "code")
    assert state(root) == before
    await agent.close()


async def test_the_snapshot_at_start_reads_a_bounded_amount_and_the_first_command_the_rest(
    tmp_path: Path, store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big plain directory is not copied for a session that never runs a command: the
    snapshot at start stops after ``WARM_BYTES``; the first command's refresh reads the rest,
    and what it changes there still rewinds."""
    monkeypatch.setattr(rewinding, "WARM_BYTES", 10 * 1024)
    root = tmp_path / "w"
    root.mkdir()
    for n in range(FILES):
        (root / f"f{n:03}.txt").write_bytes(f"{n}\n".encode() * 500)  # ~2 KB each
    before = state(root)
    last = f"f{FILES - 1:03}.txt"
    agent = _agent(root, store, "off", f"sed -i s/{FILES - 1}/changed/ {last} && rm f000.txt")
    shadow = _shadow(agent)
    assert 0 < shadow.kept < FILES  # stopped after ~10 KB
    await run(agent, "edit")
    await agent.settle()
    assert len(shadow.files) == FILES - 1  # the rest read before the command; f000 gone
    await agent.rewind(agent.turns()[0].id, "code")
    assert state(root) == before
    await agent.close()
