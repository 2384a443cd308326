"""The log file (``core.logfile``): private, rotating, written off the event loop, and never
a reason for a run to fail."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.state import logfile

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(autouse=True)
def _stopped() -> Iterator[None]:
    yield
    logfile.stop()


def _text(directory: Path) -> str:
    logfile.stop()  # flushes the queue
    return (directory / logfile.LOG_NAME).read_text(encoding="utf-8")


def test_records_land_in_a_private_file(tmp_path: Path) -> None:
    where = tmp_path / "state" / "log"
    log = logfile.start(directory=where)
    assert log.path == where / logfile.LOG_NAME
    assert log.problem is None
    logging.getLogger("agent_tui.core.somewhere").error("the thing broke: %s", "why")
    text = _text(where)
    assert "agent-tui" in text.splitlines()[0]
    assert "started" in text
    assert "ERROR   agent_tui.core.somewhere" in text
    assert "the thing broke: why" in text
    assert stat.S_IMODE(os.stat(where).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(where / logfile.LOG_NAME).st_mode) == 0o600


def test_debug_lowers_the_level(tmp_path: Path) -> None:
    logfile.start(directory=tmp_path)
    logging.getLogger("agent_tui.x").debug("hidden detail")
    assert "hidden detail" not in _text(tmp_path)
    logfile.start(directory=tmp_path, debug=True)
    logging.getLogger("agent_tui.x").debug("shown detail")
    text = _text(tmp_path)
    assert "shown detail" in text
    assert "with --debug" in text


def test_a_traceback_is_written_whole(tmp_path: Path) -> None:
    logfile.start(directory=tmp_path)
    try:
        {}["missing"]
    except KeyError:
        logging.getLogger("agent_tui.y").exception("looking it up failed")
    text = _text(tmp_path)
    assert "Traceback (most recent call last)" in text
    assert "KeyError: 'missing'" in text


def test_starting_again_does_not_write_twice(tmp_path: Path) -> None:
    logfile.start(directory=tmp_path)
    logfile.start(directory=tmp_path)
    logging.getLogger("agent_tui.z").warning("once only")
    assert _text(tmp_path).count("once only") == 1


def test_the_file_rotates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logfile, "MAX_BYTES", 10_000)
    logfile.start(directory=tmp_path)
    for n in range(400):
        logging.getLogger("agent_tui.r").info("line %d %s", n, "x" * 60)
    logfile.stop()
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == ["agent-tui.log", "agent-tui.log.1", "agent-tui.log.2", "agent-tui.log.3"]
    assert all(p.stat().st_size <= 10_000 for p in tmp_path.iterdir())
    assert "line 399" in (tmp_path / "agent-tui.log").read_text()


def test_a_link_in_place_of_the_file_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / logfile.LOG_NAME).symlink_to(target)
    log = logfile.start(directory=tmp_path / "log")
    assert log.path is None
    assert log.problem is not None
    assert str(tmp_path / "log") in log.problem
    logging.getLogger("agent_tui.l").error("not written anywhere")
    logfile.stop()
    assert target.read_text() == "keep me\n"


CHILD = """
import logging, sys
from pathlib import Path
from agent_tui.core.state import logfile
log = logfile.start(directory=Path(sys.argv[1]))
print(log.problem)
logging.getLogger("agent_tui.core.x").error("an error with nowhere to go")
logfile.stop()
"""


def test_an_unusable_directory_is_said_and_nothing_reaches_stderr(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the log dir would be\n")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(blocker / "log")],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.startswith(f"no log file: {blocker / 'log'} is not usable (")
    assert done.stderr == ""  # Python's last-resort handler would have printed the error
