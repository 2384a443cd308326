"""An unwritable data dir (issue 38, item 7): the run says which path and why, and keeps its
data in a private directory of the temporary dir instead (resumable from there); with no
place at all to write, the run still works and says, once, at the end, what was not saved."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.conversation.session import SessionLog
from tests.test_cli_headless import write_script

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _run(
    *args: str, cwd: Path, env: dict[str, str], prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": SRC, "PYTHONDONTWRITEBYTECODE": "1", **env},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_data_dir_that_cannot_be_made_falls_back_and_says_where(
    workspace: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    temp = tmp_path / "temp"
    temp.mkdir()
    script = write_script(workspace / "s.json", [{"text": "an answer"}])
    env = {"AGENT_TUI_DATA_DIR": str(blocker / "data"), "TMPDIR": str(temp)}
    done = _run("-p", "hi", "--model", f"script:{script}", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "an answer"
    instead = temp / f"agent-tui-{os.getuid()}" / "data"
    assert (
        f"the data dir {blocker / 'data'} cannot be written (Not a directory): this run keeps "
        f"its session, the trust you give and the quarantine in {instead} instead"
    ) in done.stderr
    assert "Traceback" not in done.stderr
    (saved,) = (instead / "sessions").glob("*.jsonl")
    assert [m.content for m in SessionLog.load(saved).messages] == ["hi", "an answer"]
    again = _run(
        "-p",
        "more",
        "--model",
        f"script:{script}",
        "--resume",
        str(saved),
        cwd=workspace,
        env=env,
    )
    assert again.returncode == 0, again.stderr
    assert [m.content for m in SessionLog.load(saved).messages][-2:] == ["more", "an answer"]


def test_with_nowhere_to_write_the_run_works_and_says_what_was_not_saved(
    workspace: Path,
) -> None:
    """Everything read-only (the whole file system, in bubblewrap): the answer still comes,
    the warning says nothing is saved, and the end says what was lost (exit 4)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("bubblewrap (bwrap) is not installed")
    script = write_script(workspace / "s.json", [{"text": "an answer"}])
    jail = (bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--")
    probe = subprocess.run([*jail, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"bwrap cannot run here: {probe.stderr.decode().strip()}")
    done = _run("-p", "hi", "--model", f"script:{script}", cwd=workspace, env={}, prefix=jail)
    assert done.returncode == 4, done.stderr
    assert done.stdout.strip() == "an answer"
    assert "nothing of this run is saved" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("of this run could not be saved") == 1
