"""What is known of a background job at one moment (``JobInfo``), for the tools, the notes to
the model and the front ends: typed fields, never a sentence to parse."""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass
from enum import StrEnum

JOB_TOOLS = frozenset({"shell_output", "shell_kill"})
"""The tools that act on jobs: offered to the model only once the session has a job (they would
cost every request ~300 tokens for nothing); ``run_shell``'s result names them."""


class JobState(StrEnum):
    RUNNING = "running"
    EXITED = "exited"
    """Ended by itself (``exit_code``: its code, negative for a signal it got from elsewhere)."""
    KILLED = "killed"
    """Stopped by ``shell_kill``, ``/shells`` or the agent closing."""


class UnknownJob(LookupError):
    """An id that names none of this session's jobs."""

    def __init__(self, job_id: str, known: list[str]) -> None:
        self.job_id = job_id
        have = ", ".join(known) if known else "none"
        super().__init__(
            f"There is no background job {job_id!r} in this session (its jobs: {have})."
        )


@dataclass(frozen=True)
class JobInfo:
    id: str
    command: str
    state: JobState
    exit_code: int | None
    started: float
    """Wall-clock time (``time.time()``) it started."""
    ended: float | None
    lines: int
    """Lines of output so far (a last line without its newline counts)."""
    bytes: int
    unread_lines: int
    """Lines ``shell_output`` has not returned yet."""
    unread_bytes: int
    tail: tuple[str, ...]
    """Its last lines, escape codes stripped (for a card)."""
    log: str
    """The file holding its whole output, as the model sees paths."""
    pid: int
    killed_by: str | None = None
    """``"model"`` (``shell_kill``), ``"user"`` (``/shells``), ``"exit"`` (the agent closed)."""

    @property
    def running(self) -> bool:
        return self.state is JobState.RUNNING

    def elapsed(self, now: float | None = None) -> float:
        """Seconds it ran (so far, while running)."""
        end = self.ended if self.ended is not None else (now or time.time())
        return max(0.0, end - self.started)

    @property
    def status(self) -> str:
        """``running``, ``exited 0``, ``killed``, ``killed by SIGSEGV``: short, for people."""
        if self.state is JobState.RUNNING:
            return "running"
        if self.state is JobState.KILLED:
            return "killed"
        code = self.exit_code
        if code is not None and code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"exited {code}"
        return f"exited {code}"


def elapsed_text(seconds: float) -> str:
    """``4s``, ``2m05s``, ``1h02m``."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
