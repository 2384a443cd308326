"""Enter typed while ``agent-tui`` starts sends the message (issue 45's stand-in prompt takes
keys from the first frame; before that the terminal is cooked, and its ``ICRNL`` made the
Enter a Ctrl+J: a new line in the box, the message unsent). On a real pseudo-terminal: the
flag is off from the start (``cli.start_keys``), and back once the app is gone."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import termios
import threading
import time
import tty
from pathlib import Path

import pytest

from agent_tui.cli.start_keys import keep_enter
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


def test_enter_typed_while_the_tui_starts_sends_the_message(tmp_path: Path) -> None:
    data = tmp_path / "data"
    gate = tmp_path / "gate"
    master, slave = pty.openpty()
    env = {
        "PYTHONPATH": str(SRC),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "HOME": str(tmp_path),
        "AGENT_TUI_DATA_DIR": str(data),
        "AGENT_TUI_CONFIG_DIR": str(tmp_path / "config"),
    }
    screen = bytearray()
    child = subprocess.Popen(
        [sys.executable, "-c", GATED_START, str(gate), "--cwd", str(tmp_path)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    reader = threading.Thread(target=_drain, args=(master, screen), daemon=True)
    reader.start()
    try:

        def flags() -> tuple[int, int]:
            attrs = termios.tcgetattr(slave)
            return attrs[0], attrs[3]

        # the start, held before the app's imports: ICRNL off, the terminal still cooked
        _until(lambda: not flags()[0] & termios.ICRNL, "ICRNL turned off")
        assert flags()[1] & termios.ICANON
        os.write(master, b"hello from the start\r")
        gate.touch()

        def sent() -> bool:
            return any(
                b"hello from the start" in path.read_bytes()
                for path in data.rglob("*.jsonl")
                if path.is_file()
            )

        _until(sent, "the message sent and saved")
        end = time.monotonic() + DEADLINE
        while child.poll() is None:  # Ctrl+C twice: interrupt the turn if any, then quit
            assert time.monotonic() < end, "the app never quit"
            os.write(master, b"\x03\x03")
            try:
                child.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        iflag, lflag = flags()
        assert iflag & termios.ICRNL  # given back
        assert lflag & termios.ICANON  # and the rest as it was (Textual's restore)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(slave)
        os.close(master)
