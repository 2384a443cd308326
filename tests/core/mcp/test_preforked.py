"""The zygote and launcher of the preforked fixture servers (``preforked``): the process the
client spawns behaves as the server would — its exit code, the signal that killed it, its
pipes' end — and no child outlives a killed launcher."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.core.mcp.conftest import DEADLINE
from tests.core.mcp.preforked import LAUNCH, preforked

SCRIPT = """
import os, signal, sys, time
mode = sys.argv[1]
print(f"child {os.getpid()} {os.getcwd()} {os.environ.get('MARK')}", flush=True)
sys.stderr.write("to stderr\\n")
sys.stderr.flush()
if mode == "exit":
    sys.exit(7)
if mode == "raise":
    raise RuntimeError("boom")
if mode == "kill-self":
    os.kill(os.getpid(), signal.SIGKILL)
if mode == "echo":
    for line in sys.stdin:
        print(line.strip().upper(), flush=True)
    sys.exit(0)
time.sleep(3600)  # "wait": until signalled
"""


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("preforked") / "server.py"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def dispositions(ignored: tuple[signal.Signals, ...]) -> Callable[[], None]:
    """For ``preexec_fn``: the launcher starts with ``ignored`` ignored and the other signals at
    their default (whatever the test run inherited: under ``nohup``, SIGHUP is ignored)."""

    def apply() -> None:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)

    return apply


def ignored_by(pid: int) -> set[int]:
    """The signals process ``pid`` ignores (its ``SigIgn`` mask)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            mask = int(line.split()[1], 16)
            return {n for n in range(1, 65) if mask & (1 << (n - 1))}
    raise AssertionError(f"no SigIgn for {pid}")


def start(
    script: Path, mode: str, cwd: Path, ignored: tuple[signal.Signals, ...] = ()
) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        preforked(script, mode),
        preexec_fn=dispositions(ignored),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "MARK": "marked"},
    )
    assert process.stdout is not None
    first = process.stdout.readline().split()
    assert first[0] == "child", first
    assert first[2:] == [str(cwd), "marked"]  # its launcher's directory and environment
    child = int(first[1])
    assert child != process.pid  # forked from the zygote, not the launcher itself
    return process, child


def gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] == "Z"


def wait_gone(pid: int) -> None:
    end = time.monotonic() + DEADLINE
    while not gone(pid):
        assert time.monotonic() < end, f"pid {pid} is still alive"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("mode", "code", "stderr"),
    [("exit", 7, "to stderr\n"), ("raise", 1, "RuntimeError: boom"), ("kill-self", -9, "")],
)
def test_the_launcher_ends_as_its_child(
    script: Path, tmp_path: Path, mode: str, code: int, stderr: str
) -> None:
    process, child = start(script, mode, tmp_path)
    out, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == code
    assert "to stderr" in err  # the child's own stderr, to its end
    assert stderr in err
    assert out == ""
    wait_gone(child)


def test_the_pipes_are_the_childs(script: Path, tmp_path: Path) -> None:
    process, child = start(script, "echo", tmp_path)
    out, _ = process.communicate("one\ntwo\n", timeout=DEADLINE)  # then stdin closes: EOF
    assert out.split() == ["ONE", "TWO"]
    assert process.returncode == 0
    wait_gone(child)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_to_the_launcher_reaches_the_child(
    script: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    process, child = start(script, "wait", tmp_path)
    process.send_signal(signum)
    process.wait(timeout=DEADLINE)
    # SIGINT: the script's KeyboardInterrupt ends it as Python does, killed by SIGINT
    assert process.returncode == -signum
    wait_gone(child)


def test_the_child_ignores_what_its_launcher_ignored(script: Path, tmp_path: Path) -> None:
    """As ``python SCRIPT`` under ``nohup`` would: the zygote's own dispositions (inherited from
    whatever started the test run) are not the child's."""
    process, child = start(script, "wait", tmp_path, ignored=(signal.SIGHUP,))
    assert signal.SIGHUP in ignored_by(child)
    assert not {signal.SIGTERM, signal.SIGINT} & ignored_by(child)
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=DEADLINE)
    assert process.returncode == -signal.SIGTERM
    wait_gone(child)


def test_a_killed_launcher_takes_its_child_along(script: Path, tmp_path: Path) -> None:
    process, child = start(script, "wait", tmp_path)
    process.kill()
    process.wait(timeout=DEADLINE)
    assert process.returncode == -signal.SIGKILL
    wait_gone(child)


def test_a_killed_child_kills_its_launcher_so(script: Path, tmp_path: Path) -> None:
    process, child = start(script, "wait", tmp_path)
    os.kill(child, signal.SIGKILL)
    process.wait(timeout=DEADLINE)
    assert process.returncode == -signal.SIGKILL


def test_the_launcher_imports_no_sdk(tmp_path: Path) -> None:
    # without a zygote it runs the script itself; -X importtime lists what the launcher loaded
    argv = [sys.executable, "-S", "-X", "importtime", str(LAUNCH), str(tmp_path / "no.sock")]
    done = subprocess.run(
        [*argv, "-c", "pass"],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=True,
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert "socket" in imported
    assert not [m for m in imported if m.split(".")[0] in ("mcp", "pydantic", "anyio")]
