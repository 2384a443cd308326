"""The log file: where what went wrong is written, with its traceback.

Textual owns the terminal (and captures stderr), and a headless run's stderr belongs to the
user's pipeline; so every module logs (``logging.getLogger(__name__)``) into one rotating file
in the platform's state dir (``paths.log_dir``): ``agent-tui.log``, at most ``MAX_BYTES``,
with ``BACKUPS`` older files beside it. ``--debug`` lowers the level from INFO to DEBUG.

The file is written by a thread (a ``QueueListener``), never by the event loop: a slow or
full disk cannot stall the UI. A directory that cannot be made or written is not an error
at start: ``start`` says why, and the run goes on without a log file.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import queue
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.state.paths import log_dir

LOG_NAME = "agent-tui.log"
MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 3
LOGGER = "agent_tui"
FORMAT = "%(asctime)s %(levelname)-7s %(name)s [%(threadName)s] %(message)s"


@dataclass
class LogFile:
    """The log this process writes: ``path``, or None and ``problem`` (why not)."""

    path: Path | None
    problem: str | None = None
    debug: bool = False
    _listener: logging.handlers.QueueListener | None = None
    _handler: logging.Handler | None = None

    def close(self) -> None:
        """Flush what is queued and detach (idempotent)."""
        if self._handler is not None:
            logging.getLogger(LOGGER).removeHandler(self._handler)
            self._handler = None
        if self._listener is not None:
            listener, self._listener = self._listener, None
            listener.stop()
            for handler in listener.handlers:
                handler.close()


_current: LogFile | None = None


def current() -> LogFile | None:
    """The log file ``start`` opened in this process, if any."""
    return _current


def start(*, debug: bool = False, directory: Path | None = None) -> LogFile:
    """Send the ``agent_tui`` loggers to the log file (replacing what an earlier ``start`` of
    this process set up). Never raises: a log that cannot be opened is said in ``problem``."""
    global _current
    if _current is not None:
        _current.close()
    logger = logging.getLogger(LOGGER)
    logger.setLevel(logging.DEBUG if debug else logging.INFO)
    where = directory or log_dir()
    try:
        path = _open(where)
        file_handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True
        )
    except (OSError, ValueError) as exc:
        # nothing is written anywhere (Python's last-resort handler would print on stderr)
        logger.addHandler(logging.NullHandler())
        _current = LogFile(None, f"no log file: {where} is not usable ({_say(exc)})", debug)
        return _current
    file_handler.setFormatter(logging.Formatter(FORMAT))
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    handler = logging.handlers.QueueHandler(records)
    listener = logging.handlers.QueueListener(records, file_handler, respect_handler_level=False)
    listener.start()
    logger.addHandler(handler)
    _current = LogFile(path, None, debug, listener, handler)
    from agent_tui import __version__

    logger.info(
        "agent-tui %s started (pid %d, Python %s)%s",
        __version__,
        os.getpid(),
        sys.version.split()[0],
        " with --debug" if debug else "",
    )
    return _current


def _open(directory: Path) -> Path:
    """``directory/LOG_NAME``, made private (0700, 0600) and checked to be a regular file of
    ours reached without a symbolic link at its end; OSError when it cannot be."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(directory)
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(f"{directory} is not a directory")
    path = directory / LOG_NAME
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
    finally:
        os.close(fd)
    return path


def _say(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def stop() -> None:
    """Flush and detach the log file (at exit)."""
    global _current
    if _current is not None:
        with contextlib.suppress(Exception):
            _current.close()
        _current = None
