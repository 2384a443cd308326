"""Where an export goes, and writing it.

With no file named, the export goes to ``agent-tui-<session>-<date>.md`` (``.json``) in the
working directory, with ``-2``, ``-3``… added when that name is taken: an existing file is
never overwritten unless it was named. The write is atomic (``tools.files.safe_open``: a
temporary file renamed over the name, so a full disk leaves no half file), and a failure is an
``ExportError`` that says what and where. Blocking: call it from a worker thread.
"""

from __future__ import annotations

import contextlib
import errno
import os
from datetime import datetime
from pathlib import Path

from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.safe_open import replace_file


class ExportError(Exception):
    """An export that could not be written: the message says where and why."""


def default_name(session_id: str, suffix: str, now: datetime) -> str:
    """The name of an export no file was named for (``suffix``: ``.md``)."""
    return f"agent-tui-{session_id or 'session'}-{now:%Y%m%d-%H%M%S}{suffix}"


def write_export(text: str, path: Path | None, *, cwd: Path, name: str) -> Path:
    """Write ``text`` atomically to ``path`` (relative to ``cwd``), or, with no path, to a
    new file ``name`` in ``cwd`` (``-2``… added when taken; claimed with ``O_EXCL``, so a file
    made meanwhile is not overwritten either); the path written."""
    if path is None:
        target = _claim(cwd, name)
        made = True
    else:
        target = Path(os.path.realpath(cwd / path.expanduser()))
        made = False
        if target.is_dir():
            raise ExportError(f"{path} is a directory: name a file to export to")
    try:
        replace_file(target, text.encode("utf-8"))
    except (OSError, ToolFailure) as exc:
        if made:
            with contextlib.suppress(OSError):
                os.unlink(target)
        raise ExportError(f"the export could not be written to {target}: {_why(exc)}") from exc
    return target


def _claim(cwd: Path, name: str) -> Path:
    stem, dot, suffix = name.rpartition(".")
    number = 1
    while True:
        shown = name if number == 1 else f"{stem}-{number}{dot}{suffix}"
        candidate = Path(os.path.realpath(cwd)) / shown
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            number += 1
            continue
        except OSError as exc:
            raise ExportError(
                f"the export could not be written to {candidate}: {_why(exc)}"
            ) from exc
        os.close(fd)
        return candidate


def _why(exc: OSError | ToolFailure) -> str:
    if isinstance(exc, ToolFailure):
        return str(exc)
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    return exc.strerror or str(exc)
