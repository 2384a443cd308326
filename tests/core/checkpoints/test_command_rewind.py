"""What a command changes is rewound like a file tool's change (issue 44): real commands run by
``run_shell`` in a real workspace, sandboxed and not, each rewind compared byte for byte (every
file's SHA-256, mode and link target) with the workspace before the command, and its undo with
the workspace after it."""

from __future__ import annotations

import asyncio
import hashlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.plan import plan_files, preview_file
from agent_tui.core.checkpoints.records import CheckpointEntry, FileAfter, TurnStarted
from agent_tui.core.checkpoints.restore import restore_files
from agent_tui.core.checkpoints.scan import scan_workspace
from agent_tui.core.checkpoints.shadow import Shadow
from agent_tui.core.checkpoints.snapshot import snapshot
from agent_tui.core.conversation.session_store import SessionStore

from .helpers import call, make_agent, run, turn

State = dict[str, tuple[str, int, str]]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / "docs" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.txt").write_text("bee\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o644)
    (root / "docs" / "index.md").write_text("# docs\n")
    (root / "docs" / "deep" / "page.md").write_text("deep\n")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 40)
    os.symlink("a.txt", root / "link.txt")
    for n in range(200):
        (root / "src" / f"m{n:03}.py").write_text(f"x = {n}\ny = 'value {n}'\n")
    return root


def state(root: Path) -> State:
    """Every file below ``root`` but in ``.git``: (kind, permission bits, SHA-256 or link
    target)."""
    found: State = {}
    for directory, dirs, files in os.walk(root):
        for own in (".git", ".agent-spill"):  # git's and the agent's own data: never restored
            if own in dirs:
                dirs.remove(own)
        for name in files + [d for d in dirs if os.path.islink(os.path.join(directory, d))]:
            path = os.path.join(directory, name)
            st = os.lstat(path)
            rel = os.path.relpath(path, root)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", 0, os.readlink(path))
            else:
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                found[rel] = ("file", stat.S_IMODE(st.st_mode), digest)
    return found


def _is_link(path: str) -> bool:
    return os.path.islink(path)


async def _command(work: Path, store: SessionStore, sandbox: str, command: str) -> Agent:
    agent = make_agent(
        work, store, [turn(call("run_shell", command=command)), turn(text="done")], sandbox=sandbox
    )
    await run(agent, "run it")
    if sys.platform == "linux":  # the scans around the command: drains of the change journal
        journal = agent._rewinder.journal
        assert journal is not None
        assert (journal.full_scans, journal.drains) == (1, 2)
    return agent


async def _rewind_and_undo(
    agent: Agent, work: Path, before: State, after: State, gone: tuple[str, ...] = ()
) -> None:
    """Rewind the turn (byte-exact back to ``before``, the directories ``gone`` removed), then
    undo the rewind (to ``after``)."""
    (first,) = agent.turns()
    report = await agent.rewind(first.id, "code")
    assert report.files is not None
    assert not report.files.failed
    assert not report.files.kept_changed
    assert state(work) == before
    assert not [d for d in gone if (work / d).exists()]
    undo = agent.undoable_rewind()
    assert undo is not None
    again = await agent.preview_rewind(undo.id)  # a link there now has no mode to put back
    assert not [f.shown for f in again.files if f.mode is not None and _is_link(f.path)]
    await agent.rewind(undo.id, "code")
    assert state(work) == after


CASES = [
    ("sed -i 's/one/uno/' a.txt", [("a.txt", "restore")]),
    ("rm -rf docs", [("docs/deep/page.md", "recreate"), ("docs/index.md", "recreate")]),
    ("mv a.txt moved.txt", [("a.txt", "recreate"), ("moved.txt", "delete")]),
    ("chmod +x run.sh", [("run.sh", "restore")]),
    ("rm link.txt && echo real > link.txt", [("link.txt", "restore")]),
    (
        "head -c 5000 /dev/urandom > blob.bin && printf '\\000\\377' > new.bin",
        [("blob.bin", "restore"), ("new.bin", "delete")],
    ),
    (
        "mkdir -p made/dir && echo x > made/dir/f.txt && ln -s b.txt made/l",
        [("made/dir/f.txt", "delete"), ("made/l", "delete")],
    ),
]


@pytest.mark.parametrize(("command", "listed"), CASES, ids=[c[0][:20] for c in CASES])
async def test_a_commands_change_is_previewed_rewound_and_undone_byte_exact(
    work: Path, store: SessionStore, sandbox: str, command: str, listed: list[tuple[str, str]]
) -> None:
    before = state(work)
    agent = await _command(work, store, sandbox, command)
    after = state(work)
    assert after != before
    (first,) = agent.turns()
    preview = await agent.preview_rewind(first.id)
    assert sorted((f.shown, f.action) for f in preview.files) == listed
    assert not preview.outside.changes
    chmod = command.startswith("chmod")  # the bits it puts back; no mode for a link
    assert [f.mode for f in preview.files] == [(0o755, 0o644) if chmod else None] * len(listed)
    assert not preview.conflicts
    await _rewind_and_undo(agent, work, before, after, gone=("made",))  # made by the command


async def test_a_formatter_rewriting_200_files_is_rewound(
    work: Path, store: SessionStore, sandbox: str
) -> None:
    before = state(work)
    command = (
        'python3 -c "import pathlib; [p.write_text(p.read_text().upper()) '
        "for p in pathlib.Path('src').glob('*.py')]\""
    )
    agent = await _command(work, store, sandbox, command)
    after = state(work)
    assert sum(after[k] != before[k] for k in before) == 200
    preview = await agent.preview_rewind(agent.turns()[0].id)
    assert len(preview.files) == 200
    assert {(f.action, f.added, f.removed) for f in preview.files} == {("restore", 2, 2)}
    await _rewind_and_undo(agent, work, before, after)


async def test_a_file_the_user_changed_after_the_command_is_kept_unless_overwritten(
    work: Path, store: SessionStore, sandbox: str
) -> None:
    before = state(work)
    agent = await _command(work, store, sandbox, "sed -i 's/one/uno/' a.txt && echo c > c.txt")
    (work / "a.txt").write_text("the user's own\n")
    mine = state(work)
    first = agent.turns()[0]
    preview = await agent.preview_rewind(first.id)
    assert [(f.shown, f.changed_since) for f in preview.files] == [
        ("a.txt", True),
        ("c.txt", False),
    ]
    report = await agent.rewind(first.id, "code")
    assert report.files is not None
    assert report.files.kept_changed == ["a.txt"]
    assert report.files.deleted == ["c.txt"]
    assert (work / "a.txt").read_text() == "the user's own\n"
    report = await agent.rewind(first.id, "code", overwrite=["a.txt"])
    assert report.files is not None
    assert report.files.restored == ["a.txt"]
    assert state(work) == before
    undo = agent.undoable_rewind()
    assert undo is not None
    await agent.rewind(undo.id, "code")
    assert (work / "a.txt").read_text() == "the user's own\n"
    assert state(work) == {k: v for k, v in mine.items() if k != "c.txt"}


async def test_commands_and_file_tools_in_one_turn_rewind_together(
    work: Path, store: SessionStore
) -> None:
    before = state(work)
    agent = make_agent(
        work,
        store,
        [
            turn(call("read_file", path="a.txt")),
            turn(call("edit_file", path="a.txt", old_string="one", new_string="uno")),
            turn(call("run_shell", command="sed -i 's/uno/eins/' a.txt && rm b.txt")),
            turn(call("write_file", path="b.txt", content="by the agent\n")),
            turn(call("run_shell", command="echo more >> b.txt")),
            turn(text="done"),
        ],
    )
    await run(agent, "mix")
    assert (work / "a.txt").read_text() == "eins\ntwo\n"
    assert (work / "b.txt").read_text() == "by the agent\nmore\n"
    (first,) = agent.turns()
    assert set(first.files) == {"a.txt", "b.txt"}
    await _rewind_and_undo(agent, work, before, state(work))


async def test_ignored_files_are_listed_as_not_restorable_with_why(
    work: Path, store: SessionStore
) -> None:
    (work / ".gitignore").write_text("build/\n*.log\n")
    (work / "build").mkdir()
    (work / "build" / "old.o").write_text("old")
    agent = await _command(
        work, store, "off", "echo log > out.log && rm build/old.o && sed -i s/bee/b/ b.txt"
    )
    preview = await agent.preview_rewind(agent.turns()[0].id)
    assert [(f.shown, f.action) for f in preview.files] == [("b.txt", "restore")]
    assert [(n.shown, n.change, n.why) for n in preview.outside.changes] == [
        ("build/old.o", "deleted", "ignored"),
        ("out.log", "created", "ignored"),
    ]


def test_a_file_over_the_size_limit_is_listed_as_not_restorable(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    (root / "big.dat").write_bytes(b"x" * 500)
    (root / "small.txt").write_text("s")
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"), limit=100)
    before = scan_workspace(str(root), ignores=True)
    shadow.refresh(before)
    (root / "big.dat").write_bytes(b"y" * 500)
    (root / "small.txt").write_text("t")
    records, unkept = shadow.capture(before, scan_workspace(str(root), ignores=True), "t")
    assert [(c.path, c.change, c.why) for c in unkept] == [
        (str(root / "big.dat"), "modified", "big")
    ]
    assert [(type(r).__name__, Path(r.path).name) for r in records] == [  # type: ignore[union-attr]
        ("FileBefore", "small.txt"),
        ("FileAfter", "small.txt"),
    ]


def test_a_rewind_that_would_touch_git_internals_says_so_and_asks(tmp_path: Path) -> None:
    root = tmp_path / "w"
    (root / ".git").mkdir(parents=True)
    config = root / ".git" / "config"
    config.write_text("[core]\n")
    blobs = BlobStore(tmp_path / "blobs")
    entries: list[CheckpointEntry] = [
        TurnStarted(turn="t", at="now"),
        snapshot(config, "t", blobs),
        FileAfter(turn="t", path=str(config), digest=None),
    ]
    config.write_text("[core]\n\tbare = true\n")
    plans = plan_files(entries, 0)
    (preview,) = [preview_file(plan, root, blobs) for plan in plans]
    assert preview.git
    assert preview.action == "restore"
    sink: list[CheckpointEntry] = []
    report = restore_files(plans, root, blobs, "rw", sink.append, overwrite=())
    assert report.kept_git == [".git/config"]
    assert config.read_text() == "[core]\n\tbare = true\n"
    report = restore_files(plans, root, blobs, "rw", sink.append, overwrite=[".git/config"])
    assert report.restored == [".git/config"]
    assert config.read_text() == "[core]\n"


GIT = "git -c user.name=t -c user.email=t@t -c commit.gpgsign=false"


@pytest.fixture
def repo(work: Path) -> Path:
    command = f"{GIT} init -q && {GIT} add a.txt && {GIT} commit -qm one"
    subprocess.run(command, shell=True, cwd=work, check=True)
    return work


async def test_a_command_that_moves_git_says_git_is_not_restored(
    repo: Path, store: SessionStore
) -> None:
    work, git = repo, GIT
    before = state(work)
    agent = await _command(work, store, "off", f"sed -i s/one/uno/ a.txt && {git} commit -qam two")
    preview = await agent.preview_rewind(agent.turns()[0].id)
    assert [(f.shown, f.action) for f in preview.files] == [("a.txt", "restore")]
    assert [(n.shown, n.why) for n in preview.outside.changes] == [(".git", "git")]
    await agent.rewind(agent.turns()[0].id, "code")
    assert state(work) == before  # the working tree; .git stays as the command left it


async def test_what_a_background_job_changes_after_its_turn_is_that_turns_to_confirm(
    work: Path, store: SessionStore
) -> None:
    before = state(work)
    job = "while [ ! -e go ]; do sleep 0.02; done; echo late > late.txt; sed -i s/one/uno/ a.txt"
    agent = make_agent(
        work,
        store,
        [turn(call("run_shell", command=job, run_in_background=True)), turn(text="started")],
    )
    await run(agent, "start a job")
    (work / "go").write_text("")  # the job writes once the turn has ended
    deadline = asyncio.get_running_loop().time() + 20
    while not (work / "a.txt").read_text().startswith("uno"):
        assert asyncio.get_running_loop().time() < deadline, "the job did not write"
        await asyncio.sleep(0.02)
    (first,) = agent.turns()
    preview = await agent.preview_rewind(first.id)
    assert [(f.shown, f.action, f.changed_since) for f in preview.files] == [
        ("a.txt", "restore", True),
        ("go", "delete", True),
        ("late.txt", "delete", True),
    ]
    report = await agent.rewind(first.id, "code")  # not named: kept
    assert report.files is not None
    assert sorted(report.files.kept_changed) == ["a.txt", "go", "late.txt"]
    report = await agent.rewind(first.id, "code", overwrite=["a.txt", "go", "late.txt"])
    assert report.files is not None
    assert state(work) == before


def test_files_beyond_the_shadows_budget_are_listed_not_read(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    for name in ("a", "b", "c"):
        (root / name).write_bytes(b"8 bytes!")
    shadow = Shadow(str(root), BlobStore(tmp_path / "blobs"), budget=20)
    before = scan_workspace(str(root), ignores=True)
    shadow.refresh(before)
    assert shadow.used == 16
    (left_out,) = [p for p, k in shadow.files.items() if k.blob is None]  # in scan order
    for name in ("a", "b", "c"):
        (root / name).write_bytes(b"8 BYTES!")
    records, unkept = shadow.capture(before, scan_workspace(str(root), ignores=True), "t")
    assert [(c.path, c.why) for c in unkept] == [(left_out, "budget")]
    assert len(records) == 4  # a and b: before and after


async def test_a_rewind_while_a_job_runs_can_still_be_undone(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(
        work,
        store,
        [
            turn(
                call("run_shell", command="sed -i s/one/uno/ a.txt"),
                call(
                    "run_shell",
                    command="while [ ! -e stop ]; do sleep 0.02; done",
                    run_in_background=True,
                ),
            ),
            turn(text="started"),
        ],
    )
    await run(agent, "edit and wait")
    try:
        (first,) = agent.turns()
        await agent.rewind(first.id, "code")
        assert (work / "a.txt").read_text() == "one\ntwo\n"
        await agent.preview_rewind(first.id)  # settles: a job ran since the last scan
        undo = agent.undoable_rewind()
        assert undo is not None  # the rewind's own changes were not taken for the job's
        await agent.rewind(undo.id, "code")
        assert (work / "a.txt").read_text() == "uno\ntwo\n"
    finally:
        (work / "stop").write_text("")
