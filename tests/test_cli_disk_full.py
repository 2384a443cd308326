"""A disk that is full to the end of a run (issue 38, item 5), for real: the data dir on a
64 KiB tmpfs with no room for the answer. The run says once what was not saved and where it
went (a rescue file in the temporary directory), exits 4, and nothing is lost: the rescue file
appended to the session gives the whole conversation back."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from agent_tui.core.conversation.session import SessionLog
from tests.test_cli_headless import write_script


def _fill(disk: Path, leave: int) -> None:
    """Fill ``disk`` until fewer than ``leave`` bytes are free."""
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    (disk / "filler").write_bytes(b"x" * max(0, free - leave))


def test_a_full_disk_to_the_end_exits_4_and_says_where_the_rest_is(
    tiny_disk: Path, workspace: Path
) -> None:
    script = write_script(workspace / "s.json", [{"text": "a long answer " * 800}])
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    env["AGENT_TUI_DATA_DIR"] = str(tiny_disk / "data")
    (tiny_disk / "data" / "sessions").mkdir(parents=True)
    # room for the header, its seal and the prompt (a 4 KiB page each), not the answer
    _fill(tiny_disk, leave=12288)
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", "-p", "first", "--model", f"script:{script}"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 4, done.stderr
    assert done.stdout.startswith("a long answer")  # the user still got the answer
    said = [line for line in done.stderr.splitlines() if "could not be saved" in line]
    final = [line for line in said if "of this run" in line]
    assert len(final) == 1, done.stderr
    assert "No space left on device" in final[0]
    rescue = Path(re.search(r"written to (\S+) instead", final[0]).group(1))  # type: ignore[union-attr]
    try:
        (session_file,) = (tiny_disk / "data" / "sessions").glob("*.jsonl")
        saved = SessionLog.load(session_file)
        assert [m.role for m in saved.messages] == ["user"]
        # nothing lost: the rescued lines complete the session once there is room again
        (tiny_disk / "filler").unlink()
        with session_file.open("ab") as fh:
            fh.write(rescue.read_bytes())
        whole = SessionLog.load(session_file)
        assert [m.role for m in whole.messages] == ["user", "assistant"]
        assert whole.messages[1].content.startswith("a long answer")
    finally:
        rescue.unlink()
