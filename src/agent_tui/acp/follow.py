"""The program an editor's terminal runs to show a ``run_shell`` command's output
(``terminals``): it copies what agent-tui writes to one file to its standard output as it
comes, and ends when agent-tui says the command ended, with the command's exit code.

It runs nothing else, reads nothing else, and needs nothing but the standard library: the
editor starts it as ``python -I …/follow.py OUTPUT PID``. The command itself ran in
agent-tui's process, sandboxed and judged as in the TUI. The end is a second file,
``OUTPUT.exit``, holding the exit code, written (atomically) after the last output. It also
ends when agent-tui (``PID``) is gone, or after ``MAX_SECONDS``.
"""

from __future__ import annotations

import os
import sys
import time

POLL_SECONDS = 0.05
MAX_SECONDS = 24 * 3600.0
CHUNK = 1 << 16


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _exit_code(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().strip() or "1")
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return 1


def follow(output: str, pid: int) -> int:
    """Copy ``output`` to stdout until its ``.exit`` file says the command ended."""
    out = sys.stdout.buffer
    deadline = time.monotonic() + MAX_SECONDS
    with open(output, "rb") as f:
        while True:
            code = _exit_code(output + ".exit")  # before the read: the last output is in
            while chunk := f.read(CHUNK):
                out.write(chunk)
            out.flush()
            if code is not None:
                return code
            if not _alive(pid) or time.monotonic() > deadline:
                return 1
            time.sleep(POLL_SECONDS)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: follow.py OUTPUT PID", file=sys.stderr)
        return 2
    try:
        return follow(argv[0], int(argv[1]))
    except (OSError, ValueError) as exc:
        print(f"agent-tui: cannot show the output: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
