"""A fresh Python process on this checkout's ``src`` (first on its path), for tests that look
at what a process imports or builds from its start: ``python_on_src(args, cwd)``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def python_on_src(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in ``cwd`` with ``src`` first on ``PYTHONPATH``, nothing on stdin, its
    output captured as text; at most 120 s (a guard against a hang, not a timing)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
