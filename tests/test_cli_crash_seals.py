"""``kill -9`` of a real ``agent-tui`` never costs the user a trust prompt (issue 38's crash
recovery, with seals): a headless run killed mid-call, or at the exact point between writing a
session line and sealing it, is continued by a plain ``--continue``, with the synthetic
"interrupted" result for the call it died in; ``agent-tui trust --yes`` killed between putting
the new store in place and sealing it still trusts. Real processes, real files; the exact
points are reached by ``strace``'s fault injection, which kills the unmodified program as it
enters its Nth write of the seal (skipped where there is no ``strace``), or by a child that
appends through ``SessionLog`` and kills itself right after the write."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.conversation.repair import ENDED_MID_CALL
from agent_tui.core.conversation.session import SessionLog
from tests.core.agent_state.crashes import (
    agent_tui,
    crash_append,
    killed_at_write,
    seal_of,
    seal_path,
    strace,
)
from tests.core.agent_state.helpers import SRC
from tests.core.providers.conftest import FakeServer
from tests.test_cli_headless import run_cli, write_script
from tests.test_cli_session_lock import _busy_writer, _sessions
from tests.test_cli_text import reply_text
from tests.test_cli_text import run_cli as run_cli_with_server

needs_strace = pytest.mark.skipif(strace() is None, reason="strace is not installed")
WAIT = "while [ ! -e go ]; do sleep 0.02; done; echo waited"


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def _tool_messages(request: dict) -> list[dict]:  # type: ignore[type-arg]
    return [m for m in request["messages"] if m.get("role") == "tool"]


def _continued(server: FakeServer, workspace: Path) -> subprocess.CompletedProcess[str]:
    """A plain ``--continue`` (no acceptance first), answered by the fake server."""
    reply_text(server, "Carrying on.")
    done = run_cli_with_server(
        server, "-p", "go on", "--continue", "--output-format", "stream-json", cwd=workspace
    )
    assert done.returncode == 0, done.stderr
    assert "agent-tui trust --session" not in done.stderr
    start = json.loads(done.stdout.splitlines()[0])
    assert start["type"] == "session_start"
    assert start["resumed"] is True
    return done


def test_kill_9_mid_call_then_a_plain_continue(workspace: Path, server: FakeServer) -> None:
    writer = _busy_writer(workspace)  # its run_shell call waits for the file `go`
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=60)
    _continued(server, workspace)
    (interrupted,) = _tool_messages(server.requests[-1].json)
    assert interrupted["content"] == ENDED_MID_CALL  # the model hears the call never ended
    (path,) = _sessions()
    said = [m.content for m in SessionLog.load(path).messages if m.role == "user"]
    assert said == ["from A", "go on"]


def _first_session(workspace: Path) -> Path:
    model = write_script(workspace / "one.json", [{"text": "an answer"}])
    assert run_cli("-p", "one", "--model", f"script:{model}", cwd=workspace).returncode == 0
    (path,) = _sessions()
    return path


def _pending_line(path: Path) -> bytes:
    """The last line of ``path``, after checking that the kill landed between its write and
    its seal: the seal announces it as pending, and describes the file without it."""
    seal, st = seal_of(path), os.stat(path)
    assert seal.pending is not None, "not killed mid-append"
    assert seal.state is not None
    assert st.st_size == seal.pending.size, "killed before the line was written"
    assert not seal.state.describes(st)
    return path.read_bytes()[seal.state.size :]


@needs_strace
def test_killed_between_a_prompt_and_its_seal_then_a_plain_continue(
    workspace: Path, server: FakeServer
) -> None:
    path = _first_session(workspace)
    model = write_script(workspace / "two.json", [{"text": "never said"}])
    # the run's seal writes: a checkpoint record (pending, sealed), then the prompt (pending,
    # sealed): killed as it enters the 4th, the prompt written and not sealed
    argv = agent_tui("-p", "two", "--continue", "--model", f"script:{model}")
    killed = killed_at_write(4, seal_path(path), argv, cwd=workspace)
    assert killed.returncode != 0
    assert b'"content": "two"' in _pending_line(path)
    _continued(server, workspace)
    said = [m["content"] for m in server.requests[-1].json["messages"] if m["role"] == "user"]
    assert said == ["one", "two", "go on"]


@needs_strace
def test_killed_between_a_tool_call_and_its_seal_then_a_plain_continue(
    workspace: Path, server: FakeServer
) -> None:
    path = _first_session(workspace)
    call = {"id": "c1", "name": "run_shell", "arguments": {"command": "echo ran > ran.txt"}}
    model = write_script(workspace / "two.json", [{"tool_calls": [call]}, {"text": "x"}])
    argv = agent_tui(
        "-p", "two", "--continue", "--model", f"script:{model}", "--allow", "run_shell"
    )
    # checkpoint record, prompt, then the model's message with the call: its seal is the 6th
    killed = killed_at_write(6, seal_path(path), argv, cwd=workspace)
    assert killed.returncode != 0
    assert b'"run_shell"' in _pending_line(path)
    assert not (workspace / "ran.txt").exists()  # died before the call ran
    _continued(server, workspace)
    (interrupted,) = _tool_messages(server.requests[-1].json)
    assert interrupted["tool_call_id"] == "c1"
    assert interrupted["content"] == ENDED_MID_CALL


def test_a_child_killed_right_after_its_append_then_a_plain_continue(
    workspace: Path, server: FakeServer
) -> None:
    path = _first_session(workspace)
    assert crash_append("after-write", path, "two") == signal.SIGKILL
    assert b'"content": "two"' in _pending_line(path)
    _continued(server, workspace)
    said = [m["content"] for m in server.requests[-1].json["messages"] if m["role"] == "user"]
    assert said == ["one", "two", "go on"]


def _project(workspace: Path, *rules: str) -> None:
    settings = workspace / ".agent-tui" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"allow": list(rules)}}))


@needs_strace
@pytest.mark.real_trust
def test_trust_killed_between_its_rename_and_its_seal_still_trusts(workspace: Path) -> None:
    _project(workspace, "run_shell(ls *)")
    assert run_cli("trust", "--yes", cwd=workspace).returncode == 0
    _project(workspace, "run_shell(ls *)", "run_shell(git status)")
    store = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "trust.json"
    old = os.stat(store).st_ino
    # the save's seal writes: the new store as pending (synced, then stamped again), the
    # rename, the new store sealed: killed as it enters the 3rd
    killed = killed_at_write(3, seal_path(store), agent_tui("trust", "--yes"), cwd=workspace)
    assert killed.returncode != 0
    seal = seal_of(store)
    assert os.stat(store).st_ino != old, "killed before the rename"
    assert seal.pending is not None
    assert seal.pending.inode == os.stat(store).st_ino
    listed = run_cli("trust", cwd=workspace)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "nothing in" in listed.stdout
    assert "waits for trust" in listed.stdout
    assert "trust: " not in listed.stderr


@needs_strace
@pytest.mark.real_trust
def test_trust_killed_before_its_rename_keeps_the_old_store(workspace: Path) -> None:
    _project(workspace, "run_shell(ls *)")
    assert run_cli("trust", "--yes", cwd=workspace).returncode == 0
    _project(workspace, "run_shell(ls *)", "run_shell(git status)")
    store = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "trust.json"
    before = store.read_bytes()
    killed = killed_at_write(2, seal_path(store), agent_tui("trust", "--yes"), cwd=workspace)
    assert killed.returncode != 0
    assert store.read_bytes() == before  # not in place: the old store, still trusted
    listed = run_cli("trust", cwd=workspace)
    assert listed.returncode == 1  # the new rule only waits for trust again
    assert "allow run_shell(git status)" in listed.stdout
    assert "allow run_shell(ls *)" not in listed.stdout
    assert run_cli("trust", "--yes", cwd=workspace).returncode == 0
    assert not [p for p in store.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_crashed_session_on_a_read_only_disk_still_continues(workspace: Path) -> None:
    """After the crash the disk is read-only (a rescue boot, a full quota): the session loads
    as the crash left it though it cannot be sealed again; the run says what it cannot save."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("bubblewrap (bwrap) is not installed")
    jail = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--"]
    probe = subprocess.run([*jail, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"bwrap cannot run here: {probe.stderr.decode().strip()}")
    path = _first_session(workspace)
    assert crash_append("after-write", path, "two") == signal.SIGKILL
    before = seal_path(path).read_bytes()
    model = write_script(workspace / "three.json", [{"text": "still here"}])
    continued = ("-p", "go on", "--continue", "--output-format", "json")
    argv = [*jail, *agent_tui(*continued, "--model", f"script:{model}")]
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, timeout=60)
    result = json.loads(done.stdout)
    assert result["text"] == "still here", done.stderr
    assert result["session_id"] == path.stem.rsplit("-", 1)[-1]  # the crashed one, continued
    assert "agent-tui trust --session" not in done.stderr
    assert "Traceback" not in done.stderr
    assert seal_path(path).read_bytes() == before  # nothing could be written
