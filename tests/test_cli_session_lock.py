"""One writer per session (issue 38, item 4): a second ``--continue`` of a session another
process is writing goes on in a fork, saying so, and the two never interleave in one file; a
writer killed with ``kill -9`` leaves no lock behind. Real processes, real files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_tui.core.conversation.session import SessionLog
from tests.test_cli_headless import run_cli, write_script

DEADLINE = 60.0


def _start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def _wait(condition: object, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _sessions() -> list[Path]:
    return sorted((Path(os.environ["AGENT_TUI_DATA_DIR"]) / "sessions").glob("*.jsonl"))


def _busy_writer(workspace: Path) -> subprocess.Popen[str]:
    """A headless run whose one call waits for the file ``go`` (its session is held)."""
    wait = "while [ ! -e go ]; do sleep 0.02; done; echo waited"
    script = write_script(
        workspace / "a.json",
        [
            {"tool_calls": [{"name": "run_shell", "arguments": {"command": wait}}]},
            {"text": "A is done"},
        ],
    )
    proc = _start(
        "-p", "from A", "--model", f"script:{script}", "--allow", "run_shell", cwd=workspace
    )
    _wait(lambda: any((p.with_name(p.name + ".lock")).exists() for p in _sessions()), "A")
    _wait(lambda: b"run_shell" in _sessions()[0].read_bytes(), "A's call to be in its session")
    return proc


def test_a_second_continue_forks_and_nothing_interleaves(workspace: Path) -> None:
    a = _busy_writer(workspace)
    (a_file,) = _sessions()
    a_id = a_file.stem.rsplit("-", 1)[-1]
    script = write_script(workspace / "b.json", [{"text": "B answers"}])
    b = run_cli(
        "-p",
        "from B",
        "--model",
        f"script:{script}",
        "--continue",
        "--output-format",
        "json",
        cwd=workspace,
    )
    assert b.returncode == 0, b.stderr
    result = json.loads(b.stdout)
    (note,) = [w for w in result["warnings"] if "in use" in w]
    assert f"session {a_id} is in use by another agent-tui (pid {a.pid})" in note
    assert "goes on in a fork" in note
    assert f"pid {a.pid}" in b.stderr  # said on stderr too
    (workspace / "go").touch()
    _out, err = a.communicate(timeout=DEADLINE)
    assert a.returncode == 0, err
    # A's file holds A's turn only; B's fork holds A's history so far, then B's turn
    a_messages = SessionLog.load(a_file).messages
    assert [m.content for m in a_messages if m.role == "user"] == ["from A"]
    ids = [m.tool_call_id for m in a_messages if m.role == "tool"]
    assert len(ids) == len(set(ids))
    (fork_file,) = [p for p in _sessions() if p != a_file]
    fork = SessionLog.load(fork_file)
    assert fork.forked_from == a_id
    assert [m.content for m in fork.messages if m.role == "user"] == ["from A", "from B"]
    assert not a_file.with_name(a_file.name + ".lock").exists()  # released at the end


def test_a_writer_killed_with_sigkill_leaves_no_lock(workspace: Path) -> None:
    a = _busy_writer(workspace)
    (a_file,) = _sessions()
    a.send_signal(signal.SIGKILL)
    a.wait(timeout=DEADLINE)
    script = write_script(workspace / "b.json", [{"text": "B answers"}])
    b = run_cli(
        "-p",
        "from B",
        "--model",
        f"script:{script}",
        "--continue",
        "--output-format",
        "json",
        cwd=workspace,
    )
    assert b.returncode == 0, b.stderr
    assert not [w for w in json.loads(b.stdout)["warnings"] if "in use" in w]
    assert _sessions() == [a_file]  # no fork: the session was free
    contents = [m.content for m in SessionLog.load(a_file).messages if m.role == "user"]
    assert contents == ["from A", "from B"]
