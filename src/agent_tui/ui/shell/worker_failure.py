"""One handler for every worker that ends in an error (``AgentApp.on_worker_state_changed``).

The app's workers run with ``exit_on_error=False`` (a failing side task must not take the
session down), which also means Textual says nothing when one fails. Here each failure is
logged with its traceback (``core.state.logfile``) and shown as a notice naming the task, the error
and where the log is; the agent's own worker also gets its error block in the chat (the app
does that), so it is only logged here.
"""

from __future__ import annotations

import logging
from typing import Any

from textual.app import App
from textual.worker import Worker

log = logging.getLogger(__name__)

QUIET_GROUPS = frozenset({"agent"})
"""Groups whose failure the app shows elsewhere (the agent's: an error block in the chat)."""


def worker_failed(app: App[Any], worker: Worker[Any]) -> None:
    error = worker.error
    what = worker.name or worker.group or "a background task"
    log.error(
        "worker %r (group %r) failed",
        worker.name,
        worker.group,
        exc_info=(type(error), error, error.__traceback__) if error is not None else None,
    )
    if worker.group in QUIET_GROUPS:
        return
    said = f"{type(error).__name__}: {error}" if error is not None else "unknown error"
    app.notify(
        f"{what} failed: {said}. {_where()}",
        title="Internal error",
        severity="error",
        timeout=15,
    )


def _where() -> str:
    from agent_tui.core.state.logfile import current

    log_file = current()
    if log_file is None or log_file.path is None:
        return "No log file in this run."
    return f"Details in {log_file.path}."
