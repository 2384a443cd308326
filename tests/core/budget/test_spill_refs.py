"""The reference records beside the spills (``core.budget.refs``): what each doubt keeps, how
old spills no record knows age out, and two processes cleaning one workspace at once.

Each "other data dir" here is a real session store in its own directory with its own spill
store object (so its own record and ``.live`` lock); the cleanup under test sees none of its
sessions, as a run with another ``AGENT_TUI_DATA_DIR`` would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.browse import SpillRefused, delete_spill, why_not_delete
from agent_tui.core.budget import SpillStore, collect_spills
from agent_tui.core.budget.refs import REFS_DIR
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import load_settings
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import Message, ToolCall
from tests.core.agent_state.helpers import SRC
from tests.core.helpers import collect, of_type, write_script

LONG_AGO = time.time() - 100 * 86_400


def store_in(workspace: Path) -> SpillStore:
    return SpillStore(Path(".agent-spill"), workspace, durable=False)


def pointer(path: Path) -> Message:
    call = ToolCall(id="c1", name="run_shell")
    return Message.tool(call, f"[Output too large: saved in .agent-spill/{path.name}.]")


def age(path: Path, when: float = LONG_AGO) -> None:
    os.utime(path, (when, when))


def session_with_spill(workspace: Path, data: Path) -> tuple[SpillStore, SessionLog, Path]:
    """A session of data dir ``data`` (its own store object, as its process has) whose file
    points to a spill of ``workspace``; the spill is old."""
    store = store_in(workspace)
    session = SessionStore(data / "sessions").new(workspace, "demo")
    store.refs.attach(session.id, session.path, scan=True)
    session.on_write = store.refs.saw
    spill = store.write("out\n" * 10, "run_shell", "c1").path
    session.append(pointer(spill))
    age(spill)
    return store, session, spill


def is_file(path: str | Path) -> bool:
    return Path(path).is_file()


def records(workspace: Path) -> list[Path]:
    return sorted((workspace / ".agent-spill" / REFS_DIR).glob("*.json"))


def cleanup_elsewhere(workspace: Path, **rules: float) -> list[Path]:
    """A cleanup of another data dir (no session of its own), grace 0: what it deleted."""
    report = collect_spills(store_in(workspace), [], [], grace=0, **rules)
    return report.deleted


def test_a_session_of_another_data_dir_keeps_its_spill_until_its_file_goes(
    tmp_path: Path,
) -> None:
    a, session, spill = session_with_spill(tmp_path, tmp_path / "A")
    a.refs.detach()  # its process ends
    report = collect_spills(store_in(tmp_path), [], [], grace=0)
    assert report.held == [spill]
    assert any(str(session.path) in why for why in report.reasons), report.reasons
    session.path.unlink()
    assert cleanup_elsewhere(tmp_path) == [spill]
    assert records(tmp_path) == []  # a dead record naming nothing left is removed


def test_a_running_session_keeps_its_spills_even_unsaved(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.refs.attach("nosave", None, scan=False)  # its session file cannot be written
    spill = store.write("x\n", "run_shell", "c1").path
    age(spill)
    report = collect_spills(store_in(tmp_path), [], [], grace=0)
    assert report.held == [spill]  # its process runs (its .live lock is held)
    store.refs.detach()  # the process ends: nothing can point to it any more
    assert cleanup_elsewhere(tmp_path) == [spill]


def test_a_record_written_on_another_machine_is_a_doubt(tmp_path: Path) -> None:
    a, session, spill = session_with_spill(tmp_path, tmp_path / "A")
    a.refs.detach()
    session.path.unlink()
    [record] = records(tmp_path)
    body = json.loads(record.read_text())
    record.write_text(json.dumps({**body, "host": "elsewhere"}))
    report = collect_spills(store_in(tmp_path), [], [], grace=0)
    assert report.doubtful == [spill]
    assert any("another machine (elsewhere)" in why for why in report.reasons), report.reasons
    record.write_text(json.dumps(body))  # back on this machine: the file is known to be gone
    assert cleanup_elsewhere(tmp_path) == [spill]


def test_a_session_folder_that_cannot_be_reached_is_a_doubt(tmp_path: Path) -> None:
    a, _, spill = session_with_spill(tmp_path, tmp_path / "A")
    a.refs.detach()
    shutil.rmtree(tmp_path / "A")  # an unmounted disk, a data dir moved away: not "deleted"
    report = collect_spills(store_in(tmp_path), [], [], grace=0)
    assert report.doubtful == [spill]
    assert any("cannot be reached now" in why for why in report.reasons), report.reasons
    assert spill.is_file()


@pytest.mark.parametrize("damage", ["garbage", "symlink", "directory", "newer"])
def test_a_record_that_cannot_be_read_keeps_every_spill(tmp_path: Path, damage: str) -> None:
    a, session, spill = session_with_spill(tmp_path, tmp_path / "A")
    a.refs.detach()
    session.path.unlink()  # the spill would go, were it not for the record below
    refs = tmp_path / ".agent-spill" / REFS_DIR
    bad = refs / "zz-unreadable.json"
    if damage == "garbage":
        bad.write_bytes(b"\xff\xfe not json")
    elif damage == "symlink":  # never followed, even to a valid record
        target = tmp_path / "elsewhere.json"
        target.write_text(json.dumps({"version": 1, "session": None, "host": "", "names": []}))
        bad.symlink_to(target)
    elif damage == "directory":
        bad.mkdir()
    else:
        bad.write_text(json.dumps({"version": 99, "names": []}))
    report = collect_spills(store_in(tmp_path), [], [], grace=0)
    assert report.deleted == []
    assert report.doubtful == [spill]
    assert any("zz-unreadable.json" in why for why in report.reasons), report.reasons
    assert spill.is_file()


def test_spills_no_record_knows_wait_the_unclaimed_period(tmp_path: Path) -> None:
    """A spill from before records existed (or an older agent-tui's): a session of a data
    dir this process cannot see may point to it. Kept 30 days, then deleted."""
    store = store_in(tmp_path)
    legacy = store.write("old\n", "run_shell", "c1").path
    shutil.rmtree(store.root / REFS_DIR)  # written before records existed
    recent = time.time() - 2 * 86_400
    age(legacy, recent)
    report = collect_spills(store_in(tmp_path), [], [], grace=0)
    assert report.waiting == [legacy]
    assert legacy.is_file()
    later = recent + 31 * 86_400
    assert collect_spills(store_in(tmp_path), [], [], grace=0, now=later).deleted == [legacy]


def test_old_sessions_of_this_data_dir_are_recorded_for_the_others(tmp_path: Path) -> None:
    """B's own session from before records existed points to a spill: B's cleanup keeps it
    and writes the session's record, so a cleanup of data dir C keeps it too."""
    store = store_in(tmp_path)
    spill = store.write("out\n", "run_shell", "c1").path
    shutil.rmtree(store.root / REFS_DIR)
    age(spill)
    sessions_b = SessionStore(tmp_path / "B" / "sessions")
    old = sessions_b.new(tmp_path, "demo")  # no record watches it: saved by an older version
    old.append(pointer(spill))
    report = collect_spills(store_in(tmp_path), [], sessions_b.all(), grace=0)
    assert report.kept == [spill]
    [record] = records(tmp_path)
    assert json.loads(record.read_text())["session"] == str(old.path)
    assert collect_spills(store_in(tmp_path), [], [], grace=0, unclaimed=0).held == [spill]


def test_a_record_is_never_written_through_a_symlinked_refs_dir(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    workspace = tmp_path / "w"
    (workspace / ".agent-spill").mkdir(parents=True)
    (workspace / ".agent-spill" / REFS_DIR).symlink_to(outside)
    store = store_in(workspace)
    spill = store.write("x\n", "run_shell", "c1").path
    age(spill)
    assert list(outside.iterdir()) == []
    report = collect_spills(store_in(workspace), [], [], grace=0)
    assert report.deleted == []  # whose records are there cannot be told: keep
    assert spill.is_file()


def test_the_spill_browser_refuses_what_another_data_dirs_session_needs(tmp_path: Path) -> None:
    a, session, spill = session_with_spill(tmp_path, tmp_path / "A")
    a.refs.detach()
    mine = store_in(tmp_path)
    refused = why_not_delete(mine, spill, [], [])
    assert refused is not None
    assert refused.kind == "saved"
    assert session.id in refused.what
    with pytest.raises(SpillRefused):
        delete_spill(mine, spill, [], [])
    assert spill.is_file()
    session.path.unlink()
    assert why_not_delete(mine, spill, [], []) is None
    delete_spill(mine, spill, [], [])
    assert not spill.exists()


def test_a_project_cannot_shorten_the_retention(tmp_path: Path) -> None:
    project = tmp_path / ".agent-tui"
    project.mkdir()
    (project / "settings.json").write_text(
        json.dumps({"budget": {"spill_grace_seconds": 0, "spill_unclaimed_days": 0}})
    )
    loaded = load_settings(tmp_path)
    assert loaded.settings.budget.spill_grace_seconds == 3600
    assert loaded.settings.budget.spill_unclaimed_days == 30
    assert any("spill_grace_seconds" in m for m in loaded.messages())
    (project / "settings.json").write_text(json.dumps({"budget": {"spill_grace_seconds": 7200}}))
    assert load_settings(tmp_path).settings.budget.spill_grace_seconds == 7200  # longer: fine


WORKER = """
import json, sys
from pathlib import Path
from agent_tui.core.budget import SpillStore, collect_spills
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.transcript import Message, ToolCall

cwd, data, count = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
store = SpillStore(Path(".agent-spill"), cwd, durable=False)
sessions = SessionStore(data / "sessions")
session = sessions.new(cwd, "demo")
store.refs.attach(session.id, session.path, scan=True)
session.on_write = store.refs.saw
print("ready", flush=True)
sys.stdin.readline()  # both start together
names = []
for n in range(count):
    spill = store.write(f"{n}\\n" * 50, "run_shell", f"c{n}").path
    call = ToolCall(id=f"c{n}", name="run_shell")
    session.append(Message.tool(call, f"saved in .agent-spill/{spill.name}"))
    names.append(spill.name)
    collect_spills(store, [], sessions.all(), grace=0, unclaimed=0)
print(json.dumps(names), flush=True)
"""


def test_two_processes_cleaning_one_workspace_at_once_keep_each_others_spills(
    tmp_path: Path,
) -> None:
    """Two sessions in one workspace, each with its own data dir, each cleaning (grace 0)
    after every spill it writes: neither deletes a spill the other's session points to."""
    workspace = tmp_path / "w"
    workspace.mkdir()
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(workspace), str(tmp_path / data), "25"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for data in ("A", "B")
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None
            assert worker.stdout.readline().strip() == "ready"
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        outputs = [worker.communicate(timeout=120) for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    for worker, (_, err) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, err
    written = [name for out, _ in outputs for name in json.loads(out)]
    assert len(written) == 50
    spill_dir = workspace / ".agent-spill"
    missing = [name for name in written if not (spill_dir / name).is_file()]
    assert missing == []


# -- through the agent ----------------------------------------------------------------------


def agent_in(workspace: Path, data: Path, turns: list[dict[str, Any]], **kw: Any) -> Agent:
    script = write_script(workspace / f"script-{time.monotonic_ns()}.json", turns)
    sessions = SessionStore(data / "sessions")
    session = kw.pop("session", None) or sessions.new(workspace, "script")
    return Agent(
        ScriptProvider(script),
        default_registry(),
        workspace,
        session=session,
        sessions=sessions,
        system="test",
        policy=SimplePolicy(("run_shell",)),
        **kw,
    )


SPILLING = [
    {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": "seq 30000"}}]},
    {"text": "done"},
]


async def test_a_session_without_spills_leaves_no_trace_in_the_workspace(tmp_path: Path) -> None:
    agent = agent_in(tmp_path, tmp_path / "A", [{"text": "hello"}])
    await collect(agent, "hi")
    await agent.close()
    assert not (tmp_path / ".agent-spill").exists()


async def test_a_session_saved_before_records_existed_is_recorded_when_resumed(
    tmp_path: Path,
) -> None:
    agent = agent_in(tmp_path, tmp_path / "A", SPILLING)
    [spill] = of_type(await collect(agent, "count"), "spill")
    await agent.close()
    session_path = agent.sessions.all()[0]
    for record in records(tmp_path):
        record.unlink()  # as an older agent-tui left it: no record
    age(Path(spill.abs_path))
    resumed = agent_in(
        tmp_path, tmp_path / "A", [{"text": "ok"}],
        session=SessionStore(tmp_path / "A" / "sessions").load(session_path),
    )  # fmt: skip
    [record] = records(tmp_path)  # written as it is attached: its file was read for names
    assert Path(spill.abs_path).name in json.loads(record.read_text())["names"]
    await resumed.close()
    assert cleanup_elsewhere(tmp_path, unclaimed=0) == []
    assert is_file(spill.abs_path)


async def test_spills_the_session_never_mentioned_are_released_when_it_ends(
    tmp_path: Path,
) -> None:
    """A spill written through the session's store but pointed to by no message of its file
    (a subagent's, say) is kept while the session runs, and goes like any unreferenced spill
    once it ended."""
    agent = agent_in(tmp_path, tmp_path / "A", SPILLING)
    [spill] = of_type(await collect(agent, "count"), "spill")
    unsaid = agent.spills.write("a subagent's output\n", "run_shell", "sub_1").path
    for path in (Path(spill.abs_path), unsaid):
        age(path)
    assert collect_spills(store_in(tmp_path), [], [], grace=0).held == sorted(
        [Path(spill.abs_path), unsaid]
    )
    report = await agent.close()  # its own cleanup: the record no longer holds it
    assert report is not None
    assert report.deleted == [unsaid]
    assert cleanup_elsewhere(tmp_path) == []
    assert is_file(spill.abs_path)
