"""Enter typed while ``agent-tui`` starts sends the message (issue 45's stand-in prompt takes
keys from the first frame; before that the terminal is cooked, and its ``ICRNL`` made the
Enter a Ctrl+J: a new line in the box, the message unsent). On a real pseudo-terminal: the
flag is off from the start (``cli.start_keys``), and back once the app is gone."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import subprocess
import sys
import termios
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.cli.start_keys import keep_enter, typed_ahead
from tests.ui.helpers import DEADLINE

SRC = Path(__file__).resolve().parents[2] / "src"

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a Linux pseudo-terminal")


def _typed(master: int, slave: int, keys: bytes) -> bytes:
    """``keys`` typed on the terminal now, read as a raw-mode app reads them later.

    The line discipline takes typed bytes in from a kernel work queue, a moment after the
    write: the echo of the last key on ``master`` says it has taken them all (and applied
    the cooked mode's ``ICRNL`` or not) before the switch to raw mode, as when a person
    types during the start."""
    os.write(master, keys)
    echoed = bytearray()
    end = time.monotonic() + DEADLINE
    while len(echoed) < len(keys):  # each key echoes as one byte or more (ONLCR: \n → \r\n)
        assert time.monotonic() < end, f"never echoed: {keys!r} (got {bytes(echoed)!r})"
        if select.select([master], [], [], 0.1)[0]:
            echoed.extend(os.read(master, 100))
    tty.setraw(slave, termios.TCSANOW)  # as Textual's driver does: what was typed stays
    return os.read(slave, 100)


def test_enter_typed_in_the_cooked_terminal_stays_enter() -> None:
    master, slave = pty.openpty()
    try:
        assert termios.tcgetattr(slave)[0] & termios.ICRNL  # a terminal as the shell leaves it
        assert _typed(master, slave, b"hi\r") == b"hi\n"  # why: Enter arrives as Ctrl+J
    finally:
        os.close(master)
        os.close(slave)
    master, slave = pty.openpty()
    try:
        restore = keep_enter(slave)
        attrs = termios.tcgetattr(slave)
        assert not attrs[0] & termios.ICRNL
        assert attrs[3] & termios.ICANON  # nothing else changed
        assert attrs[3] & termios.ECHO
        assert _typed(master, slave, b"hi\r") == b"hi\r"
        restore()
        assert termios.tcgetattr(slave)[0] & termios.ICRNL
    finally:
        os.close(master)
        os.close(slave)


def test_not_a_terminal_is_left_alone(tmp_path: Path) -> None:
    with open(tmp_path / "f", "w") as f:
        keep_enter(f.fileno())()
    keep_enter(12345)()  # not open


def _drain(master: int, into: bytearray) -> None:
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        if not data:
            return
        into.extend(data)


def _until(probe: object, what: str) -> None:
    end = time.monotonic() + DEADLINE
    while not probe():  # type: ignore[operator]
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.001)


GATED_START = """
import importlib.abc, os, sys, time

class Hold(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "agent_tui.ui.app":  # the app's imports: held until the test has typed
            while not os.path.exists(sys.argv[1]):
                time.sleep(0.01)
            sys.meta_path.remove(self)
        return None

sys.meta_path.insert(0, Hold())
from agent_tui.cli.main import main
sys.exit(main(sys.argv[2:]))
"""
"""``agent-tui`` whose start is held before the app's imports until a gate file exists: the
keys are typed at a moment known to be before Textual's driver (the terminal still cooked)."""


def _gated_app(tmp_path: Path, slave: int) -> subprocess.Popen[bytes]:
    """``agent-tui`` on terminal ``slave``, its start held (``GATED_START``) until the file
    ``tmp_path / "gate"`` exists; sessions under ``tmp_path / "data"``."""
    env = {
        "PYTHONPATH": str(SRC),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "HOME": str(tmp_path),
        "AGENT_TUI_DATA_DIR": str(tmp_path / "data"),
        "AGENT_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "AGENT_DEMO_DELAY": "0",
    }
    return subprocess.Popen(
        [sys.executable, "-c", GATED_START, str(tmp_path / "gate"), "--cwd", str(tmp_path)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )


def _saved(tmp_path: Path) -> bytes:
    """Every session file's bytes, one after the other."""
    files = (p for p in (tmp_path / "data").rglob("*.jsonl") if p.is_file())
    return b"".join(path.read_bytes() for path in files)


def _flags(fd: int) -> tuple[int, int]:
    attrs = termios.tcgetattr(fd)
    return attrs[0], attrs[3]


def _quit(master: int, child: subprocess.Popen[bytes]) -> None:
    end = time.monotonic() + DEADLINE
    while child.poll() is None:  # Ctrl+C twice: interrupt the turn if any, then quit
        assert time.monotonic() < end, "the app never quit"
        os.write(master, b"\x03\x03")
        try:
            child.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass


@contextlib.contextmanager
def _app_on_a_terminal(
    tmp_path: Path, typed_first: bytes = b""
) -> Iterator[tuple[int, int, subprocess.Popen[bytes]]]:
    """(master, slave, the gated app on slave); ``typed_first`` typed before it is spawned
    (taken by the cooked terminal: its Enter a line feed). The app killed if still running."""
    master, slave = pty.openpty()
    try:
        if typed_first:
            os.write(master, typed_first)
            _echoed(master, typed_first.rstrip(b"\r"))
        child = _gated_app(tmp_path, slave)
        threading.Thread(target=_drain, args=(master, bytearray()), daemon=True).start()
        try:
            yield master, slave, child
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    finally:
        os.close(slave)
        os.close(master)


def _echoed(master: int, text: bytes) -> None:
    """Wait until ``text`` is echoed on ``master``: the line discipline has taken it."""
    echoed = bytearray()
    end = time.monotonic() + DEADLINE
    while text not in echoed:
        assert time.monotonic() < end, f"never echoed: {text!r} (got {bytes(echoed)!r})"
        if select.select([master], [], [], 0.1)[0]:
            echoed.extend(os.read(master, 100))


def test_enter_typed_while_the_tui_starts_sends_the_message(tmp_path: Path) -> None:
    with _app_on_a_terminal(tmp_path) as (master, slave, child):
        # the start, held before the app's imports: ICRNL off, the terminal still cooked
        _until(lambda: not _flags(slave)[0] & termios.ICRNL, "ICRNL turned off")
        assert _flags(slave)[1] & termios.ICANON
        os.write(master, b"hello from the start\r")
        (tmp_path / "gate").touch()
        _until(lambda: b"hello from the start" in _saved(tmp_path), "the message sent and saved")
        _quit(master, child)
        iflag, lflag = _flags(slave)
        assert iflag & termios.ICRNL  # given back
        assert lflag & termios.ICANON  # and the rest as it was (Textual's restore)


def test_lines_typed_before_the_process_ran_are_sent_in_order(tmp_path: Path) -> None:
    """``agent-tui⏎first⏎`` typed fast in a shell: "first" and its Enter reach the terminal
    before our process runs, so ``ICRNL`` made that Enter a line feed before ``keep_enter``
    could help; taken from the queue before the driver starts, it is Enter again, and goes
    before what was typed later."""
    with _app_on_a_terminal(tmp_path, b"typed before it ran\r") as (master, slave, child):
        _until(lambda: not _flags(slave)[0] & termios.ICRNL, "ICRNL turned off")
        os.write(master, b"typed while it starts\r")
        (tmp_path / "gate").touch()

        def both() -> bool:
            saved = _saved(tmp_path)
            return b"typed before it ran" in saved and b"typed while it starts" in saved

        _until(both, "both messages sent and saved")
        saved = _saved(tmp_path)
        assert saved.index(b"typed before it ran") < saved.index(b"typed while it starts")
        assert b"typed before it ran\\n" not in saved  # sent, not a line in the box
        _quit(master, child)


def test_typed_ahead_takes_the_queue_and_leaves_the_terminal_as_it_was() -> None:
    master, slave = pty.openpty()
    try:
        assert typed_ahead(slave) == ""  # nothing typed
        os.write(master, b"one\rtwo \xc3\xa9")  # a line ended by Enter (cooked: \n), a line begun
        _echoed(master, b"two \xc3\xa9")
        before = termios.tcgetattr(slave)
        assert typed_ahead(slave) == "one\rtwo \u00e9"
        assert termios.tcgetattr(slave) == before  # canonical again, VMIN/VTIME as they were
        assert typed_ahead(slave) == ""  # taken once
        tty.setraw(slave, termios.TCSANOW)
        assert typed_ahead(slave) == ""  # raw already: the app reads its own queue
    finally:
        os.close(master)
        os.close(slave)
    assert typed_ahead(12345) == ""  # not open
