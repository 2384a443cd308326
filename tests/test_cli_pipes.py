"""``agent-tui … | head``: the reader closes the pipe early, and the command stops quietly with
128 + SIGPIPE, as a Unix tool does — no traceback on the terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trusting import trust_everything


def _closed_early(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``agent-tui ARGS``, read one line of its output, close the pipe; (exit code, stderr)."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("AGENT_MODEL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    assert process.stdout.readline()  # it started writing
    process.stdout.close()  # `head -1` is done
    try:
        _, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    return process.returncode, err.decode("utf-8", "replace")


@pytest.mark.parametrize(
    "args",
    [
        # a decision printed part by part: 20,000 parts, far more than a pipe's buffer
        ["permissions", "check", "run_shell(ls:*)", "--", " ; ".join(["ls"] * 20_000)],
        # the demo model's tour as stream-json events
        ["-p", "show me what you can do", "--output-format", "stream-json"],
    ],
    ids=["permissions-check", "stream-json"],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(workspace: Path, args: list[str]) -> None:
    trust_everything(workspace)
    code, err = _closed_early(args, workspace)
    assert "Traceback" not in err, err
    assert "BrokenPipeError" not in err, err
    assert code == 141, (code, err)
